#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What Python frames cost, in one run: every CPU busy with either native processes (a
# chain of three C functions with frame pointers) or CPython processes (a request loop
# of three Python functions), counting the work units they complete in SECONDS, under
#
#   none     no profiler
#   capture  slideops capture cpu at 99 Hz (native stacks, and Python frames for CPython)
#
# interleaved, ROUNDS rounds. Reports the BPF time per sample (kernel.bpf_stats_enabled,
# on only while this runs) with native and with Python workloads and their ratio (target:
# a Python sample <= 2x a native one), and the work lost by each against no profiler
# (target: <= 1%).
#
#   sudo bench/python/run.sh                          3 rounds of 20 s
#   ROUNDS=1 SECONDS_RUN=10 PYTHON=/usr/bin/python3.11 sudo bench/python/run.sh
#
# Not a test: the figures move with whatever else the machine runs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-20}
NCPUS=$(getconf _NPROCESSORS_ONLN)
WORKERS=${WORKERS:-$NCPUS}
PYTHON=${PYTHON:-$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11.*/bin/python3.11 2>/dev/null | head -1)}
PYTHON=${PYTHON:-/usr/bin/python3.11}
HZ=99

[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profiler needs it)" >&2; exit 1; }
for tool in gcc bpftool jq "$PYTHON"; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }

source "$top/bench/lib.sh"
bench_init python

# One process: units of work until SECONDS have passed, then prints how many.
cat > "$dir/native.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define KEEP __attribute__((noipa))

KEEP static uint64_t inner(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}
KEEP static uint64_t middle(uint64_t x) { return inner(x) ^ 3; }
KEEP static uint64_t outer(uint64_t x) { return middle(x) + 1; }

int main(int argc, char **argv)
{
	struct timespec ts;
	double until;
	uint64_t x = 1, n = 0;

	(void)argc;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	until = ts.tv_sec + ts.tv_nsec / 1e9 + atof(argv[1]);
	do {
		for (int i = 0; i < 100; i++, n++)
			x = outer(x);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < until);
	printf("%llu\n", (unsigned long long)(n + (x == 42)));
	return 0;
}
C
cat > "$dir/service.py" <<'PY'
import sys
import time


def build_report(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def render_page(n):
    s = 0
    for i in range(n):
        s += i ^ 3
    return s


def handle():
    build_report(300)
    render_page(100)


until = time.monotonic() + float(sys.argv[1])
n = 0
while time.monotonic() < until:
    for _ in range(100):
        handle()
    n += 100
print(n)
PY
gcc -O2 -fno-omit-frame-pointer -o "$dir/native" "$dir/native.c"
# The tables of libc, python and the workload are cached, as on a server profiled before.
"$SLIDEOPS" capture cpu -d 1 >/dev/null 2>&1 || true

held_programs() { cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u; }
wait_ready() {
	for _ in $(seq 300); do
		[ "$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c bpf_link)" -ge $((NCPUS + 2)) ] && return 0
		sleep 0.05
	done
	echo "bench: the capture did not start" >&2
	return 1
}
# BPF run time and runs of the perf_event programs process $1 holds: "ns count".
bpf_stats() {
	local ids
	ids=$(held_programs "$1" | paste -sd, -)
	[ -n "$ids" ] || { echo "0 0"; return; }
	bpftool prog show -j | jq -r --argjson ids "[$ids]" '
		[.[] | select(.type == "perf_event" and (.id as $i | $ids | index($i)))]
		| "\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0)"'
}
# WORKERS processes of a workload; the sum of their units.
work() {
	local kind=$1 i pids=()
	for i in $(seq "$WORKERS"); do
		if [ "$kind" = native ]; then
			"$dir/native" "$SECONDS_RUN" > "$dir/units.$i" &
		else
			"$PYTHON" "$dir/service.py" "$SECONDS_RUN" > "$dir/units.$i" &
		fi
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$dir/units".* | awk '{ s += $1 } END { print s }'
	rm -f "$dir/units".*
}

run() {
	local kind=$1 mode=$2 round=$3 pid="" units stats="0 0"
	if [ "$mode" = capture ]; then
		"$SLIDEOPS" capture cpu -d 86400 -F "$HZ" >/dev/null 2>"$dir/capture.err" &
		pid=$!
		wait_ready "$pid"
	fi
	units=$(work "$kind")
	if [ -n "$pid" ]; then
		stats=$(bpf_stats "$pid")
		kill -INT "$pid"
		wait "$pid" || true
	fi
	echo "$round $kind $mode $units $stats" >> "$dir/results"
	printf '  %-7s %-8s %12s units   bpf %s\n' "$kind" "$mode" "$units" "$stats"
}

echo "Python frames' cost: $WORKERS processes of each workload, $SECONDS_RUN s a run, $ROUNDS rounds, $HZ Hz, $PYTHON"
for r in $(seq "$ROUNDS"); do
	echo "round $r"
	for kind in native python; do
		if [ $((r % 2)) = 1 ]; then
			run "$kind" none "$r"; run "$kind" capture "$r"
		else
			run "$kind" capture "$r"; run "$kind" none "$r"
		fi
	done
done

echo
awk '
	{ u[$1, $2, $3] = $4; ns[$2] += $5; runs[$2] += $6; rounds[$1] = 1 }
	END {
		printf "%-8s %16s %14s\n", "workload", "work lost (avg)", "bpf ns/sample"
		split("native python", order, " ")
		for (k = 1; k <= 2; k++) {
			m = order[k]; lost = 0; nr = 0
			for (r in rounds) if (u[r, m, "none"]) { lost += 1 - u[r, m, "capture"] / u[r, m, "none"]; nr++ }
			per[m] = runs[m] ? ns[m] / runs[m] : 0
			printf "%-8s %15.2f%% %14.0f\n", m, nr ? 100 * lost / nr : 0, per[m]
		}
		if (per["native"] > 0)
			printf "\nPython / native, BPF time per sample: %.2fx (target <= 2x)\n", per["python"] / per["native"]
	}' "$dir/results"
