#!/usr/bin/env bash
# A capture started through the API and followed to its end: progress moves through
# sampling to done and names the new profile, which opens with its answer; other
# requests are answered while it samples; a second capture is refused naming the one
# running; Stop ends sampling early and keeps what was sampled.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload spin_in_main spin
cg=$(make_cgroup "system.slice/serve-spin.service")
start_in_cgroup "$cg" "$WORK/spin" >/dev/null
start_serve

# wait_done: polls the progress document until the capture is no longer running;
# records every phase seen in $WORK/phases.
wait_done() {
	local i
	: > "$WORK/phases"
	for i in $(seq 600); do
		expect 200 GET /api/servers/local/capture
		jq -r .phase "$WORK/body" >> "$WORK/phases"
		[ "$(jq -r .running "$WORK/body")" = false ] && return 0
		sleep 0.2
	done
	fail "the capture never ended: $(cat "$WORK/body")"
}

expect 200 GET /api/servers/local/capture
jq -e '.running == false' "$WORK/body" >/dev/null || fail "a capture runs before any was started"

expect 202 POST /api/servers/local/capture -H 'Content-Type: application/json' \
	-d '{"question": "cpu", "seconds": 3}'
jq -e '.running and .phase == "sampling" and .question == "cpu" and .total == 3000' "$WORK/body" \
	>/dev/null || fail "the capture started as $(cat "$WORK/body")"
# While it samples, its thread runs ahead of the machine's nice-0 work (PIPELINE_NICE),
# and only its: the threads that answer requests stay as they were.
nices() { for t in /proc/"$SERVE_PID"/task/*/stat; do awk '{ print $19 }' "$t"; done 2>/dev/null | sort -n | uniq -c | tr -s ' \n' ' '; }
seen=$(nices)
grep -q -- ' -10 ' <<<" $seen" || fail "no thread of serve is raised to nice -10 while it captures: counts by nice: $seen"
grep -q ' 0 ' <<<" $seen" || fail "every thread of serve was raised, the ones that answer requests too: $seen"
# While it samples: other requests are answered, a second capture is refused by name.
expect 200 GET /api/profiles
expect 409 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": 3}'
jq -e --arg h "$(hostname)" '.error | startswith($h + " is already capturing (What is using the CPU, started ")' \
	"$WORK/body" >/dev/null || fail "the second capture was refused with $(cat "$WORK/body")"
wait_done
grep -q sampling "$WORK/phases" || fail "progress never said sampling: $(sort -u "$WORK/phases")"
jq -e '.phase == "done" and (.profile_id | length) > 0 and .error == null' "$WORK/body" >/dev/null ||
	fail "the capture ended as $(cat "$WORK/body")"
id=$(jq -r .profile_id "$WORK/body")
# Done: the capture's thread is set back (a capture job's thread may wait for the next).
seen=$(nices)
! grep -q -- ' -10 ' <<<" $seen" || fail "a thread of serve stays at nice -10 after its capture: $seen"
expect 200 GET "/api/profiles/$id"
# The spinning unit is among the groups (the machine is shared: others may be busier).
jq -e '.question == "cpu" and .seconds == 3 and (.answer | length) > 0 and
	any(.groups[]; .label == "Unit serve-spin.service" and .share > 0.05)' "$WORK/body" \
	>/dev/null || fail "the captured profile reads $(jq -c '{answer, seconds, groups: [.groups[].label]}' "$WORK/body")"
"$SLIDEOPS" profiles --json | jq -e --arg i "$id" 'any(.profiles[]; .id == $i)' >/dev/null ||
	fail "the CLI does not list the profile the server captured"

# Stop: ends sampling, keeps what was sampled.
expect 202 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": 300}'
for i in $(seq 100); do
	expect 200 GET /api/servers/local/capture
	[ "$(jq -r .done "$WORK/body")" -gt 0 ] && break
	sleep 0.1
done
expect 200 POST /api/servers/local/capture/stop
wait_done
jq -e '.phase == "done" and (.profile_id | length) > 0' "$WORK/body" >/dev/null ||
	fail "a stopped capture ended as $(cat "$WORK/body")"
expect 200 GET "/api/profiles/$(jq -r .profile_id "$WORK/body")"
jq -e '.seconds < 300 and .total > 0' "$WORK/body" >/dev/null ||
	fail "the stopped capture kept $(jq -c '{seconds, total}' "$WORK/body")"
expect 409 POST /api/servers/local/capture/stop

# Refusals in the CLI's words.
expect 400 POST /api/servers/local/capture -d '{"question": "heap"}'
[ "$(jq -r .error "$WORK/body")" = "capture: 'heap' is not a question; use cpu, wall, threads, locks or memory" ] ||
	fail "an unknown question said $(cat "$WORK/body")"
expect 400 POST /api/servers/local/capture -d 'not json'
stop_serve
echo "ok"
