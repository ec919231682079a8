#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What answering "where time goes" costs under a context-switch storm, side by side with
# Debian's libbpf-tools offcputime in one run: `perf bench sched pipe` (two tasks
# bouncing a message over pipes: every op is two context switches) with
#
#   none       no profiler
#   slideops   slideops capture wall          (a timestamp per switch, stacks when needed)
#   offcputime offcputime                     (a stack per switch, summed in the kernel)
#
# interleaved, ROUNDS rounds (the order rotates each round). Reports per profiler: the
# ops/s lost against none, and the BPF time per context switch of its sched_switch
# program (kernel.bpf_stats_enabled, on only while this runs), with each of slideops'
# programs' cost per event. Then the ratios to offcputime. Targets (issue 11): <= 0.5x
# offcputime's BPF cost per switch; at most half the ops/s offcputime loses.
#
#   sudo bench/wall/run.sh                         3 rounds of 2,000,000 ops
#   ROUNDS=1 OPS=500000 sudo bench/wall/run.sh     a shorter run
#
# Not a test: the figures move with whatever else the machine runs. Run it on a quiet one.
# Figures kept: bench/wall/results.tsv (BPF ns per switch, slideops against offcputime).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/bench/lib.sh"
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-2000000}
NCPUS=$(getconf _NPROCESSORS_ONLN)

for tool in perf offcputime bpftool jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }

bench_init wall

# run MODE ROUND: appends "round mode ops_per_s switch_ns switch_runs" to the results, and
# each program's "mode name ns runs" to the per-program table.
run() {
	local mode=$1 round=$2 ops prog=""
	case $mode in
	slideops) prog=on_switch; bench_start prog:$prog "$SLIDEOPS" capture wall -d 86400 ;;
	offcputime) prog=sched_switch; bench_start prog:$prog offcputime 86400 ;;
	esac
	ops=$(perf bench sched pipe -l "$OPS" 2>/dev/null | awk '/ops\/sec/ { print $1 }')
	bench_stop
	ns=0 runs=0
	if [ -n "$prog" ]; then
		awk -v m="$mode" '{ print m, $1, $3, $4 }' "$dir/stats.txt" >> "$dir/programs.txt"
		read -r ns runs < <(awk -v p="$prog" '$1 == p { ns += $3; n += $4 } END { print ns + 0, n + 0 }' \
			"$dir/stats.txt")
	fi
	echo "$round $mode $ops $ns $runs" >> "$dir/results.txt"
	echo "round $round: $mode $ops ops/s" >&2
}

bench_rounds run none slideops offcputime

echo
echo "perf bench sched pipe, $OPS ops a round, $ROUNDS rounds, $NCPUS CPUs:"
awk '
	{ ops[$2] += $3; n[$2]++; ns[$2] += $4; runs[$2] += $5 }
	END {
		base = ops["none"] / n["none"]
		printf "  %-11s %12s %10s %18s\n", "profiler", "ops/s", "lost", "BPF ns per switch"
		for (m in ops) {
			o = ops[m] / n[m]
			lost[m] = (base - o) / base
			per[m] = runs[m] ? ns[m] / runs[m] : 0
			printf "  %-11s %12.0f %9.1f%% %18.0f\n", m, o, 100 * lost[m], per[m]
		}
		if (per["offcputime"] > 0)
			printf "\nslideops / offcputime: BPF cost per switch %.2fx (target <= 0.5x)", \
				per["slideops"] / per["offcputime"]
		if (lost["offcputime"] > 0)
			printf ", ops/s lost %.2fx (target <= 0.5x)", lost["slideops"] / lost["offcputime"]
		printf "\n"
	}' "$dir/results.txt"
echo
echo "Each program's BPF time per run (all rounds):"
awk '{ ns[$1 " " $2] += $3; n[$1 " " $2] += $4 }
	END { for (k in ns) if (n[k]) printf "  %-32s %10.0f ns  (%d runs)\n", k, ns[k] / n[k], n[k] }' \
	"$dir/programs.txt" | sort
