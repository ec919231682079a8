#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How long a capture takes past its duration on a machine that holds a hostile binary,
# side by side with perf in the same run. Two programs run: an ordinary busy one, and a
# working copy of it whose section table (in a 1 GB sparse file) has 60,000 symbol tables
# of 64 MB (tests/tools/make-hostile-elf.py); then a second copy with 200 of them.
#
#   slideops   slideops capture cpu -d SECONDS
#   perf       perf record -a -g -F 99 -- sleep SECONDS  (it reads the binaries it met
#              for their build ids when recording ends), cut off at LIMIT seconds
#
# Reports, for each, the time past the duration (the capture's overhead), ROUNDS rounds,
# with and without the hostile binaries, and the ratio slideops / perf.
#
#   sudo bench/hostile/run.sh            3 rounds of 5 s (make bench-deps first)
#
# Not a test: the figures move with whatever else the machine runs.
set -euo pipefail
# A failure says what failed (bench/lib.sh).
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-5}
LIMIT=${LIMIT:-120}

[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
for tool in gcc perf python3; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
dir=$(mktemp -d /tmp/slideops-bench-hostile.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap 'bench_report_failure $?; cleanup' EXIT
export SLIDEOPS_DATA="$dir/data"

cat > "$dir/worker.c" <<'C'
#include <stdint.h>
#include <string.h>
#include <time.h>
volatile uint64_t sink;
__attribute__((noinline)) void burn(void) { for (int i = 0; i < 1000000; i++) sink += i; }
int main(int argc, char **argv)
{
	struct timespec pause = { 0, 9000000 };
	for (;;) {
		burn();
		if (argc > 1)
			nanosleep(&pause, NULL);
	}
}
C
gcc -O1 -fno-omit-frame-pointer -o "$dir/worker" "$dir/worker.c"
python3 "$top/tests/tools/make-hostile-elf.py" "$dir/worker" "$dir/many-sections" 60000
python3 "$top/tests/tools/make-hostile-elf.py" "$dir/worker" "$dir/huge-symtab" 200

ms() { date +%s%3N; }

# over_ms CMD...: milliseconds CMD took past SECONDS_RUN (LIMIT: cut off there).
over_ms() {
	local start end
	start=$(ms)
	timeout "$LIMIT" "$@" >/dev/null 2>&1 || true
	end=$(ms)
	echo $((end - start - SECONDS_RUN * 1000))
}

run_round() {
	local label=$1 s p
	s=$(over_ms "$SLIDEOPS" capture cpu -d "$SECONDS_RUN")
	p=$(cd "$dir" && over_ms perf record -q -a -g -F 99 -o "$dir/perf.data" -- sleep "$SECONDS_RUN")
	echo "$label $s $p"
}

"$dir/worker" & pids+=($!)
results=()
for ((r = 1; r <= ROUNDS; r++)); do
	results+=("$(run_round plain)")
done
"$dir/many-sections" light & pids+=($!)
"$dir/huge-symtab" light & pids+=($!)
sleep 0.5
for ((r = 1; r <= ROUNDS; r++)); do
	results+=("$(run_round hostile)")
done

printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = {}
for line in sys.stdin:
    label, s, p = line.split()
    rows.setdefault(label, []).append((int(s), int(p)))
print("time past the duration (ms, median of rounds); perf cut off at %s s" % sys.argv[1])
print("%-8s %10s %10s %8s" % ("machine", "slideops", "perf", "ratio"))
for label, vals in rows.items():
    s = statistics.median(v[0] for v in vals)
    p = statistics.median(v[1] for v in vals)
    print("%-8s %10d %10d %8.2f" % (label, s, p, s / p if p > 0 else float("nan")))
' "$LIMIT"
