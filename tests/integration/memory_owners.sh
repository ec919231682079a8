#!/usr/bin/env bash
# `slideops capture memory` on the real kernel: each owner's growth from the capture's
# start to its end, read from /proc at both ends. C programs with known function names run
# in real cgroups named as systemd units name theirs:
#   leaker   leaks 48 kB at a time through 50 different functions (leak_00 .. leak_49),
#            about 24 MB a second: no one stack holds most of it
#   filemap  reads a file through a mapping, 1 MB every 100 ms: file-backed growth only
#   exiter   holds 32 MB and is killed while the capture runs: it shrank to 0
#   starter  starts while the capture runs and touches 32 MB: it grew from 0
# The answer must lead with the leaker's unit and its growth (however many its stacks),
# the file's growth must be told apart, and the processes that exited and started must
# count as such.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.memory' >/dev/null ||
	skip "this server cannot answer memory: $("$SLIDEOPS" check 2>&1 | grep memory)"

SECONDS_CAPTURE=6
MB=1048576

workload leak_map_and_hold owners
for n in leaker filemap exiter starter; do cp "$WORK/owners" "$WORK/$n"; done
head -c $((192 * MB)) /dev/urandom > "$WORK/data"

cg_leaker=$(make_cgroup system.slice/slideops-test-leaker.service)
cg_filemap=$(make_cgroup system.slice/slideops-test-filemap.service)
cg_exiter=$(make_cgroup system.slice/slideops-test-exiter.service)
cg_starter=$(make_cgroup system.slice/slideops-test-starter.service)
exiter=$(start_in_cgroup "$cg_exiter" "$WORK/exiter" "$WORK/exiter.ready")
start_in_cgroup "$cg_filemap" "$WORK/filemap" "$WORK/data" "$WORK/mapped" >/dev/null
start_in_cgroup "$cg_leaker" "$WORK/leaker" "$WORK/leaked" >/dev/null
for _ in $(seq 100); do
	[ -e "$WORK/exiter.ready" ] && [ -s "$WORK/leaked" ] && [ -s "$WORK/mapped" ] && break
	sleep 0.1
done
[ -e "$WORK/exiter.ready" ] || fail "the exiter did not touch its memory"

leaked_before=$(tail -1 "$WORK/leaked")
mapped_before=$(tail -1 "$WORK/mapped")
"$SLIDEOPS" capture memory -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" \
	2> "$WORK/capture.err" &
capture=$!
# Sampling starts once its three links (exec, exit, rss_stat) are held; the start's
# resident memory is read just after. Then one process exits and another starts.
attached=
for _ in $(seq 600); do
	[ "$(ls -l /proc/"$capture"/fd 2>/dev/null | grep -c bpf_link)" -ge 3 ] && attached=1 && break
	kill -0 "$capture" 2>/dev/null || break
	sleep 0.05
done
[ -n "$attached" ] || fail "the capture did not start: $(cat "$WORK/capture.err")"
sleep 1.5
kill -9 "$exiter"
start_in_cgroup "$cg_starter" "$WORK/starter" "$WORK/starter.ready" >/dev/null
wait "$capture" || fail "capture memory failed: $(cat "$WORK/capture.err")"
leaked_after=$(tail -1 "$WORK/leaked")
mapped_after=$(tail -1 "$WORK/mapped")
[ -e "$WORK/starter.ready" ] || fail "the starter did not touch its memory while the capture ran"
cg_kill "$cg_leaker"
doc="$WORK/capture.json"
group() { jq -c --arg l "Unit slideops-test-$1.service" '.groups[] | select(.label == $l)' "$doc"; }
groups() { jq -c '[.groups[] | {label, rss_grown_bytes, file_grown_bytes}]' "$doc"; }

# The leaker: its growth is what it leaked while the capture ran, whatever its stacks.
# No more than it leaked while the command ran (longer than sampling) and a counter's
# slack; at least half of its 24 MB a second over the sampled seconds.
l=$(group leaker)
[ -n "$l" ] || fail "no group for the leaking unit: $(groups)"
jq -e 'has("rss_grown_bytes") and has("file_grown_bytes") and has("rss_start_bytes")' \
	<<<"$l" >/dev/null || fail "the leaker's group has no growth from start to end: $l"
