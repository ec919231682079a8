#!/usr/bin/env bash
# A program run from a memfd (as runc runs its copy of itself, and sandboxes their sealed
# executables): its file lives on the kernel's internal shared-memory mount, which no
# mount table lists. The capture reads it in-process, as memory that no server can hold
# up, and names its function: no guarded reader (`slideops __read-guard`) is started
# for it, which would cost an exec of the profiler each capture.
source "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload cpu_hot memfd-worker
cg=$(make_cgroup "system.slice/memfd-exec.service")
# The program copied into a memfd and run from it: its mapping is /memfd:... (deleted).
worker=$(start_in_cgroup "$cg" python3 -c '
import os, sys
fd = os.memfd_create("sealed-worker", 0)
with open(sys.argv[1], "rb") as f:
    os.write(fd, f.read())
os.execv("/proc/self/fd/%d" % fd, ["memfd-worker"])' "$WORK/memfd-worker")
for _ in $(seq 200); do
	grep -q "/memfd:sealed-worker" "/proc/$worker/maps" 2>/dev/null && break
	sleep 0.05
done
grep -q "/memfd:sealed-worker" "/proc/$worker/maps" 2>/dev/null ||
	fail "the workload does not run from its memfd: $(head -3 "/proc/$worker/maps" 2>&1)"

strace -f -qq -e trace=execve -o "$WORK/execs" \
	"$SLIDEOPS" capture cpu -d 3 --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "the capture failed: $(cat "$WORK/capture.err")"
jq -e '[.functions[].name] | index("hot_loop") != null' "$WORK/capture.json" >/dev/null ||
	fail "the program run from a memfd is not named: $(jq -c '[.functions[].name][:12]' "$WORK/capture.json")"
if grep -q "__read-guard" "$WORK/execs"; then
	fail "a guarded reader was started for a memfd: $(grep __read-guard "$WORK/execs" | head -2)"
fi
jq -e --arg pid "$worker" '[.not_read[]? | select(.path | test("memfd"))] | length == 0' \
	"$WORK/capture.json" >/dev/null ||
	fail "the memfd is listed as not read: $(jq -c .not_read "$WORK/capture.json")"
echo "PASS: a program run from a memfd is read in-process and named"
