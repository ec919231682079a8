#!/usr/bin/env bash
# Programs that interrupt each other on one CPU never mix their samples (bpf/stack.h: one
# slot per program that takes stacks). cpu, wall, locks and memory capture at once,
# wall and locks each with programs that can run inside one another (a tick in a
# switch, a kernel lock's end inside a system call's), against tests/workloads/overlap.c:
# threads of two families, each in its own chain of functions, doing what every question
# samples. Every stack of the workload in every profile must be one a thread really had:
# one family, its chain in order (outer under middle under inner), and each question
# must have seen the workload at all.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot be profiled"

workload overlap
cg=$(make_cgroup system.slice/slideops-test-overlap.service)
start_in_cgroup "$cg" "$WORK/overlap" >/dev/null
sleep 0.5

questions="cpu wall locks memory"
for q in $questions; do
	SLIDEOPS_DATA=$(mktemp -d "$WORK/data-$q.XXXXXX") "$SLIDEOPS" capture "$q" -d 5 -F 997 --json \
		> "$WORK/$q.json" 2> "$WORK/$q.err" &
	echo $! > "$WORK/$q.pid"
done
for q in $questions; do
	wait "$(cat "$WORK/$q.pid")" || fail "capture $q failed: $(cat "$WORK/$q.err")"
done

for q in $questions; do
	data=$(ls -d "$WORK"/data-$q.*)
	id=$(jq -r .id "$WORK/$q.json")
	SLIDEOPS_DATA=$data "$SLIDEOPS" show "$id" --export folded - > "$WORK/$q.folded" ||
		fail "show $q: $(cat "$WORK/$q.folded")"
	# The workload's stacks: a line is "frame;frame;... count".
	python3 - "$q" "$WORK/$q.folded" <<'PY' || fail "$q: a stack no thread had (above)"
import sys
q, path = sys.argv[1], sys.argv[2]
chain = ["outer", "middle", "inner"]
seen = bad = 0
for line in open(path, encoding="utf-8", errors="replace"):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    fams = {f.split("_")[0] for f in frames
            if f.split("_")[0] in ("alpha", "beta") and f.split("_")[-1] in chain}
    if not fams:
        continue
    seen += int(count)
    ours = [f for f in frames if f.split("_")[0] in fams and f.split("_")[-1] in chain]
    levels = [chain.index(f.split("_")[-1]) for f in ours]
    # Root first: outer, middle, inner, each right below the next (a stack cut short
    # may lack the first of them, never one in between).
    ok = len(fams) == 1 and all(b - a == 1 for a, b in zip(levels, levels[1:]))
    if not ok:
        bad += int(count)
        print(f"{q}: {stack} {count}")
print(f"  {q}: {seen} samples of the workload, {bad} torn")
# cpu and wall always see the busy workload; a loaded machine may leave locks and
# memory without a contended wait or a fault of it in 5 s: nothing torn is what counts.
sys.exit(1 if bad or (seen == 0 and q in ("cpu", "wall")) else 0)
PY
done
echo "ok"
