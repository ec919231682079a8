#!/usr/bin/env bash
# `slideops capture threads` on the real kernel: a snapshot of every thread, with no
# signal. C programs run in real cgroups named as systemd units name theirs:
#   orders  200 threads blocked in wait_for_orders (a read of a pipe nobody writes, made
#           in the function itself) since long before the capture
#   crowd   10,000 threads asleep: the snapshot stays bounded and loses none
# The snapshot must count them, name the set of 200 in wait_for_orders in the answer and
# in thread_sets, read like a thread dump in text, and refuse -d (exit 2).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer threads

NTHREADS=200
NCROWD=10000

workload threads_wait_for_orders waiter
cp "$WORK/waiter" "$WORK/orders"
cp "$WORK/waiter" "$WORK/crowd"

rc=0
"$SLIDEOPS" capture threads -d 5 > /dev/null 2> "$WORK/refused.err" || rc=$?
[ "$rc" = 2 ] || fail "capture threads -d 5 exited $rc, not 2: $(cat "$WORK/refused.err")"
grep -q "snapshot" "$WORK/refused.err" || fail "the refusal does not say why: $(cat "$WORK/refused.err")"

cg_orders=$(make_cgroup system.slice/slideops-test-orders.service)
cg_crowd=$(make_cgroup system.slice/slideops-test-crowd.service)
start_in_cgroup "$cg_orders" "$WORK/orders" "$NTHREADS" >/dev/null
sleep 1

"$SLIDEOPS" capture threads --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture threads failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
jq -e '.question == "threads" and .unit == "count"' "$doc" >/dev/null ||
	fail "question/unit: $(jq -c '{question, unit}' "$doc")"
g=$(jq -c '.groups[] | select(.label == "Unit slideops-test-orders.service")' "$doc")
[ -n "$g" ] || fail "no group for the waiting threads: $(jq -c '[.groups[] | {l: .label, v: .value}]' "$doc")"
jq -e --argjson n $((NTHREADS + 1)) '.value == $n and .waiting == $n and .running == 0' <<<"$g" \
	>/dev/null || fail "the $((NTHREADS + 1)) threads of orders, all waiting: $g"
set=$(jq -c '[.thread_sets[] | select(.group == "Unit slideops-test-orders.service" and
	(.stack | index("wait_for_orders")))] | first' "$doc")
jq -e --argjson n "$NTHREADS" '.threads == $n and .state == "waiting" and .wait == "read"' \
	<<<"$set" >/dev/null || fail "no set of $NTHREADS threads waiting in read in wait_for_orders: $set"
[ "$(jq -r '.stack | map(select(. == "wait_for_orders" or . == "worker")) | join(";")' <<<"$set")" = \
	"wait_for_orders;worker" ] || fail "the set's stack does not go from wait_for_orders to worker: $set"
total=$( (ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null || true) | wc -l)
jq -e --argjson t "$total" '.total >= 0.8 * $t and .total <= 1.2 * $t' "$doc" >/dev/null ||
	fail "the snapshot has $(jq .total "$doc") threads; /proc lists $total"

answer=$(jq -r .answer "$doc")
re='^This server had ([0-9]+) threads: ([0-9]+) running and ([0-9]+) waiting\. The largest set waiting in the same place was ([0-9]+) threads of (.+) in ([^ ]+)\.$'
[[ $answer =~ $re ]] || fail "the answer is not in architecture.md's form: $answer"
[ "${BASH_REMATCH[1]}" = "$(jq .total "$doc")" ] || fail "the answer's count is not the total: $answer"
[ $((BASH_REMATCH[2] + BASH_REMATCH[3])) = "${BASH_REMATCH[1]}" ] || fail "running + waiting != threads: $answer"
[ "${BASH_REMATCH[4]}" = "$NTHREADS" ] && [ "${BASH_REMATCH[5]}" = "Unit slideops-test-orders.service" ] &&
	[ "${BASH_REMATCH[6]}" = wait_for_orders ] || fail "the largest set is not the orders pool: $answer"

# The text view reads like a thread dump, the orders pool first among its own.
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" > "$WORK/show.txt" || fail "show failed"
grep -q "^Threads, by sets" "$WORK/show.txt" || fail "no thread dump in the text view"
grep -q "^$NTHREADS x Unit slideops-test-orders.service, waiting in read" "$WORK/show.txt" ||
	fail "the thread dump has no set of the orders pool: $(head -30 "$WORK/show.txt")"
"$SLIDEOPS" show "$id" --export folded "$WORK/threads.folded" >/dev/null || fail "folded export failed"
grep -q "^Unit slideops-test-orders.service;orders;.*worker;wait_for_orders.* $NTHREADS\$" "$WORK/threads.folded" ||
	fail "the folded export has no line for the pool: $(grep orders "$WORK/threads.folded" | head -3)"
"$SLIDEOPS" show "$id" --flamegraph "$WORK/threads.html" >/dev/null || fail "flamegraph failed"

# 10,000 more threads: bounded, nothing lost, all of them there.
start_in_cgroup "$cg_crowd" "$WORK/crowd" "$NCROWD" >/dev/null
for _ in $(seq 100); do
	crowd=$(head -1 "$cg_crowd/cgroup.procs" 2>/dev/null || true)
	[ -n "$crowd" ] && [ "$(ls "/proc/$crowd/task" 2>/dev/null | wc -l)" -gt "$NCROWD" ] && break
	sleep 0.2
done
"$SLIDEOPS" capture threads --json > "$WORK/crowd.json" 2> "$WORK/crowd.err" ||
	fail "capture threads with $NCROWD more threads failed: $(cat "$WORK/crowd.err")"
jq -e --argjson n $((NCROWD + 1)) '.lost == 0 and ([.groups[] | select(.label ==
	"Unit slideops-test-crowd.service")][0].value == $n)' "$WORK/crowd.json" >/dev/null ||
	fail "the snapshot of $NCROWD sleeping threads: $(jq -c '{lost, groups: [.groups[] | {l: .label, v: .value}]}' "$WORK/crowd.json")"
# 10,000 threads take a while to die: their cgroup is removed once they have.
cg_kill "$cg_crowd"
for _ in $(seq 100); do [ -z "$(cat "$cg_crowd/cgroup.procs" 2>/dev/null)" ] && break; sleep 0.1; done
echo "ok"
