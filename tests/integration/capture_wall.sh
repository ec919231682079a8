#!/usr/bin/env bash
# `slideops capture wall` on the real kernel. C programs with known function names run in
# real cgroups named as systemd units name theirs:
#   sleeper  64 threads (16 under emulation), each working 1 ms in crunch and sleeping
#            20 ms in nap (its own nanosleep call): a sleep-heavy loop, mostly waiting
#   blocker  one thread blocked in wait_for_request (its own read of a FIFO) from before
#            the capture to its middle, woken once, then blocked again past its end: its
#            time counts inside the window on both sides
#   idle     8 threads in a condition variable that nobody signals: they never run, so
#            they are kept as idle but do not rank
#   pingpong two processes bouncing a byte over pipes: 100k+ context switches a second
# The capture must account each group's running and waiting time, name nap and
# wait_for_request, keep the idle pool out of the answer, word the answer as architecture.md
# does, report lost events, and show, export and compare in nanoseconds.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer wall

SECONDS_CAPTURE=6
# Under emulation (the kernel matrix's guests) 1 ms of crunch takes tens: 64 sleepers
# wanted some 30 CPUs and this test took 486 s on 6.1. 16 still want more than
# two CPUs, and wait at least 3 times as long as they run, as the assertions ask.
NSLEEPERS=64
in_guest && NSLEEPERS=16

workload crunch_nap_and_block waiter
for n in sleeper blocker idle pingpong; do cp "$WORK/waiter" "$WORK/$n"; done
mkfifo "$WORK/requests"

cg_sleeper=$(make_cgroup system.slice/slideops-test-sleeper.service)
cg_blocker=$(make_cgroup system.slice/slideops-test-blocker.service)
cg_idle=$(make_cgroup system.slice/slideops-test-idle.service)
sleeper=$(start_in_cgroup "$cg_sleeper" "$WORK/sleeper" "$NSLEEPERS")
blocker=$(start_in_cgroup "$cg_blocker" "$WORK/blocker" "$WORK/requests")
idle=$(start_in_cgroup "$cg_idle" "$WORK/idle")
# The request must fall inside the window: with every CPU taken (the sleepers want more
# than two CPUs) this script, at nice 0, was seen to send it 7-11 s after the capture
# began, past its end. It runs ahead of the workloads it started, as the capture does.
renice -n -15 -p $$ >/dev/null

