#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How long a capture takes to end on a machine whose every CPU is taken, side by side
# with perf in one run: tests/workloads/crunch_nap_and_block as 64 threads each working
# 1 ms in 21 (three CPUs' worth of demand on two here) and a pair of processes bouncing a
# byte over pipes, then, interleaved, ROUNDS rounds of
#
#   slideops        slideops capture wall -d SECONDS_RUN (raises its thread to nice -10:
#                   docs/resilience.md, "A saturated machine")
#   slideops-nice0  the same without CAP_SYS_NICE (setpriv): it stays at nice 0
#   perf            perf record -a -g -F 99 -- sleep SECONDS_RUN, then its build ids
#
# each from its start to its exit (its profile kept), in seconds, and the samples each
# lost. One capture first into the benchmark's workspace, not counted (a first capture
# also keeps every binary's names).
#
#   sudo bench/saturated/run.sh                       3 rounds of 3 s
#   ROUNDS=5 SECONDS_RUN=10 sudo bench/saturated/run.sh
#
# Not a test: the figures move with whatever else the machine runs.
# Figures kept: bench/saturated/results.tsv.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-3}
workload=$top/build/tests/workloads/crunch_nap_and_block

for tool in perf jq setpriv; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] && [ -x "$workload" ] ||
	{ echo "bench: $SLIDEOPS or $workload is not built (make all build/tests/workloads/crunch_nap_and_block)" >&2; exit 1; }

source "$top/bench/lib.sh"
bench_init saturated
cp "$workload" "$dir/sleeper"
cp "$workload" "$dir/pingpong"
"$dir/sleeper" 64 >/dev/null 2>&1 &
sleeper=$!
# pingpong forks its partner: both go with the process group.
setsid "$dir/pingpong" >/dev/null 2>&1 &
pingpong=$!
trap_before=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
trap "kill -9 $sleeper 2>/dev/null; kill -9 -- -$pingpong 2>/dev/null; $trap_before" EXIT
sleep 1
# This script at nice -15, so its clock reads when a command ends, not when it is next
# given a CPU; each command it starts is put back to nice 0 (nice -n 15).
renice -n -15 -p $$ >/dev/null
at0() { nice -n 15 "$@"; }

at0 "$SLIDEOPS" capture wall -d 1 --json >/dev/null 2>&1 # the workspace's first capture

# run MODE ROUND: appends "round mode seconds lost" to the results.
run() {
	local mode=$1 round=$2 start end lost=0
	start=$(date +%s.%N)
	case $mode in
	slideops) at0 "$SLIDEOPS" capture wall -d "$SECONDS_RUN" --json > "$dir/out.json" 2>/dev/null ;;
	slideops-nice0) at0 setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice \
		"$SLIDEOPS" capture wall -d "$SECONDS_RUN" --json > "$dir/out.json" 2>/dev/null ;;
	perf) at0 perf record -q -a -g -F 99 -o "$dir/perf.data" -- sleep "$SECONDS_RUN" \
		> "$dir/perf.out" 2>&1 ;;
	esac
	end=$(date +%s.%N)
	case $mode in
	slideops*) lost=$(jq .lost "$dir/out.json") ;;
	perf) lost=$(perf report -i "$dir/perf.data" --stats 2>/dev/null |
		awk '/LOST/ { s += $NF } END { print s + 0 }') ;;
	esac
	rm -f "$dir/perf.data"
	echo "$round $mode $(echo "$end - $start" | bc) $lost" >> "$dir/results"
	printf '  %-15s %6.2f s   lost %s\n' "$mode" "$(echo "$end - $start" | bc)" "$lost"
}

echo "every CPU taken (64 threads working 1 ms in 21, a ping-pong pair): $SECONDS_RUN s captures, $ROUNDS rounds"
bench_rounds run slideops slideops-nice0 perf

echo
awk -v secs="$SECONDS_RUN" '
	{ n[$2]++; t[$2] += $3; lost[$2] += $4 }
	END {
		printf "%-15s %12s %12s %10s\n", "profiler", "ended after", "over asked", "lost"
		split("slideops slideops-nice0 perf", order, " ")
		for (k = 1; k <= 3; k++) {
			m = order[k]; T[m] = t[m] / n[m]
			printf "%-15s %10.2f s %10.2f s %10d\n", m, T[m], T[m] - secs, lost[m]
		}
		printf "\nslideops raised against nice 0: %.2fx the time; against perf: %.2fx\n",
			T["slideops"] / T["slideops-nice0"], T["slideops"] / T["perf"]
	}' "$dir/results"
