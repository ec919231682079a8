#!/usr/bin/env bash
# `slideops top`: %CPU as ps figures it, checked against what busy C programs count of
# themselves (CPU time over wall time, from their own clocks), including one busy on
# two threads; the text form, -n, the ordering, refused options, and a run without
# privileges.
source "$(dirname "$0")/lib.sh"

workload burn_duty_report burn
cp "$WORK/burn" "$WORK/slo-busy"
cp "$WORK/burn" "$WORK/slo-light"

# Two threads at 60% each (above 100% when the CPUs are free), and one at 20%.
"$WORK/slo-busy" "$WORK/busy.report" 60 2 &
BUSY=$!
defer "kill -9 $BUSY 2>/dev/null; wait $BUSY 2>/dev/null"
"$WORK/slo-light" "$WORK/light.report" 20 1 &
LIGHT=$!
defer "kill -9 $LIGHT 2>/dev/null; wait $LIGHT 2>/dev/null"
sleep 3

"$SLIDEOPS" top -n 100000 --json >"$WORK/top.json" || fail "slideops top --json failed"
cp "$WORK/busy.report" "$WORK/busy.seen"
cp "$WORK/light.report" "$WORK/light.seen"

# Within 10 points of what each counted itself (its reports are at most 50 ms old).
python3 - "$WORK" "$BUSY" "$LIGHT" <<'EOF' || fail "top's %CPU is not what the programs burn"
import json, sys
work, busy, light = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
procs = {p["pid"]: p for p in json.load(open(work + "/top.json"))["processes"]}
for pid, name in ((busy, "busy"), (light, "light")):
    cpu, wall = map(float, open(f"{work}/{name}.seen").read().split())
    own = 100 * cpu / wall
    assert pid in procs, f"slo-{name} (pid {pid}) is not listed"
    p = procs[pid]
    assert p["comm"] == f"slo-{name}", p
    print(f"slo-{name}: top says {p['cpu_percent']}%, it counted {own:.1f}%")
    assert own > 5, f"slo-{name} burnt only {own:.1f}%: nothing to compare"
    assert abs(p["cpu_percent"] - own) <= 10, (p, own)
# Busiest first.
values = [p["cpu_percent"] for p in json.load(open(work + "/top.json"))["processes"]]
assert values == sorted(values, reverse=True), "not busiest first"
EOF

# The text form: "PID  NAME N% CPU  GROUP", the same group as in JSON.
GROUP=$(json '[p["group"] for p in d["processes"] if p["pid"] == '$BUSY'][0]' <"$WORK/top.json")
"$SLIDEOPS" top -n 100000 >"$WORK/top.txt" || fail "slideops top failed"
grep -Eq "^ *$BUSY  slo-busy [0-9]+% CPU  $GROUP$" "$WORK/top.txt" ||
	fail "no line '$BUSY  slo-busy N% CPU  $GROUP' in: $(cat "$WORK/top.txt")"

# -n: how many.
n=$("$SLIDEOPS" top -n 3 --json | json 'len(d["processes"])')
[ "$n" = 3 ] || fail "top -n 3 listed $n"
n=$("$SLIDEOPS" --json top | json 'len(d["processes"])')
[ "$n" = 10 ] || fail "top listed $n by default, want 10"
n=$("$SLIDEOPS" top -n 3 | grep -c '% CPU  ')
[ "$n" = 3 ] || fail "top -n 3 printed $n lines"

# Refused: exit 2 and a message.
for args in "-n 0" "-n abc" "-n" "--frob" "extra"; do
	set +e
	# shellcheck disable=SC2086
	err=$("$SLIDEOPS" top $args 2>&1 >/dev/null); rc=$?
	set -e
	[ $rc = 2 ] || fail "top $args: exit $rc, want 2"
	[[ $err == slideops:* ]] || fail "top $args: no 'slideops: ...' message: $err"
done
"$SLIDEOPS" top --help | has "as ps reports it" || fail "top --help does not say what %CPU is"

# Without privileges: still every process, with a group (other users' executables are
# unreadable then; the workspace may be too).
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups \
	test -x "$SLIDEOPS" 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env SLIDEOPS_DATA="$WORK/nobody-data" "$SLIDEOPS" top -n 100000 --json \
		>"$WORK/nobody.json" 2>"$WORK/nobody.err" ||
		fail "top as nobody failed: $(cat "$WORK/nobody.err")"
	python3 - "$WORK/nobody.json" "$BUSY" <<'EOF' || fail "top as nobody: $(head -c 2000 "$WORK/nobody.json")"
import json, sys
procs = {p["pid"]: p for p in json.load(open(sys.argv[1]))["processes"]}
assert int(sys.argv[2]) in procs and 1 in procs and 2 in procs
assert procs[2]["group"] == "System"
EOF
else
	echo "note: cannot run $SLIDEOPS as nobody here; unprivileged run not checked"
fi
echo "pass"