# Builtins only from here to the request (no fork, no exec: under emulation on a busy
# host each took seconds). threads PID: $nthreads, $waiter (a thread other than the
# first, in read(), or empty). vcs TID: $vcs, how often the thread blocked. links PID:
# $nlinks, the BPF links it holds.
threads() {
	local t nr
	nthreads=0 waiter=
	for t in /proc/"$1"/task/*; do
		[ -d "$t" ] || continue
		nthreads=$((nthreads + 1))
		[ "${t##*/}" != "$1" ] && read -r nr _ < "$t/syscall" 2>/dev/null && [ "$nr" = 0 ] &&
			waiter=${t##*/}
	done
	return 0
}
vcs() {
	local k v
	vcs=
	while read -r k v; do [ "$k" = voluntary_ctxt_switches: ] && vcs=$v; done \
		< /proc/"$blocker"/task/"$1"/status
	return 0
}
links() {
	local f k v
	nlinks=0
	for f in /proc/"$1"/fdinfo/*; do
		while read -r k v; do
			[ "$k" = link_type: ] && nlinks=$((nlinks + 1)) && break
		done < "$f"
	done 2>/dev/null
	return 0
}
pause() { read -r -t "$1" _ <> "$WORK/pause" || true; }
mkfifo "$WORK/pause"
ncpus=$(getconf _NPROCESSORS_ONLN)

# Every thread of the workloads is there, and the blocker's waits in its read(), before
# the capture begins (under emulation on a busy host, a second after it started the
# blocker had not yet made its thread). A bound on a hung start, not on a slow one.
for _ in $(seq 3000); do
	threads "$sleeper"; s_n=$nthreads
	threads "$idle"; i_n=$nthreads
	threads "$blocker"
	[ "$s_n" = $((NSLEEPERS + 1)) ] && [ "$i_n" = 9 ] && [ -n "$waiter" ] && break
	pause 0.1
done
[ -n "$waiter" ] && [ "$s_n" = $((NSLEEPERS + 1)) ] ||
	fail "the workloads did not start: $s_n sleeper threads, $i_n idle, blocker waiting: '$waiter'"

# capture SECONDS: a wall capture into $WORK/capture.json, the request sent in the middle
# of its sampling. Returns 1 when the blocker took the request after sampling had ended
# (the capture's links gone): the window then says nothing of a thread woken inside it.
capture() {
	vcs "$waiter"; local before=$vcs
	"$SLIDEOPS" capture wall -d "$1" --json > "$WORK/capture.json" 2> "$WORK/capture.err" &
	cap=$!
	defer "kill -9 $cap 2>/dev/null"
	# Sampling has begun once the capture holds its links: exec, exit, switch, a tick a CPU.
	for _ in $(seq 6000); do
		links "$cap"
		[ "$nlinks" -ge $((ncpus + 3)) ] && break
		pause 0.05
	done
	pause $(($1 / 2))
	# One request in the middle: the blocker runs once, then waits past the end.
	printf x > "$WORK/requests"
	for _ in $(seq 6000); do
		vcs "$waiter"
		[ "$vcs" != "$before" ] && break
		pause 0.01
	done
	# Still sampling once it blocked again: its wake and its next wait were both seen.
	links "$cap"
	wait "$cap" || fail "capture wall failed: $(cat "$WORK/capture.err")"
	[ "$nlinks" -ge $((ncpus + 3)) ]
}
# On a machine too slow for the request to land in the middle of 6 s (6.1 and 6.12 under
# TCG on a busy host: the blocker took it after sampling had ended, and had no group), the
# capture is taken again, its window twice as long.
for secs in $SECONDS_CAPTURE $((SECONDS_CAPTURE * 2)) $((SECONDS_CAPTURE * 4)); do
	capture "$secs" && break
	echo "the blocker took the request after a $secs s window's sampling had ended: once more, twice as long"
	secs=
done
[ -n "$secs" ] || fail "the blocker never took its request while a capture sampled (windows up to $((SECONDS_CAPTURE * 4)) s)"
doc="$WORK/capture.json"
group() { jq -c --arg l "Unit slideops-test-$1.service" '.groups[] | select(.label == $l)' "$2"; }
secs=$(jq .seconds "$doc")

jq -e '.question == "wall" and .unit == "nanoseconds" and (.lost | type) == "number"' "$doc" >/dev/null ||
	fail "question/unit/lost: $(jq -c '{question, unit, lost}' "$doc")"
s=$(group sleeper "$doc")
[ -n "$s" ] || fail "no group for the sleepers: $(jq -c '[.groups[] | {l: .label, v: .value}]' "$doc")"
# Each of its threads is running or waiting all the time: NSLEEPERS threads x the window.
jq -e --argjson n "$NSLEEPERS" --argjson s "$secs" '
	(.running_ns + .waiting_ns) >= 0.75 * $n * $s * 1e9 and
	(.running_ns + .waiting_ns) <= 1.25 * $n * $s * 1e9 and
	.waiting_ns > 3 * .running_ns and .value == .running_ns + .waiting_ns' <<<"$s" >/dev/null ||
	fail "$NSLEEPERS sleeping threads over $secs s: $s"

b=$(group blocker "$doc")
[ -n "$b" ] || fail "no group for the blocked thread: $(jq -c '[.groups[] | {l: .label, v: .value}]' "$doc"); lost $(jq -c '{lost, seconds, stack_quality}' "$doc")"
jq -e --argjson s "$secs" '.waiting_ns >= 0.8 * $s * 1e9 and .waiting_ns <= 1.3 * $s * 1e9' <<<"$b" \
	>/dev/null || fail "the thread blocked before and after its one request waited about $secs s: $b"
[ "$(jq -r .top_function <<<"$b")" = wait_for_request ] || fail "the blocker waits mostly elsewhere: $b"

i=$(group idle "$doc")
[ -z "$i" ] || jq -e '.value == 0' <<<"$i" >/dev/null ||
	fail "threads that never ran rank among the groups: $i"

answer=$(jq -r .answer "$doc")
re='^Over ([0-9]+) seconds, threads of (.+) spent ([0-9.]+ (s|ms|µs|min)) running and ([0-9.]+ (s|ms|µs|min)) waiting(, [0-9.]+ (s|ms|µs|min) of it (for a CPU|on I/O|on a lock|on other events))?(, most of the waiting in ([^ ]+))?\.( Next was .+)?$'
[[ $answer =~ $re ]] || fail "the answer is not in architecture.md's form: $answer"
# It names the sleepers, unless a group whose threads ran more leads (a shared machine's):
# idle threads waiting longer rank nowhere.
first=${BASH_REMATCH[2]}
if [ "$first" != "Unit slideops-test-sleeper.service" ]; then
	jq -e --arg l "$first" --argjson s "$s" '.groups[] | select(.label == $l) |
		.running_ns > $s.running_ns' "$doc" >/dev/null ||
		fail "a group that ran less than the sleepers leads the answer: $answer"
fi
if [ "${BASH_REMATCH[2]}" = "Unit slideops-test-sleeper.service" ]; then
	[ "${BASH_REMATCH[11]}" = nap ] || fail "the sleepers wait in nap: $answer"
fi
[[ $answer != *slideops-test-idle* ]] || fail "the idle pool is in the answer: $answer"

id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --json > "$WORK/show.json" || fail "show failed"
[ "$(jq -r .answer "$WORK/show.json")" = "$answer" ] || fail "show's answer differs"
"$SLIDEOPS" show "$id" --export folded "$WORK/wall.folded" >/dev/null || fail "folded export failed"
grep -q '^Unit slideops-test-sleeper.service;sleeper;.*sleeper;nap' "$WORK/wall.folded" ||
	fail "the folded export has no sleeper;nap stack"
"$SLIDEOPS" show "$id" --export pprof "$WORK/wall.pb.gz" >/dev/null || fail "pprof export failed"
"$SLIDEOPS" show "$id" --flamegraph "$WORK/wall.html" >/dev/null || fail "flamegraph failed"
grep -q wait_for_request "$WORK/wall.html" || fail "the flame graph has no wait_for_request"
"$SLIDEOPS" compare "$id" "$id" >/dev/null || fail "comparing two wall profiles failed"

# Under 100k+ context switches a second: it completes, reports its losses, and still
# finds the sleepers.
# Back to nice 0, so the capture below starts where an operator's does.
renice -n 0 -p $$ >/dev/null
cg_pingpong=$(make_cgroup system.slice/slideops-test-pingpong.service)
start_in_cgroup "$cg_pingpong" "$WORK/pingpong" >/dev/null
sleep 0.5
c0=$(awk '$1 == "ctxt" { print $2 }' /proc/stat); t0=$(date +%s.%N)
"$SLIDEOPS" capture wall -d 3 --json > "$WORK/busy.json" 2> "$WORK/busy.err" &
cap=$!
# On a machine whose CPUs are all taken the capture raises itself (PIPELINE_NICE), so it
# ends and keeps its profile without waiting behind 64 threads: its nice, seen running.
nice=
for _ in $(seq 200); do
	nice=$(awk '{ print $19 }' /proc/$cap/stat 2>/dev/null) || break
	[ "$nice" = -10 ] && break
	sleep 0.02
done
wait "$cap" || fail "capture wall under load failed: $(cat "$WORK/busy.err")"
[ "$nice" = -10 ] || fail "the capture on a busy machine ran at nice $nice, not raised to -10"
c1=$(awk '$1 == "ctxt" { print $2 }' /proc/stat); t1=$(date +%s.%N)
rate=$(echo "$c0 $c1 $t0 $t1" | awk '{ printf "%d", ($2 - $1) / ($4 - $3) }')
echo "context switches during the busy capture: $rate/s, lost: $(jq .lost "$WORK/busy.json")"
jq -e '(.lost | type) == "number"' "$WORK/busy.json" >/dev/null || fail "lost is not reported under load"
[ -n "$(group sleeper "$WORK/busy.json")" ] || fail "the sleepers are gone under load"
[ -n "$(group pingpong "$WORK/busy.json")" ] || fail "the ping-pong processes are not in the profile"
echo "ok"
