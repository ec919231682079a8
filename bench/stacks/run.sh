#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What complete stacks cost, in one run, on the same workloads: every CPU busy with
# processes whose code has no frame pointers (a chain of three functions, -O2
# -fomit-frame-pointer) and spends part of its time in libc (memcpy), counting the work
# units they complete in SECONDS, under
#
#   none        no profiler
#   fp          slideops capture cpu with SLIDEOPS_NO_UNWIND=1: the kernel's frame-pointer
#               walk only (what the tables replace; these stacks are one frame deep)
#   tables      slideops capture cpu: stacks walked by unwind tables
#   perf-dwarf  perf record -a --call-graph dwarf -F 99 (copies 8 kB of stack per sample
#               and unwinds afterwards: its CPU time includes `perf report`, which does)
#
# interleaved, ROUNDS rounds (the order rotates each round). Reports the BPF time per
# sample of fp and tables (kernel.bpf_stats_enabled, on only while this runs) and their
# ratio (target: tables <= 2x fp), the work lost against no profiler (target: <= 1%), and
# the profiler's own CPU time against perf's.
#
#   sudo bench/stacks/run.sh                            3 rounds of 20 s
#   ROUNDS=2 SECONDS_RUN=10 sudo bench/stacks/run.sh
#
# Not a test: the figures move with whatever else the machine runs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-20}
NCPUS=$(getconf _NPROCESSORS_ONLN)
WORKERS=${WORKERS:-$NCPUS}
HZ=99
modes=(none fp tables perf-dwarf)

[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
for tool in gcc perf bpftool jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }

source "$top/bench/lib.sh"
bench_init stacks

# WORKERS threads, each doing units of work through a chain without frame pointers, a
# third of it in memcpy; prints the units all of them completed in SECONDS.
cat > "$dir/work.c" <<'C'
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEEP __attribute__((noipa))
static atomic_bool stop;
static atomic_uint_fast64_t units;

KEEP static uint64_t unit_inner(uint64_t x, char *a, char *b)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	for (int i = 0; i < 4; i++)
		memcpy(a, b, 16384);
	return x + a[x & 1023];
}
KEEP static uint64_t unit_middle(uint64_t x, char *a, char *b) { volatile long pad[4]; pad[0] = (long)x; return unit_inner(x + pad[0], a, b) ^ 3; }
KEEP static uint64_t unit_outer(uint64_t x, char *a, char *b) { return unit_middle(x, a, b) + 1; }

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg, n = 0;
	char *a = malloc(16384), *b = calloc(1, 16384);

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		x = unit_outer(x, a, b);
		n++;
	}
	atomic_fetch_add(&units, n + (x == 42));
	return NULL;
}

int main(int argc, char **argv)
{
	int workers = atoi(argv[1]);
	pthread_t *t = calloc(workers, sizeof(*t));

	(void)argc;
	for (int i = 0; i < workers; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	usleep((useconds_t)(atof(argv[2]) * 1e6));
	atomic_store(&stop, 1);
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	printf("%llu\n", (unsigned long long)atomic_load(&units));
	return 0;
}
C
gcc -O2 -fomit-frame-pointer -pthread -o "$dir/work" "$dir/work.c"
# The tables of libc and the workload are cached, as on a server profiled before.
"$SLIDEOPS" capture cpu -d 1 >/dev/null 2>&1 || true

run() {
	local mode=$1 round=$2 units
	rm -f "$dir/perf.data"
	case $mode in
	fp) bench_start links env SLIDEOPS_NO_UNWIND=1 "$SLIDEOPS" capture cpu -d 86400 -F "$HZ" ;;
	tables) bench_start links "$SLIDEOPS" capture cpu -d 86400 -F "$HZ" ;;
	perf-dwarf) bench_start perf perf record -a --call-graph dwarf -F "$HZ" -o "$dir/perf.data" ;;
	esac
	units=$("$dir/work" "$WORKERS" "$SECONDS_RUN")
	bench_stop
	if [ "$mode" = perf-dwarf ]; then
		# perf unwinds afterwards: the stacks it copied are only stacks once reported.
		/usr/bin/time -f "%U %S" -o "$dir/report.time" perf report -i "$dir/perf.data" \
			--stdio >/dev/null 2>&1 || true
		bench_cpu=$(awk -v c="$bench_cpu" '{ print c + $1 + $2 }' "$dir/report.time")
	fi
	echo "$round $mode $units $bench_cpu $bench_bpf" >> "$dir/results"
	printf '  %-10s %12s units   cpu %6.2f s   bpf %s\n' "$mode" "$units" "$bench_cpu" "$bench_bpf"
}

echo "stack cost: $WORKERS workers without frame pointers, $SECONDS_RUN s a run, $ROUNDS rounds, $HZ Hz"
bench_rounds run "${modes[@]}"

echo
awk '
	function median(m,    i, j, k, n, t, v) {
		n = 0
		for (k in loss) { split(k, p, SUBSEP); if (p[2] == m) v[++n] = loss[k] }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{ u[$1, $2] = $3; n[$2]++; cpu[$2] += $4; ns[$2] += $5; runs[$2] += $6 }
	END {
		for (k in u) { split(k, p, SUBSEP); if (p[2] != "none" && u[p[1], "none"]) loss[p[1], p[2]] = 1 - u[k] / u[p[1], "none"] }
		printf "%-10s %17s %12s %14s\n", "mode", "work lost (med)", "cpu s/run", "bpf ns/sample"
		split("none fp tables perf-dwarf", order, " ")
		for (k = 1; k <= 4; k++) {
			m = order[k]
			if (!n[m]) continue
			per[m] = runs[m] ? ns[m] / runs[m] : 0
			printf "%-10s %16.2f%% %12.3f %14s\n", m, m == "none" ? 0 : 100 * median(m), cpu[m] / n[m],
				runs[m] ? sprintf("%.0f", per[m]) : "-"
		}
		if (per["fp"] > 0)
			printf "\ntables / frame pointers, BPF time per sample: %.2fx (target <= 2x)\n", per["tables"] / per["fp"]
		if (cpu["perf-dwarf"] > 0)
			printf "slideops (tables) CPU time / perf --call-graph dwarf: %.2fx\n", cpu["tables"] / cpu["perf-dwarf"]
	}' "$dir/results"
