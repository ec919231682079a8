#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What answering "what is waiting on locks" costs on a contended workload, side by side
# with `perf lock record -a` (kernel lock contention tracepoints) in one run. Debian's
# klockstat needs kprobes or fentry, which this kernel lacks: it is tried, and said so
# when it cannot run. The workload: THREADS threads taking one pthread mutex ITERS times
# each (a short critical section), timed; ROUNDS rounds, the order rotating.
#
# Reports per profiler: the workload's slowdown against none; for slideops, each of its
# programs' BPF time per event (kernel.bpf_stats_enabled), and their time per futex call
# of the machine while the workload ran (perf stat counts them, in every mode alike).
# Target (issue 11): cheaper per event than the peers. Who held the lock (issue 19) adds
# a hash lookup at each futex wake (a stack once the waiting its wakes ended reaches
# 1 ms): SLIDEOPS_BEFORE=BINARY runs a build without it beside the others (mode
# slideops-before), so the two compare side by side. A second workload, handoff, makes
# the futex calls' mix the same in every run: two threads hand a futex word back and
# forth HANDOFFS times (each turn a FUTEX_WAKE of a waiter and a FUTEX_WAIT).
#
#   sudo bench/locks/run.sh                   3 rounds
#   ROUNDS=1 sudo bench/locks/run.sh
#   SLIDEOPS_BEFORE=/tmp/base/build/slideops sudo bench/locks/run.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/bench/lib.sh"
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-8}
ITERS=${ITERS:-200000}
HANDOFFS=${HANDOFFS:-200000}
SLIDEOPS_BEFORE=${SLIDEOPS_BEFORE:-}
for tool in gcc perf bpftool jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
bench_init locks

cat > "$dir/contend.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static int iters;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		for (int j = 0; j < 200; j++)
			counter++;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	pthread_t t[64];
	struct timespec a, b;

	iters = atoi(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
C
gcc -O2 -fno-omit-frame-pointer -pthread -o "$dir/contend" "$dir/contend.c"

cat > "$dir/handoff.c" <<'C'
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Whose turn it is: 0 or 1. Each side waits for its turn, then gives the other its. */
static _Atomic int turn;
static int turns;

static void *side(void *arg)
{
	int me = (int)(long)arg;

	for (int i = 0; i < turns; i++) {
		while (atomic_load(&turn) != me)
			syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, !me, NULL, NULL, 0);
		atomic_store(&turn, !me);
		syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	struct timespec a, b;

	(void)argc;
	turns = atoi(argv[1]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, side, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
C
gcc -O2 -fno-omit-frame-pointer -pthread -o "$dir/handoff" "$dir/handoff.c"

klockstat_note="klockstat: not run"
if command -v klockstat >/dev/null; then
	if timeout 3 klockstat -d 1 >/dev/null 2>"$dir/klockstat.err"; then
		klockstat_note="klockstat: runs here (not compared yet)"
	else
		klockstat_note="klockstat: cannot run here ($(grep -m1 -o 'failed to [^:]*' "$dir/klockstat.err" || echo "it failed"))"
	fi
fi

run() {
	local mode=$1 round=$2 secs
	rm -f "$dir/perf.data"
	case $mode in
	slideops) bench_start prog:on_sys_exit "$SLIDEOPS" capture locks -d 86400 ;;
	slideops-before)
		bench_start prog:on_sys_exit "$SLIDEOPS_BEFORE" capture locks -d 86400 ;;
	perf-lock) bench_start perf perf lock record -a -o "$dir/perf.data"; sleep 0.3 ;;
	esac
	# The machine's futex calls while the workload runs, counted alike in every mode.
	if [ "$workload" = contend ]; then
		secs=$(perf stat -a -e syscalls:sys_enter_futex -x, -o "$dir/futex.txt" -- \
			"$dir/contend" "$THREADS" "$ITERS")
	else
		secs=$(perf stat -a -e syscalls:sys_enter_futex -x, -o "$dir/futex.txt" -- \
			"$dir/handoff" "$HANDOFFS")
	fi
	futex=$(awk -F, '/sys_enter_futex/ { print $1 }' "$dir/futex.txt")
	bench_stop
	case $mode in
	slideops*) awk -v m="$mode" -v f="${futex:-0}" '{ print m, $1, $3, $4, f }' \
		"$dir/stats.txt" >> "$dir/programs-$workload.txt" ;;
	esac
	echo "$mode $secs" >> "$dir/results-$workload.txt"
	echo "round $round: $workload $mode $secs s, $futex futex calls" >&2
}

modes="none slideops perf-lock"
[ -n "$SLIDEOPS_BEFORE" ] && modes="none slideops slideops-before perf-lock"
workload=contend
bench_rounds run $modes
workload=handoff
bench_rounds run $modes

# report WORKLOAD TITLE: the workload's slowdowns, then the programs' BPF time.
report() {
	echo
	echo "$2, $ROUNDS rounds:"
	awk '{ s[$1] += $2; n[$1]++ }
		END {
			base = s["none"] / n["none"]
			for (m in s) printf "  %-16s %8.3f s  %+6.1f%%\n", m, s[m] / n[m], 100 * (s[m] / n[m] - base) / base
			if (s["perf-lock"] > 0 && s["perf-lock"] / n["perf-lock"] > base)
				for (m in s) if (m ~ /^slideops/)
					printf "%s / perf lock: slowdown %.2fx\n", m, (s[m] / n[m] - base) / (s["perf-lock"] / n["perf-lock"] - base)
		}' "$dir/results-$1.txt"
	echo "slideops' programs, BPF time per run (all rounds):"
	awk '{ ns[$1 " " $2] += $3; n[$1 " " $2] += $4 } END { for (k in ns) if (n[k]) printf "  %-38s %8.0f ns  (%d runs)\n", k, ns[k] / n[k], n[k] }' \
		"$dir/programs-$1.txt" | sort
	echo "the futex programs' BPF time (on_sys_enter + on_sys_exit) per futex call of the machine:"
	awk '$2 == "on_sys_enter" || $2 == "on_sys_exit" { ns[$1] += $3 }
		$2 == "on_sys_enter" { f[$1] += $5 }
		END { for (m in ns) if (f[m]) printf "  %-16s %8.0f ns  (%d futex calls)\n", m, ns[m] / f[m], f[m] }' \
		"$dir/programs-$1.txt" | sort
}

report contend "$THREADS threads x $ITERS contended pthread_mutex_lock"
report handoff "2 threads handing a futex back and forth $HANDOFFS times"
echo "$klockstat_note"
