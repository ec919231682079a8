#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Whole stacks in every question's own capture, not only cpu's: wall's and locks' stacks
# come from a context switch or a system call's exit, memory's from a page fault, threads'
# from a task iterator walking another task. One workload, tests/workloads/overlap.c
# (threads in chains of functions built without frame pointers, doing what every question
# samples), a capture of each question, and per question: the profile's own stack quality
# (stack_quality.complete over every stack of the server) and the share of the workload's
# stacks that reach the root of its chain (FAMILY_outer), the figure of issue 27 (target:
# >= 95% for a process whose tables are loaded; the first samples of a capture, before its
# tables load, are counted as they come).
#
#   sudo bench/stacks/questions.sh            10 s a capture
#   SECONDS_RUN=5 sudo bench/stacks/questions.sh
#
# Not a test: the figures move with whatever else the machine runs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
SECONDS_RUN=${SECONDS_RUN:-10}
[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ -x "$SLIDEOPS" ] || { echo "bench: make first" >&2; exit 1; }
work=$(mktemp -d)
cg=$(findmnt -n -o TARGET -t cgroup2 | head -1)/system.slice/slideops-bench-overlap.service
cleanup() {
	for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
	sleep 0.2
	rmdir "$cg" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -fomit-frame-pointer -pthread -o "$work/overlap" "$top/tests/workloads/overlap.c"
mkdir -p "$cg"
bash -c 'echo $$ > "$0/cgroup.procs" && exec "$1"' "$cg" "$work/overlap" &
disown
sleep 1
export SLIDEOPS_DATA=$work/data

printf '%-8s %12s %16s %16s %8s\n' question "stacks whole" "workload, value" "workload, stacks" stacks
for q in cpu wall threads locks memory; do
	d=(-d "$SECONDS_RUN")
	[ "$q" = threads ] && d=()
	"$SLIDEOPS" capture "$q" "${d[@]}" --json > "$work/$q.json" 2> "$work/$q.err" ||
		{ echo "$q: capture failed: $(tail -2 "$work/$q.err")"; continue; }
	"$SLIDEOPS" show "$(jq -r .id "$work/$q.json")" --export folded - > "$work/$q.folded"
	python3 - "$q" "$work/$q.folded" "$(jq -r .stack_quality.complete "$work/$q.json")" <<'PY'
import sys
q, path, complete = sys.argv[1], sys.argv[2], float(sys.argv[3])
n = whole = value = whole_value = 0
for line in open(path, encoding="utf-8", errors="replace"):
    head, _, v = line.rstrip("\n").rpartition(" ")
    stack = head.split(";")
    if not any(f.startswith(("alpha_", "beta_")) for f in stack):
        continue
    is_whole = any(f in ("alpha_outer", "beta_outer") for f in stack)
    n += 1
    whole += is_whole
    value += int(v)
    whole_value += int(v) if is_whole else 0
print(f"{q:<8} {complete:12.3f} {whole_value / value if value else 0:16.3f} "
      f"{whole / n if n else 0:16.3f} {n:8d}")
PY
done
