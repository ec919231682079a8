#!/usr/bin/env bash
# Hostile input and careless use, on a real capture: a process named with an escape
# sequence and a newline, an upload whose file name is an escape sequence and invalid
# UTF-8, outputs to /dev/null, a FIFO and standard output, a read-only and a full
# workspace, one owned by another user with a link planted in it, an emptied index with
# profiles beside it; exports that go tool pprof reads with -top, -list and -lines.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"
command -v go >/dev/null || skip "go is not installed (make deps installs golang-go)"
D=$SLIDEOPS_DATA
ESC=$'\e'

workload cpu_hot hot
# Its name on the process table: an escape sequence and a newline (comm is 15 bytes).
EVIL=$'\e[31mred\nx'
cp "$WORK/hot" "$WORK/$EVIL"
strip "$WORK/$EVIL"
"$WORK/$EVIL" & pid=$!
defer "kill -9 $pid"
sleep 0.3

"$SLIDEOPS" capture cpu -d 3 >"$WORK/capture.txt" 2>&1 || fail "capture: $(cat "$WORK/capture.txt")"
grep -q "$ESC" "$WORK/capture.txt" && fail "capture printed a raw escape sequence"
ID=$("$SLIDEOPS" --json profiles | json 'd["profiles"][0]["id"]')

# Text: the name shown as text, never acted on.
"$SLIDEOPS" show "$ID" --top 50 >"$WORK/show.txt" || fail "show failed"
grep -q "$ESC" "$WORK/show.txt" && fail "show printed a raw escape sequence"
grep -qF '\x1b[31mred\x0ax' "$WORK/show.txt" || fail "show does not name the process as text: $(cat "$WORK/show.txt")"
# JSON: valid, the name whole.
"$SLIDEOPS" --json show "$ID" >"$WORK/show.json" || fail "show --json failed"
json '[p["comm"] for g in d["groups"] for p in g["processes"]]' <"$WORK/show.json" | has -F "\\x1b[31mred\\nx" ||
	fail "show --json lost the process name"

# Special files: written in place, never replaced.
"$SLIDEOPS" show "$ID" --flamegraph /dev/null >/dev/null || fail "flame graph to /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
mkfifo "$WORK/fifo"
cat "$WORK/fifo" >"$WORK/from-fifo" & reader=$!
"$SLIDEOPS" show "$ID" --export folded "$WORK/fifo" >/dev/null || fail "export to a FIFO"
wait $reader
[ -p "$WORK/fifo" ] || fail "the FIFO was replaced"
[ -s "$WORK/from-fifo" ] || fail "nothing came through the FIFO"
"$SLIDEOPS" show "$ID" --export pprof - >"$WORK/stdout.pb.gz" || fail "pprof to -"
[ -e ./- ] && fail "'--export pprof -' wrote a file named -"
gzip -t "$WORK/stdout.pb.gz" || fail "'--export pprof -' did not write a gzip'd pprof to stdout"
"$SLIDEOPS" show "$ID" --export folded /proc/self/fd/1 >"$WORK/fd1.folded" || fail "folded to /proc/self/fd/1"
[ -s "$WORK/fd1.folded" ] || fail "/proc/self/fd/1 got nothing"
# Folded: one line per distinct stack.
lines=$(wc -l <"$WORK/fd1.folded")
distinct=$(sed 's/ [0-9]*$//' "$WORK/fd1.folded" | sort -u | wc -l)
[ "$lines" = "$distinct" ] || fail "folded has $lines lines for $distinct distinct stacks"

# pprof: names and lines once the unstripped build is uploaded.
"$SLIDEOPS" symbols upload "$WORK/hot" >"$WORK/up.txt" || fail "upload: $(cat "$WORK/up.txt")"
grep -q "source lines" "$WORK/up.txt" || fail "the upload kept no lines: $(cat "$WORK/up.txt")"
"$SLIDEOPS" show "$ID" --export pprof "$WORK/cpu.pb.gz" >/dev/null || fail "pprof export"
(cd "$WORK" && go tool pprof -top cpu.pb.gz) >"$WORK/top.txt" 2>&1 || fail "pprof -top: $(cat "$WORK/top.txt")"
grep -q "hot_loop" "$WORK/top.txt" || fail "pprof -top does not name hot_loop: $(head -20 "$WORK/top.txt")"
(cd "$WORK" && go tool pprof -top -lines cpu.pb.gz) >"$WORK/lines.txt" 2>&1 || fail "pprof -lines"
grep -qE "hot_loop .*hot\.c:[0-9]+" "$WORK/lines.txt" || fail "pprof -lines has no line: $(head -20 "$WORK/lines.txt")"
(cd "$WORK" && go tool pprof -list hot_loop cpu.pb.gz) >"$WORK/list.txt" 2>&1 || fail "pprof -list"
grep -q "sink += i \* 7" "$WORK/list.txt" || fail "pprof -list shows no source: $(head -20 "$WORK/list.txt")"
(cd "$WORK" && go tool pprof -raw cpu.pb.gz) >"$WORK/raw.txt" 2>&1 || fail "pprof -raw"
sed -n '/^Mappings/,$p' "$WORK/raw.txt" | has "0x0/0x0/0x0" && fail "a mapping has no range"
sed -n '/^Mappings/{n;p;}' "$WORK/raw.txt" | has "kernel" && fail "the first mapping is the kernel"