most=$((leaked_after - leaked_before + 8 * MB))
jq -e --argjson most "$most" --argjson s "$(jq .seconds "$doc")" \
	'.rss_grown_bytes <= $most and .rss_grown_bytes >= 0.5 * 50 * 49152 * 10 * $s' \
	<<<"$l" >/dev/null ||
	fail "the leaker leaked $((leaked_after - leaked_before)) bytes while the command ran; its group grew by $(jq .rss_grown_bytes <<<"$l")"
jq -e '(.file_grown_bytes | fabs) < 8388608' <<<"$l" >/dev/null ||
	fail "the leaker's file-backed growth is not apart: $l"
# Many stacks: no one of them is most of it.
nleaks=$(jq '[.functions[] | select(.name | test("^leak_[0-9]{2}$"))] | length' "$doc")
[ "$nleaks" -ge 40 ] || fail "the leak's 50 functions are not seen apart: $nleaks"

# The file: its growth file-backed, apart, close to what was read meanwhile.
f=$(group filemap)
[ -n "$f" ] || fail "no group for the file-mapping unit: $(groups)"
most=$((mapped_after - mapped_before + 8 * MB))
jq -e --argjson most "$most" --argjson s "$(jq .seconds "$doc")" \
	'.file_grown_bytes <= $most and .file_grown_bytes >= 0.3 * 10485760 * $s and
	 (.rss_grown_bytes | fabs) < 8388608' <<<"$f" >/dev/null ||
	fail "the file mapper read $((mapped_after - mapped_before)) bytes while the command ran: $f"

# The process that exited shrank to 0; the one that started grew from 0.
e=$(group exiter)
[ -n "$e" ] || fail "no group for the unit whose process exited: $(groups)"
jq -e '.processes_exited == 1 and .processes_started == 0 and
       .rss_start_bytes >= 33554432 and .rss_grown_bytes == -.rss_start_bytes' \
	<<<"$e" >/dev/null || fail "the process that exited did not shrink to 0: $e"
st=$(group starter)
[ -n "$st" ] || fail "no group for the unit whose process started: $(groups)"
jq -e '.processes_started == 1 and .processes_exited == 0 and .rss_start_bytes == 0 and
       .rss_grown_bytes >= 33554432' <<<"$st" >/dev/null ||
	fail "the process that started did not grow from 0: $st"

# The answer leads with the owner that grew the most: on a quiet machine the leaker (on a
# shared one, another owner may have grown more), with its growth and where it allocated.
answer=$(jq -r .answer "$doc")
re='^Over ([0-9]+) seconds, (.+) grew by ([0-9.]+) ([kMG]?B) \(RSS\)(, most of it allocated in ([^ ]+))?\.( Next was .+)?$'
[[ $answer =~ $re ]] || fail "the answer is not in architecture.md's form: $answer"
most_grown=$(jq -r '[.groups[] | select(.rss_grown_bytes > 0)] | max_by(.rss_grown_bytes) | .label' "$doc")
[ "${BASH_REMATCH[2]}" = "$most_grown" ] ||
	fail "the answer does not name the owner that grew the most ($most_grown): $answer"
if [ "${BASH_REMATCH[2]}" = "Unit slideops-test-leaker.service" ]; then
	[ "${BASH_REMATCH[4]}" = MB ] &&
		jq -e --argjson mb "${BASH_REMATCH[3]}" '(.rss_grown_bytes / 1048576 - $mb | fabs) <= 1' \
			<<<"$l" >/dev/null || fail "the answer's growth is not the leaker's ($l): $answer"
	[[ ${BASH_REMATCH[6]} =~ ^leak_[0-9]{2}$ ]] || fail "most of it allocated in: $answer"
else
	echo "note: on this machine $most_grown grew more than the leaker: $answer"
fi

# The text report says each owner's growth; a stored profile keeps it.
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" > "$WORK/show.txt" || fail "show failed"
grep -A3 'Unit slideops-test-leaker.service' "$WORK/show.txt" | has 'resident +[0-9]' ||
	fail "the text report does not say the leaker's growth: $(cat "$WORK/show.txt")"
[ "$("$SLIDEOPS" show "$id" --json | jq -c "$(printf '.groups[] | select(.label == "%s")' \
	'Unit slideops-test-leaker.service')")" = "$l" ] || fail "the stored profile's group differs"
"$SLIDEOPS" show "$id" --export pprof "$WORK/mem.pb.gz" >/dev/null || fail "pprof export failed"
echo "ok"
