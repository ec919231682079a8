#!/usr/bin/env bash
# Why threads wait (wall's waiting_by_reason), on real workloads in real cgroups:
#   crowd    three busy threads a CPU, never blocking: their waiting is for a CPU
#            (runqueue), and the answer, when it leads, says so ("of it for a CPU")
#   nappers  4 threads sleeping 20 ms in nanosleep between 1 ms of work: sleep
#   mutexes  4 threads taking one mutex in turn, each holding it 2 ms: lock (futex)
# Each group's waiting is mostly its reason, the reasons add up to the waiting, and the
# profile keeps the reason per sample (the wait_reason label of its pprof).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.wall' >/dev/null ||
	skip "this server cannot answer wall: $("$SLIDEOPS" check 2>&1 | grep wall)"

workload spin_nap_and_ledger waits

capture() {
	"$SLIDEOPS" capture wall -d 3 --json > "$WORK/$1.json" 2> "$WORK/$1.err" ||
		fail "capture wall failed: $(cat "$WORK/$1.err")"
}
group() {
	jq -c --arg l "Unit slideops-test-$1.service" '.groups[] | select(.label == $l)' "$WORK/$2.json"
}
# mostly GROUP DOC REASON: REASON is the largest part of GROUP's waiting, over half of it.
mostly() {
	local g
	g=$(group "$1" "$2")
	[ -n "$g" ] || fail "no group for $1: $(jq -c '[.groups[] | .label]' "$WORK/$2.json")"
	jq -e --arg r "$3" '.waiting_by_reason as $w | ($w | keys | sort) ==
		["io", "lock", "other", "runqueue", "sleep"] and
		($w | add) <= .waiting_ns and ($w | add) >= 0.95 * .waiting_ns and
		$w[$r] > 0.5 * .waiting_ns and ([$w[]] | max) == $w[$r]' <<<"$g" >/dev/null ||
		fail "the $1 threads should wait mostly $3: $g"
}

# A crowd: three spinning threads a CPU.
cpus=$(getconf _NPROCESSORS_ONLN)
cg=$(make_cgroup system.slice/slideops-test-crowd.service)
crowd=$(start_in_cgroup "$cg" "$WORK/waits" crowd $((3 * cpus)))
sleep 0.5
capture crowd
kill -9 "$crowd"
mostly crowd crowd runqueue
jq -e '.waiting_by_reason | (keys | length) == 5 and .runqueue > 0' "$WORK/crowd.json" \
	>/dev/null ||
	fail "the profile's waiting_by_reason: $(jq -c .waiting_by_reason "$WORK/crowd.json")"
answer=$(jq -r .answer "$WORK/crowd.json")
echo "crowd: $answer"
if [[ $answer == "Over "*" seconds, threads of Unit slideops-test-crowd.service "* ]]; then
	[[ $answer =~ waiting,\ [0-9.]+\ (s|ms)\ of\ it\ for\ a\ CPU ]] ||
		fail "the answer does not say the crowd waited for a CPU: $answer"
fi

# Sleepers and a contended mutex, side by side (neither keeps a CPU busy).
cg=$(make_cgroup system.slice/slideops-test-nappers.service)
start_in_cgroup "$cg" "$WORK/waits" nappers 4 >/dev/null
cg=$(make_cgroup system.slice/slideops-test-mutexes.service)
start_in_cgroup "$cg" "$WORK/waits" mutexes 4 >/dev/null
sleep 0.5
capture quiet
mostly nappers quiet sleep
mostly mutexes quiet lock
echo "quiet: $(jq -r .answer "$WORK/quiet.json")"

# The reason per sample, in the profile itself.
id=$(jq -r .id "$WORK/quiet.json")
"$SLIDEOPS" show "$id" --export pprof "$WORK/quiet.pb.gz" >/dev/null || fail "pprof export failed"
gzip -dc "$WORK/quiet.pb.gz" > "$WORK/quiet.pb" || fail "the export is not gzip'd pprof"
for r in wait_reason sleep lock; do
	grep -aq "$r" "$WORK/quiet.pb" || fail "the pprof has no $r (a wait_reason label)"
done
echo "ok"
