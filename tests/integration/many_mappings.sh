#!/usr/bin/env bash
# A process with more executable mappings than the BPF maps hold unwind tables for (64):
# one program built here dlopens 100 small shared libraries, each its own build (its own
# build id), then burns CPU in main. A cpu capture of the server loads the tables of the
# first 64 of its mappings and leaves the others to frame pointers; the profile says how
# many and in how many processes, in the text ("What the capture could not see"), in the
# JSON document, and again when the stored profile is shown (its header keeps them).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question: $("$SLIDEOPS" check 2>&1 | tail -5)"

LIBS=100
LIMIT=64
for i in $(seq "$LIBS"); do
	# A distinct constant: a distinct build, so a distinct table per library.
	printf 'unsigned long lib_%d(unsigned long x) { return x * %d + 1; }\n' "$i" "$((i + 7))" \
		> "$WORK/lib$i.c"
	gcc -O1 -shared -fPIC -Wl,--build-id -o "$WORK/lib$i.so" "$WORK/lib$i.c"
done
workload dlopen_libs_and_burn many_maps

"$WORK/many_maps" "$WORK" "$LIBS" > "$WORK/many_maps.out" 2>&1 &
pid=$!
defer "kill -9 $pid 2>/dev/null"
for _ in $(seq 100); do grep -q ready "$WORK/many_maps.out" && break; sleep 0.1; done
grep -q ready "$WORK/many_maps.out" || fail "the program did not load its libraries: $(cat "$WORK/many_maps.out")"
# Its executable mappings of files with unwind tables: the program, libc, the loader, the
# 100 libraries, and the vdso.
mapped=$(awk '$2 ~ /x/ && ($6 ~ /^\// || $6 == "[vdso]") { print $6 }' "/proc/$pid/maps" | wc -l)
[ "$mapped" -gt $((LIMIT + 30)) ] || fail "only $mapped executable file mappings"

"$SLIDEOPS" capture cpu -d 5 --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
jq -e '.mappings_left_to_frame_pointers' "$doc" >/dev/null ||
	fail "the document does not say which mappings were left to frame pointers: $(jq -c 'del(.functions, .groups)' "$doc")"
dropped=$(jq '.mappings_left_to_frame_pointers.mappings' "$doc")
procs=$(jq '.mappings_left_to_frame_pointers.processes' "$doc")
limit=$(jq '.mappings_left_to_frame_pointers.limit' "$doc")
[ "$limit" = "$LIMIT" ] || fail "the limit is $limit, not $LIMIT"
# At least this program's: every mapping past the first 64 that has a table (a library
# whose table could not be built within the capture's caps has none to drop). Other
# processes of this server may have had more than 64 too: more, never fewer.
[ "$procs" -ge 1 ] || fail "no process had mappings past the limit: $(jq -c .mappings_left_to_frame_pointers "$doc")"
[ "$dropped" -ge 1 ] || fail "no mapping was counted past the limit"
if [ "$procs" = 1 ]; then
	[ "$dropped" -le $((mapped - LIMIT)) ] ||
		fail "$dropped mappings counted past the limit, of $mapped executable mappings"
fi

id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" > "$WORK/show.txt" 2>&1 || fail "show failed: $(cat "$WORK/show.txt")"
want="$dropped executable mappings in $procs"
grep -F "$want" "$WORK/show.txt" | has "frame pointers" ||
	fail "show does not say '$want ... frame pointers': $(cat "$WORK/show.txt")"
"$SLIDEOPS" show "$id" --json | jq -e --argjson n "$dropped" \
	'.mappings_left_to_frame_pointers.mappings == $n' >/dev/null ||
	fail "the stored profile lost the count"
echo pass
