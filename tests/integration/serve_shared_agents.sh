#!/usr/bin/env bash
# Two workspace processes on one PostgreSQL database (a shared workspace): a resident
# agent (`slideops agent`) enrolled through serve A polls serve A only; a capture asked
# for through serve B's API reaches it (the command goes through the database), its
# progress and end are B's to show as A's, and its profile, which names a known
# workload, is listed by both. Then top asked through B is answered by the agent through
# A, Stop asked through B ends a long capture early, and Remove the server through B
# reaches the agent through A: it removes its profiler and exits.
# The machine is shared with other profilers: BPF state is only looked at by pid.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

start_pg || skip "PostgreSQL 15 is not installed (make deps installs it)"

workload spin_shared_workload spin
cg=$(make_cgroup "system.slice/shared-spin.service")
start_in_cgroup "$cg" "$WORK/spin" >/dev/null

# Two processes, each with a data directory of its own (this machine's caches), one
# database. A shared workspace keeps one token: both ask the same.
SERVE_ARGS="--store $(cat "$PG/url")/workspace"
SLIDEOPS_DATA=$WORK/data-a start_serve
PID_A=$SERVE_PID BASE_A=$BASE
mkdir "$WORK/b"
SLIDEOPS_DATA=$WORK/data-b WORK=$WORK/b start_serve
PID_B=$SERVE_PID BASE_B=$BASE
[ "$BASE_A" != "$BASE_B" ] || fail "the two workspace processes listen on one port"

# on A|B METHOD PATH...: expect through that process.
on() {
	local which=$1 want=$2; shift 2
	if [ "$which" = A ]; then BASE=$BASE_A; else BASE=$BASE_B; fi
	expect "$want" "$@"
}

on A 201 POST /api/enrolments
ET=$(jq -r .token "$WORK/body")
"$SLIDEOPS" agent --workspace "$BASE_A" --name shared-one --data "$WORK/agent" \
	--enrol-token "$ET" >>"$WORK/agent.out" 2>>"$WORK/agent.err" &
AGENT=$!
defer "kill -TERM $AGENT 2>/dev/null; wait $AGENT 2>/dev/null"

SID=""
for _ in $(seq 150); do
	on B 200 GET /api/servers
	SID=$(jq -r '.servers[] | select(.name == "shared-one" and .status == "connected") | .id' \
		"$WORK/body")
	[ -n "$SID" ] && break
	kill -0 "$AGENT" 2>/dev/null || fail "the agent exited: $(tail -n 5 "$WORK/agent.err")"
	sleep 0.2
done
[ -n "$SID" ] || fail "B never listed the agent's server as connected: $(cat "$WORK/body")"

# capture_done_on WHICH: the capture on SID ended, as that process shows it; its
# progress document in $WORK/done.json.
capture_done_on() {
	local i
	for i in $(seq 900); do
		on "$1" 200 GET "/api/servers/$SID/capture"
		[ "$(jq -r .running "$WORK/body")" = false ] &&
			{ cp "$WORK/body" "$WORK/done.json"; return 0; }
		sleep 0.2
	done
	fail "the capture on $SID never ended as $1 shows it: $(cat "$WORK/body")"
}

# ---- a capture asked through B, run by the agent polling A ----
on B 202 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 3}'
jq -e '.running and .question == "cpu"' "$WORK/body" >/dev/null ||
	fail "B's answer to the capture: $(cat "$WORK/body")"
capture_done_on B
jq -e '.phase == "done" and (.profile_id | length) > 0 and .error == null' "$WORK/done.json" \
	>/dev/null || fail "the capture asked through B ended as $(cat "$WORK/done.json")"
id=$(jq -r .profile_id "$WORK/done.json")
capture_done_on A
[ "$(jq -r .profile_id "$WORK/done.json")" = "$id" ] ||
	fail "A shows another end of the capture: $(cat "$WORK/done.json")"
for which in A B; do
	on "$which" 200 GET "/api/profiles?server=shared-one"
	jq -e --arg id "$id" '.total == 1 and .profiles[0].id == $id' "$WORK/body" >/dev/null ||
		fail "$which does not list the profile $id: $(head -c 600 "$WORK/body")"
	on "$which" 200 GET "/api/profiles/$id"
	jq -e '[.functions[].name] | index("shared_spin_workload") != null' "$WORK/body" \
		>/dev/null || fail "$which: the profile does not name the workload: its names with" \
		"spin: $(jq -c '[.functions[].name | select(test("spin"))]' "$WORK/body")"
done

# ---- top asked through B, answered by the agent through A ----
on B 200 GET "/api/servers/$SID/top"
jq -e '.processes | length > 0' "$WORK/body" >/dev/null ||
	fail "top through B: $(head -c 600 "$WORK/body")"

# ---- Stop through B: a long capture ends early, what was sampled is delivered ----
on B 202 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 300}'
for _ in $(seq 300); do
	on A 200 GET "/api/servers/$SID/capture"
	jq -e '.running and .phase == "sampling" and .done > 0' "$WORK/body" >/dev/null && break
	sleep 0.1
done
jq -e '.running and .done > 0' "$WORK/body" >/dev/null ||
	fail "A never showed the capture asked through B sampling: $(cat "$WORK/body")"
on B 200 POST "/api/servers/$SID/capture/stop"
capture_done_on A
jq -e '.phase == "done" and (.profile_id | length) > 0' "$WORK/done.json" >/dev/null ||
	fail "the capture stopped through B ended as $(cat "$WORK/done.json")"
on B 200 GET "/api/profiles?server=shared-one"
[ "$(jq .total "$WORK/body")" = 2 ] || fail "B lists $(jq .total "$WORK/body") profiles, want 2"

# ---- Remove the server through B: the agent polling A hears it and exits ----
on B 200 DELETE "/api/servers/$SID"
for _ in $(seq 600); do
	kill -0 "$AGENT" 2>/dev/null || break
	sleep 0.1
done
! kill -0 "$AGENT" 2>/dev/null ||
	fail "the agent of the server removed through B still runs: $(tail -5 "$WORK/agent.err")"
wait "$AGENT" || fail "the removed server's agent exited $?: $(tail -5 "$WORK/agent.err")"
[ ! -e "$WORK/agent/profiler" ] || [ -z "$(ls -A "$WORK/agent/profiler")" ] ||
	fail "the removed server's agent left its profiler: $(ls "$WORK/agent/profiler")"

SERVE_PID=$PID_A stop_serve
SERVE_PID=$PID_B WORK=$WORK/b stop_serve
echo ok