# An upload's file name: an escape sequence, a bell and a byte that is not UTF-8.
BAD=$'app\e]0;owned\a\xff.debug'
cp "$WORK/hot" "$WORK/$BAD"
"$SLIDEOPS" symbols upload "$WORK/$BAD" >"$WORK/up2.txt" 2>&1 || fail "upload of a strange name"
grep -q "$ESC" "$WORK/up2.txt" && fail "upload printed a raw escape sequence"
"$SLIDEOPS" symbols list >"$WORK/list2.txt" || fail "symbols list"
grep -q "$ESC" "$WORK/list2.txt" && fail "symbols list printed a raw escape sequence"
grep -qF 'app\x1b]0;owned\x07\xff.debug' "$WORK/list2.txt" || fail "symbols list: $(cat "$WORK/list2.txt")"
"$SLIDEOPS" --json symbols list >"$WORK/list2.json" || fail "symbols list --json exited $?"
json '[u["file_name"] for u in d["uploads"]]' <"$WORK/list2.json" | has -F '\\xff.debug' ||
	fail "symbols list --json: $(cat "$WORK/list2.json")"

# A read-only workspace can be listed and shown.
mkdir "$WORK/ro"
mount --bind "$D" "$WORK/ro" && defer "umount -l '$WORK/ro'"
mount -o remount,bind,ro "$WORK/ro"
"$SLIDEOPS" --data "$WORK/ro" profiles >"$WORK/ro.txt" 2>&1 || fail "read-only: profiles: $(cat "$WORK/ro.txt")"
grep -q "$ID" "$WORK/ro.txt" || fail "read-only: $ID not listed"
"$SLIDEOPS" --data "$WORK/ro" show "$ID" >/dev/null 2>"$WORK/ro.err" || fail "read-only: show: $(cat "$WORK/ro.err")"
"$SLIDEOPS" --data "$WORK/ro" symbols list >/dev/null || fail "read-only: symbols list"

# A full filesystem: reads still work.
mkdir "$WORK/full"
mount -t tmpfs -o size=4m slideops-full "$WORK/full" && defer "umount -l '$WORK/full'"
# The workspace without the installed profiler (its unwind tables: as many as the
# machine runs binaries, more than the 4 MB on a busy machine).
mkdir -m 700 "$WORK/full/ws"
find "$D" -mindepth 1 -maxdepth 1 ! -name profiler -exec cp -a {} "$WORK/full/ws/" \;
dd if=/dev/zero of="$WORK/full/filler" bs=64k 2>/dev/null || true
"$SLIDEOPS" --data "$WORK/full/ws" profiles >"$WORK/full.txt" 2>&1 || fail "full: profiles: $(cat "$WORK/full.txt")"
grep -q "$ID" "$WORK/full.txt" || fail "full: $ID not listed"
"$SLIDEOPS" --data "$WORK/full/ws" show "$ID" >/dev/null 2>"$WORK/full.err" || fail "full: show: $(cat "$WORK/full.err")"
set +e
"$SLIDEOPS" --data "$WORK/full/ws" services add late --unit late.service >/dev/null 2>"$WORK/full.err"
rc=$?
set -e
[ $rc = 1 ] || fail "full: services add exited $rc"

# Another user's directory with workspace.db planted as a link: refused, nothing written.
P=$WORK/planted
mkdir -p "$P/profiles"
echo precious >"$WORK/precious"
ln -s "$WORK/precious" "$P/workspace.db"
chown -R nobody "$P" 2>/dev/null || chown -R 65534 "$P"
set +e
"$SLIDEOPS" --data "$P" services add x --unit x.service >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ $rc = 1 ] || fail "another user's workspace: exit $rc"
grep -q "belongs to the user" "$WORK/err" || fail "another user's workspace: $(cat "$WORK/err")"
[ "$(cat "$WORK/precious")" = precious ] || fail "slideops wrote through a planted link"

# An emptied index beside profiles: refused with what to do, never recreated.
E=$WORK/emptied
cp -a "$D" "$E"
: >"$E/workspace.db"
for cmd in "profiles" "services add y --unit y.service"; do
	set +e
	"$SLIDEOPS" --data "$E" $cmd >/dev/null 2>"$WORK/err"
	rc=$?
	set -e
	[ $rc = 1 ] || fail "emptied index: $cmd exited $rc"
	grep -q "index (workspace.db) is missing, empty or damaged" "$WORK/err" ||
		fail "emptied index: $cmd said $(cat "$WORK/err")"
done
[ ! -s "$E/workspace.db" ] || fail "the emptied index was recreated"
[ -f "$E/profiles/$ID.pb.gz" ] || fail "the emptied index cost a profile"
set +e
"$SLIDEOPS" --json --data "$E" profiles >"$WORK/err.json" 2>/dev/null
set -e
json 'd["error"]' <"$WORK/err.json" | has "index" || fail "--json error: $(cat "$WORK/err.json")"

# Deleting one profile: its entry and its file.
"$SLIDEOPS" profiles delete "$ID" >/dev/null || fail "profiles delete"
"$SLIDEOPS" profiles | has "$ID" && fail "$ID still listed after delete"
[ ! -e "$D/profiles/$ID.pb.gz" ] || fail "$ID's file is still there"
echo pass
