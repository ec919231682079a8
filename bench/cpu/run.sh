#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What profiling the CPU costs, side by side with the tools people use today, in one run:
# every CPU busy with a CPU-bound workload that counts the work units it completes, for
# SECONDS, with
#
#   none       no profiler
#   slideops   slideops capture cpu           (99 Hz, kernel + user stacks, every CPU)
#   perf       perf record -a -g -F 99
#   bpftrace   bpftrace -e 'profile:hz:99 { @[kstack, ustack] = count(); }'
#
# interleaved, ROUNDS rounds (the order rotates each round). Reports, per profiler: the
# work lost against no profiler (ratio of units done), the profiler's own CPU time
# (user + system, the whole command: load, sampling, writing out) and peak RSS, and the
# BPF time per sample (kernel.bpf_stats_enabled, on only while this runs). Then the
# ratios to perf. Targets (issue 2): <= 0.5% work lost; CPU and RSS under half of perf's.
#
#   sudo bench/cpu/run.sh                        3 rounds of 30 s (make bench-deps first)
#   ROUNDS=2 SECONDS_RUN=10 sudo bench/cpu/run.sh   a shorter run
#   BASELINE=/path/to/older/slideops sudo bench/cpu/run.sh
#                                     also an earlier build ("baseline"), to see what a
#                                     change costs against the same peers in the same run
#
# Not a test: the figures move with whatever else the machine runs. Run it on a quiet one.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-30}
NCPUS=$(getconf _NPROCESSORS_ONLN)
WORKERS=${WORKERS:-$NCPUS}
HZ=99

[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
BASELINE=${BASELINE:-}
modes=(none slideops perf bpftrace)
[ -n "$BASELINE" ] && modes+=(baseline)
for tool in gcc perf bpftrace bpftool jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }

source "$top/bench/lib.sh"
bench_init cpu

# The workload: WORKERS threads, each doing fixed units of integer work; prints how many
# units all of them completed in SECONDS. Frame pointers, so every profiler gets stacks.
cat > "$dir/work.c" <<'C'
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_bool stop;
static atomic_uint_fast64_t units;

__attribute__((noinline)) static uint64_t work_unit(uint64_t x)
{
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg + 88172645463325252ULL, n = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		x = work_unit(x);
		n++;
	}
	atomic_fetch_add(&units, n + (x == 42));
	return NULL;
}

int main(int argc, char **argv)
{
	int workers = atoi(argv[1]);
	double seconds = atof(argv[2]);
	pthread_t *t = calloc(workers, sizeof(*t));

	(void)argc;
	for (int i = 0; i < workers; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	usleep((useconds_t)(seconds * 1e6));
	atomic_store(&stop, 1);
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	printf("%llu\n", (unsigned long long)atomic_load(&units));
	return 0;
}
C
gcc -O2 -fno-omit-frame-pointer -pthread -o "$dir/work" "$dir/work.c"

# run MODE ROUND: the workload under MODE; appends "round mode units cpu_s rss_kb bpf_ns
# bpf_runs" to the results.
run() {
	local mode=$1 round=$2 units
	rm -f "$dir/perf.data"
	case $mode in
	slideops) bench_start links "$SLIDEOPS" capture cpu -d 86400 -F "$HZ" ;;
	baseline) bench_start links "$BASELINE" capture cpu -d 86400 -F "$HZ" ;;
	perf) bench_start perf perf record -a -g -F "$HZ" -o "$dir/perf.data" ;;
	bpftrace) bench_start says:Attaching bpftrace \
		-e "profile:hz:$HZ { @[kstack, ustack] = count(); }" ;;
	esac
	units=$("$dir/work" "$WORKERS" "$SECONDS_RUN")
	bench_stop
	echo "$round $mode $units $bench_cpu $bench_rss $bench_bpf" >> "$dir/results"
	printf '  %-9s %12s units' "$mode" "$units"
	[ "$mode" = none ] || printf '   cpu %6.2f s   rss %7s kB' "$bench_cpu" "$bench_rss"
	echo
}

echo "cpu profiling cost: $WORKERS workers, $SECONDS_RUN s a run, $ROUNDS rounds, $HZ Hz"
bench_rounds run "${modes[@]}"

echo
# Work lost is taken within each round (against that round's run without a profiler, so
# a neighbour's load that comes and goes weighs less), then the median over the rounds.
awk -v hz="$HZ" '
	function median(m,    i, j, k, n, t, v) {
		n = 0
		for (k in loss) { split(k, p, SUBSEP); if (p[2] == m) v[++n] = loss[k] }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{ u[$1, $2] = $3; n[$2]++; units[$2] += $3; cpu[$2] += $4; if ($5 > rss[$2]) rss[$2] = $5
	  bpfns[$2] += $6; bpfruns[$2] += $7; rounds[$1] = 1 }
	END {
		for (k in u) { split(k, p, SUBSEP); if (p[2] != "none" && u[p[1], "none"]) loss[p[1], p[2]] = 1 - u[k] / u[p[1], "none"] }
		printf "%-9s %14s %17s %12s %12s %14s\n", "profiler", "units/run", "work lost (med)", "cpu s/run", "peak rss kB", "bpf ns/sample"
		split("none slideops perf bpftrace baseline", order, " ")
		for (k = 1; k <= 5; k++) {
			m = order[k]
			if (!n[m]) continue
			L[m] = m == "none" ? 0 : median(m)
			per = bpfruns[m] ? sprintf("%.0f", bpfns[m] / bpfruns[m]) : "-"
			printf "%-9s %14.0f %16.2f%% %12.3f %12d %14s\n", m, units[m] / n[m], 100 * L[m], cpu[m] / n[m], rss[m], per
			C[m] = cpu[m] / n[m]; R[m] = rss[m]
		}
		printf "\nagainst perf record -a -g -F %d:\n", hz
		for (k = 2; k <= 5; k++) {
			m = order[k]
			if (m == "perf" || !n[m]) continue
			printf "  %-9s cpu %.2fx   peak rss %.2fx   work lost %.2f%% (perf %.2f%%)\n", m,
				C["perf"] ? C[m] / C["perf"] : 0, R["perf"] ? R[m] / R["perf"] : 0,
				100 * L[m], 100 * L["perf"]
		}
	}' "$dir/results"
