#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A huge machine's task list: tests/tools/many_tasks keeps PROCESSES processes and THREADS
# threads alive (10,000 and 50,000 by default, nearly all asleep), and with them this
# runs what an operator runs first: `slideops check`, `slideops top`, `slideops capture
# threads` (a snapshot of every thread) and `slideops capture wall -d SECONDS_RUN`, each
# under /usr/bin/time: its wall time and the profiler's peak RSS, beside the same with
# only the machine's own tasks (calm), so what the task list costs is seen apart.
#
#   sudo bench/huge/run.sh                                  10,000 processes, 50,000 threads
#   PROCESSES=2000 THREADS=10000 sudo bench/huge/run.sh     a smaller one
#
# Not a test: the figures move with whatever else the machine runs. 50,000 threads take
# about 1.5 GB of kernel memory (their stacks); kernel.threads-max and kernel.pid_max are
# raised while it runs if they would not leave room for the machine's own tasks (every
# thread takes a pid: with Debian's default pid_max of 32768, 50,000 threads would leave
# no pid for anything else, and every fork on the machine would fail), then put back.
set -euo pipefail
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
PROCESSES=${PROCESSES:-10000}
THREADS=${THREADS:-50000}
SECONDS_RUN=${SECONDS_RUN:-10}
[ "$(id -u)" = 0 ] || { echo "bench/huge: run as root" >&2; exit 1; }
[ -x "$SLIDEOPS" ] || { echo "bench/huge: $SLIDEOPS is not built (make)" >&2; exit 1; }

work=$(mktemp -d /tmp/slideops-bench-huge.XXXXXX)
tasks=""
threads_max=$(sysctl -n kernel.threads-max)
pid_max=$(sysctl -n kernel.pid_max)
cleanup() {
	[ -z "$tasks" ] || { kill -TERM "$tasks" 2>/dev/null; wait "$tasks" 2>/dev/null; } || true
	sysctl -q -w kernel.threads-max="$threads_max" || true
	sysctl -q -w kernel.pid_max="$pid_max" || true
	rm -rf "$work"
}
trap 'bench_report_failure $?; cleanup' EXIT
export SLIDEOPS_DATA=$work/data
gcc -O2 -pthread -o "$work/many_tasks" "$top/tests/tools/many_tasks.c"
need=$(( THREADS + $(ls /proc | grep -c '^[0-9]') * 4 + 10000 ))
[ "$threads_max" -ge "$need" ] || sysctl -q -w kernel.threads-max="$need"
[ "$pid_max" -ge $(( need * 2 )) ] || sysctl -q -w kernel.pid_max=$(( need * 2 ))

# one LABEL COMMAND...: runs it under time; appends "label what seconds peak_kB rc".
one() {
	local label=$1 what=$2 rc=0; shift 2
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/$what.out" 2> "$work/$what.err" || rc=$?
	read -r secs kb < "$work/time"
	echo "$label $what $secs $kb $rc" >> "$work/results"
	printf '  %-6s %-8s %7.2f s  %8d kB%s\n' "$label" "$what" "$secs" "$kb" \
		"$([ "$rc" = 0 ] || echo "  FAILED ($rc): $(tail -1 "$work/$what.err")")"
}
round() {
	one "$1" check "$SLIDEOPS" check
	one "$1" top "$SLIDEOPS" top
	one "$1" threads "$SLIDEOPS" capture threads
	one "$1" wall "$SLIDEOPS" capture wall -d "$SECONDS_RUN"
	# What the snapshot says it saw (its answer counts the threads).
	grep -h '^This server had' "$work/threads.out" | sed 's/^/         /' || true
}

echo "calm: the machine's own $(ls /proc | grep -c '^[0-9]') processes"
round calm
"$work/many_tasks" "$PROCESSES" "$THREADS" > "$work/tasks.out" 2> "$work/tasks.err" &
tasks=$!
for _ in $(seq 1200); do grep -q '^ready' "$work/tasks.out" 2>/dev/null && break; sleep 0.5; done
grep -q '^ready' "$work/tasks.out" || { echo "bench/huge: the tasks did not start: $(cat "$work/tasks.err")" >&2; exit 1; }
echo "huge: $(cat "$work/tasks.out"), $(ls /proc | grep -c '^[0-9]') processes on the machine, $(ps -eLf --no-headers | wc -l) threads"
round huge

echo
awk '{ t[$1, $2] = $3; m[$1, $2] = $4; rc[$1, $2] = $5; w[$2] = 1 }
	END {
		printf "%-9s %12s %12s %14s %14s\n", "command", "calm s", "huge s", "calm peak MB", "huge peak MB"
		split("check top threads wall", order, " ")
		for (k = 1; k <= 4; k++) {
			c = order[k]
			printf "%-9s %12.2f %12.2f %14.1f %14.1f%s\n", c, t["calm", c], t["huge", c],
				m["calm", c] / 1024, m["huge", c] / 1024, rc["huge", c] ? "  (failed)" : ""
		}
	}' "$work/results"
