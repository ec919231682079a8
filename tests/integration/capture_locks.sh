#!/usr/bin/env bash
# `slideops capture locks` on the real kernel. C programs with known function names run in
# real cgroups named as systemd units name theirs:
#   ledger  four clerk threads take one pthread mutex in ledger_post (through take_ledger)
#           and hold it while they work: a contended mutex
#   pool    four worker threads idle in a condition variable in wait_for_orders, woken
#           one at a time, never for long: waits that are not lock contention
# The capture must name ledger's group first with its function, word the answer as
# architecture.md does, keep the pool's condition-variable waits out of the answer, and
# show, compare, export and draw the profile in nanoseconds waited.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer locks

SECONDS_CAPTURE=5

workload ledger_clerks_and_waiters locker
cp "$WORK/locker" "$WORK/ledger"
cp "$WORK/locker" "$WORK/pool"

cg_ledger=$(make_cgroup system.slice/slideops-test-ledger.service)
cg_pool=$(make_cgroup system.slice/slideops-test-pool.service)
start_in_cgroup "$cg_ledger" "$WORK/ledger" >/dev/null
start_in_cgroup "$cg_pool" "$WORK/pool" >/dev/null
sleep 0.5

"$SLIDEOPS" capture locks -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture locks failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
group() { jq -c --arg l "Unit slideops-test-$1.service" '.groups[] | select(.label == $l)' "$2"; }

jq -e '.question == "locks" and .unit == "nanoseconds"' "$doc" >/dev/null ||
	fail "question/unit: $(jq -c '{question, unit}' "$doc")"
g=$(group ledger "$doc")
[ -n "$g" ] || fail "no group for the contended mutex: $(jq -c '[.groups[] | {l: .label, v: .value}]' "$doc")"
top=$(jq -r .top_function <<<"$g")
[[ $top =~ ^(take_ledger|ledger_post)$ ]] || fail "ledger's waits are mostly in '$top': $g"
jq -e '.contentions > 10 and .value > 1000000000 and .longest_ns > 0 and
	.longest_ns <= .value' <<<"$g" >/dev/null ||
	fail "four clerks over ${SECONDS_CAPTURE} s waited more than 1 s, more than 10 times: $g"
# Ranked by its waits: above the test's idle pool (other processes of a shared machine
# may wait on locks longer; the answer below names whichever is first).
jq -e '(.groups | map(.label)) as $l | ($l | index("Unit slideops-test-pool.service")) as $pool |
	$pool == null or ($l | index("Unit slideops-test-ledger.service")) < $pool' "$doc" >/dev/null ||
	fail "the contended mutex's group is below the idle pool's: $(jq -c '[.groups[] | {l: .label, v: .value}]' "$doc")"

# The pool's condition-variable waits are not lock waits: its threads waited the whole
# capture; whatever it has here (its own mutex, briefly) is a small part of that.
pool=$(group pool "$doc")
if [ -n "$pool" ]; then
	jq -e --argjson s "$SECONDS_CAPTURE" '.value < 0.05 * 4 * $s * 1e9' <<<"$pool" >/dev/null ||
		fail "the idle pool's condition-variable waits read as lock contention: $pool"
fi

answer=$(jq -r .answer "$doc")
re='^Over ([0-9]+) seconds, threads of (.+) waited ([0-9.]+ (s|ms|µs|min)) on locks(, most of it in ([^ ,]+))?'
re+='(, waiting for ([^ ]+) to release the lock)?\.( Next was .+)?$'
[[ $answer =~ $re ]] || fail "the answer is not in architecture.md's form: $answer"
first=$(jq -c '.groups[0]' "$doc")
[ "${BASH_REMATCH[2]}" = "$(jq -r .label <<<"$first")" ] ||
	fail "the answer does not name the first group ($(jq -r .label <<<"$first")): $answer"
[ "${BASH_REMATCH[6]}" = "$(jq -r '.top_function // ""' <<<"$first")" ] || fail "most of it in: $answer"
# The holder named is the first holder of the lock waited on most, when it names one.
if [ -n "${BASH_REMATCH[8]}" ]; then
	[ "${BASH_REMATCH[8]}" = "$(jq -r '.locks[0].holders[0].function' "$doc")" ] ||
		fail "the answer's holder is not the first lock's: $answer"
fi
# The ledger's releases are ledger_post's: the clerks unlock there while the others wait.
ledger=$(jq -c '[.locks[] | select(.processes[0].comm == "ledger")][0] // empty' "$doc")
jq -e '.holders[0].function == "ledger_post"' <<<"$ledger" >/dev/null ||
	fail "the ledger's holder is not ledger_post: $ledger"

# show, compare (same question only), the exports and the flame graph.
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --json > "$WORK/show.json" || fail "show $id failed"
[ "$(jq -r .answer "$WORK/show.json")" = "$answer" ] || fail "show's answer differs: $(jq -r .answer "$WORK/show.json")"
"$SLIDEOPS" show "$id" --export folded "$WORK/locks.folded" >/dev/null || fail "folded export failed"
grep -q '^Unit slideops-test-ledger.service;ledger;.*clerk' "$WORK/locks.folded" ||
	fail "the folded export has no ledger stack: $(head -3 "$WORK/locks.folded")"
"$SLIDEOPS" show "$id" --export pprof "$WORK/locks.pb.gz" >/dev/null || fail "pprof export failed"
[ -s "$WORK/locks.pb.gz" ] || fail "empty pprof export"
"$SLIDEOPS" show "$id" --flamegraph "$WORK/locks.html" >/dev/null || fail "flamegraph failed"
grep -q "take_ledger\|ledger_post" "$WORK/locks.html" || fail "the flame graph has no ledger frame"
"$SLIDEOPS" capture cpu -d 1 --json > "$WORK/cpu.json" 2>/dev/null || fail "capture cpu failed"
rc=0
"$SLIDEOPS" compare "$id" "$(jq -r .id "$WORK/cpu.json")" > /dev/null 2> "$WORK/cmp.err" || rc=$?
[ "$rc" = 2 ] || fail "comparing locks with cpu: exit $rc, not a refusal: $(cat "$WORK/cmp.err")"
grep -q "same question" "$WORK/cmp.err" || fail "the refusal does not say why: $(cat "$WORK/cmp.err")"
"$SLIDEOPS" compare "$id" "$id" > /dev/null || fail "comparing two locks profiles failed"
echo "ok"
