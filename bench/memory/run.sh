#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What answering "where memory grows" costs on an allocation-heavy workload: WORKERS
# processes mapping, touching and unmapping 8 MB over and over (every page a fault and a
# resident-set change), timed, with and without `slideops capture memory`, ROUNDS rounds
# in rotating order. bpfcc-tools' memleak, the peer the issue names, compiles its
# programs against kernel headers at run time: it is tried, and said so when it cannot
# run (this kernel ships no headers). Reports the workload's slowdown and each of
# slideops' programs' BPF time per event (kernel.bpf_stats_enabled), and how many
# rss_stat events became samples (the counter's batching is the sampling).
#
#   sudo bench/memory/run.sh                   3 rounds
#   ROUNDS=1 sudo bench/memory/run.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/bench/lib.sh"
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
WORKERS=${WORKERS:-$(getconf _NPROCESSORS_ONLN)}
ITERS=${ITERS:-400}
for tool in gcc bpftool jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
bench_init memory

cat > "$dir/alloc.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void churn(int iters)
{
	for (int i = 0; i < iters; i++) {
		char *p = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		for (int j = 0; j < (8 << 20); j += 4096)
			p[j] = 1;
		munmap(p, 8 << 20);
	}
}

int main(int argc, char **argv)
{
	int n = atoi(argv[1]), iters = atoi(argv[2]);
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		if (fork() == 0) {
			churn(iters);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
C
gcc -O2 -fno-omit-frame-pointer -o "$dir/alloc" "$dir/alloc.c"

memleak_note="memleak: not installed (bpfcc-tools)"
for m in memleak-bpfcc memleak; do
	command -v "$m" >/dev/null || continue
	if timeout 10 "$m" 1 1 >/dev/null 2>"$dir/memleak.err"; then
		memleak_note="memleak: runs here (not compared yet)"
	else
		memleak_note="memleak: cannot run here: $(tail -1 "$dir/memleak.err")"
	fi
	break
done

run() {
	local mode=$1 round=$2 secs
	[ "$mode" = none ] || bench_start prog:on_rss_stat "$SLIDEOPS" capture memory -d 86400
	secs=$("$dir/alloc" "$WORKERS" "$ITERS")
	bench_stop
	[ "$mode" = none ] || awk '{ print $1, $3, $4 }' "$dir/stats.txt" >> "$dir/programs.txt"
	echo "$mode $secs" >> "$dir/results.txt"
	echo "round $round: $mode $secs s" >&2
}

bench_rounds run none slideops

echo
echo "$WORKERS processes x $ITERS x (map, touch and unmap 8 MB), $ROUNDS rounds:"
awk '{ s[$1] += $2; n[$1]++ }
	END {
		base = s["none"] / n["none"]
		for (m in s) printf "  %-10s %8.3f s  %+6.1f%%\n", m, s[m] / n[m], 100 * (s[m] / n[m] - base) / base
	}' "$dir/results.txt"
echo "$memleak_note"
echo
echo "slideops' programs, BPF time per run (all rounds):"
awk '{ ns[$1] += $2; n[$1] += $3 } END { for (k in ns) if (n[k]) printf "  %-22s %8.0f ns  (%d runs)\n", k, ns[k] / n[k], n[k] }' \
	"$dir/programs.txt" | sort
