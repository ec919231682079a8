#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What profiling costs during a storm of short-lived processes, side by side with perf on
# the same storm, in one run: tests/tools/exec_storm (RATE execs a second asked for, 2,000
# by default, of a small static binary that works 0.2 ms and lives ~3 ms; the machine
# gives what it can) for SECONDS_RUN, with
#
#   none       no profiler
#   slideops   slideops capture cpu           (99 Hz, kernel + user stacks, every CPU)
#   perf       perf record -a -g -F 99        (which also records every process's comm,
#                                              mmap, fork and exit, and reads build ids
#                                              when it ends)
#
# and each profiler again for as long without the storm (calm), interleaved, ROUNDS rounds
# (the order rotates each round). Reports per profiler: the execs the storm achieved (and
# what it lost against none), the profiler's own CPU time (user + system, the whole
# command: load, sampling, what it does once stopped: slideops reads binaries and saves
# the profile, perf reads build ids) in the storm and calm, and what the storm added to
# it, peak RSS, the BPF time per sample; then the ratios to perf.
#
#   sudo bench/storm/run.sh                            3 rounds of 20 s
#   ROUNDS=1 SECONDS_RUN=10 sudo bench/storm/run.sh    a shorter run
#
# Not a test: the figures move with whatever else the machine runs. Run it on a quiet one.
# Figures kept: bench/storm/results.tsv.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-20}
RATE=${RATE:-2000}
HZ=99

for tool in gcc perf bpftool jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }

source "$top/bench/lib.sh"
bench_init storm
gcc -O2 -static -pthread -o "$dir/exec_storm" "$top/tests/tools/exec_storm.c" 2>/dev/null

# run MODE ROUND: the storm under MODE; appends "round mode execs cpu_s rss_kb bpf_ns
# bpf_runs" to the results.
run() {
	local mode=$1 round=$2 execs
	rm -f "$dir/perf.data"
	case $mode in
	slideops*) bench_start links "$SLIDEOPS" capture cpu -d 86400 -F "$HZ" ;;
	perf*) bench_start perf perf record -a -g -F "$HZ" -o "$dir/perf.data" ;;
	esac
	case $mode in
	*-calm) sleep "$SECONDS_RUN"; execs=0 ;;
	*) execs=$("$dir/exec_storm" "$RATE" "$SECONDS_RUN" | awk '{ print $2 }') ;;
	esac
	bench_stop
	echo "$round $mode $execs $bench_cpu $bench_rss $bench_bpf" >> "$dir/results"
	printf '  %-13s %8s execs' "$mode" "$execs"
	[ "$mode" = none ] || printf '   cpu %6.2f s   rss %7s kB' "$bench_cpu" "$bench_rss"
	echo
}

echo "a storm of short-lived processes: $RATE execs/s asked for, $SECONDS_RUN s a run, $ROUNDS rounds, $HZ Hz"
bench_rounds run none slideops perf slideops-calm perf-calm

echo
awk -v secs="$SECONDS_RUN" -v hz="$HZ" '
	{ n[$2]++; execs[$2] += $3; cpu[$2] += $4; if ($5 > rss[$2]) rss[$2] = $5
	  bpfns[$2] += $6; bpfruns[$2] += $7 }
	END {
		for (m in n) { C[m] = cpu[m] / n[m]; R[m] = rss[m] }
		printf "%-9s %10s %10s %14s %14s %13s %12s %21s\n", "profiler", "execs/s", "vs none",
			"cpu s, storm", "cpu s, calm", "storm added", "peak rss kB", "bpf ns/sample (calm)"
		split("none slideops perf", order, " ")
		for (k = 1; k <= 3; k++) {
			m = order[k]
			if (!n[m]) continue
			rate[m] = execs[m] / n[m] / secs
			per = bpfruns[m] ? sprintf("%.0f (%.0f)", bpfns[m] / bpfruns[m],
				bpfruns[m "-calm"] ? bpfns[m "-calm"] / bpfruns[m "-calm"] : 0) : "-"
			printf "%-9s %10.0f %9.2f%% %14.3f %14.3f %13.3f %12d %21s\n", m, rate[m],
				rate["none"] ? 100 * (rate[m] / rate["none"] - 1) : 0, C[m], C[m "-calm"],
				C[m] - C[m "-calm"], rss[m], per
		}
		if (C["perf"])
			printf "\nagainst perf record -a -g -F %d on the same storm:\n  slideops cpu %.2fx (calm %.2fx; what the storm added %.2fx)   peak rss %.2fx\n",
				hz, C["slideops"] / C["perf"], C["perf-calm"] ? C["slideops-calm"] / C["perf-calm"] : 0,
				(C["perf"] > C["perf-calm"] ? (C["slideops"] - C["slideops-calm"]) / (C["perf"] - C["perf-calm"]) : 0),
				R["perf"] ? R["slideops"] / R["perf"] : 0
	}' "$dir/results"
