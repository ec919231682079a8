#!/usr/bin/env bash
# The wall answer on a quiet machine with one service: it leads with what a person would
# look at, not with the idle and not with the profiler itself.
#   rates    Unit slideops-test-rates.service: 4 threads that compute 1 ms in
#            compute_rates and sleep in fetch_rates (usleep, 50 times a second): each
#            runs ~5% of the time
#   pollers  Unit slideops-test-pollers.service: 32 threads that wake twice a second
#            to find nothing to do: they wait 8 times as long as the service's threads in
#            all, and run far less than 0.1% of the capture each (8 wakes of 4 s: under 1 ms
#            even where a loaded machine makes a wake cost 100 µs)
# The service must lead the answer (unless a group that ran more than it, another
# engineer's workload on a shared machine, comes first); the pollers are never named;
# the profiler's own process is a row of the System group (kind "system") and is never
# named in the answer.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.wall' >/dev/null ||
	skip "this server cannot answer wall: $("$SLIDEOPS" check 2>&1 | grep wall)"

workload rates_and_poll_queue service

cg_rates=$(make_cgroup system.slice/slideops-test-rates.service)
cg_pollers=$(make_cgroup system.slice/slideops-test-pollers.service)
start_in_cgroup "$cg_rates" "$WORK/service" rates >/dev/null
start_in_cgroup "$cg_pollers" "$WORK/service" pollers >/dev/null
sleep 1

"$SLIDEOPS" capture wall -d 4 --json > "$WORK/capture.json" 2> "$WORK/capture.err" &
cap=$!
defer "kill -9 $cap 2>/dev/null"
wait "$cap" || fail "capture wall failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
group() { jq -c --arg l "$1" '.groups[] | select(.label == $l)' "$doc"; }
answer=$(jq -r .answer "$doc")
echo "answer: $answer"

rates=$(group "Unit slideops-test-rates.service")
pollers=$(group "Unit slideops-test-pollers.service")
[ -n "$rates" ] && [ -n "$pollers" ] ||
	fail "the service and the pollers are groups: $(jq -c '[.groups[] | {l: .label, value}]' "$doc")"
# The pollers wait more in all than the service: only the rule on running keeps them out.
jq -e --argjson r "$rates" '.waiting_ns > 4 * $r.waiting_ns and .running_ns < $r.running_ns' \
	<<<"$pollers" >/dev/null || fail "the pollers wait the most and run the least: $pollers, $rates"

t='[0-9.]+ (s|ms|µs|min)'
re="^Over ([0-9]+) seconds, threads of (.+) spent ($t) running and ($t) waiting"
re+="(, $t of it (for a CPU|on I/O|on a lock|on other events))?"
re+='(, most of the waiting in ([^ ]+))?\.( Next was .+)?$'
[[ $answer =~ $re ]] || fail "the answer is not in its form: $answer"
first=${BASH_REMATCH[2]}
if [ "$first" = "Unit slideops-test-rates.service" ]; then
	[ "${BASH_REMATCH[11]}" = fetch_rates ] || [ "${BASH_REMATCH[11]}" = usleep ] ||
		fail "the service waits in fetch_rates: $answer"
else
	other=$(group "$first")
	jq -e --argjson r "$rates" '.running_ns > $r.running_ns' <<<"$other" >/dev/null ||
		fail "a group that ran less than the service leads the answer: $answer ($other)"
fi
[[ $answer != *pollers* ]] || fail "the idle pollers are in the answer: $answer"

# The profiler: a process row of System, never named in the answer.
jq -e --argjson pid "$cap" '[.groups[] | select(.kind == "system") | .processes[] |
	select(.pid == $pid)] | length == 1' "$doc" >/dev/null ||
	fail "the capturing process ($cap) is not a row of System: $(jq -c --argjson pid "$cap" \
		'[.groups[] | select(any(.processes[]; .pid == $pid)) | {l: .label, kind}]' "$doc")"
jq -e --argjson pid "$cap" '[.groups[] | select(.kind != "system") | .processes[] |
	select(.pid == $pid)] | length == 0' "$doc" >/dev/null ||
	fail "the capturing process is in another group"
for f in pipeline__run capture__run wall_fold ring_buffer__poll; do
	[[ $answer != *"$f"* ]] || fail "the profiler is named in the answer: $answer"
done
sys_top=$(jq -r '.groups[] | select(.kind == "system") | .top_function // ""' "$doc")
[[ $sys_top != pipeline__* && $sys_top != capture* ]] ||
	fail "System's card names the profiler's function: $sys_top"
echo "ok"
