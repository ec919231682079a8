#!/usr/bin/env bash
# Many servers, one workspace: a workspace (`slideops serve`, its own data directory) and
# two resident agents (`slideops agent --name`, each its own --data) on loopback. For
# each agent: enrolment, connected in /api/servers, a capture from the API naming a
# known workload, Stop, Remove the profiler. Then the faults: the workspace killed
# (SIGKILL) while an agent samples and while it uploads, and down for 30 s: each profile
# arrives once; a replayed batch is stored once; a reused enrolment token is refused; an
# agent killed mid-capture leaves nothing of its pid attached after its next start; a
# deleted server's agent removes its profiler, its spool and its credential and exits 0,
# whether its poll or its sender (a capture in its spool) meets the removal first, also
# when it starts after the removal; an unknown credential stops the agent with exit 2
# saying why, keeping its data.
# The machine is shared with other profilers: BPF state is only ever looked at by pid.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload spin_agents_workload spin
cg=$(make_cgroup "system.slice/agents-spin.service")
start_in_cgroup "$cg" "$WORK/spin" >/dev/null
start_serve

# serve_again: serve on the same port and data directory after it was killed.
serve_again() {
	local i
	"$SLIDEOPS" serve --listen "127.0.0.1:$PORT" >"$WORK/serve.out" 2>>"$WORK/serve.err" &
	SERVE_PID=$!
	defer "kill -TERM $SERVE_PID 2>/dev/null; wait $SERVE_PID 2>/dev/null"
	for i in $(seq 100); do
		grep -q '^SlideOps is at' "$WORK/serve.out" 2>/dev/null && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || fail "serve did not start again: $(tail -5 "$WORK/serve.err")"
		sleep 0.1
	done
	fail "serve did not start again on port $PORT"
}

# new_token: a one-use enrolment token from the API.
new_token() {
	expect 201 POST /api/enrolments
	jq -e --arg b "$BASE" '.command | startswith("slideops agent --workspace " + $b + " --enrol-token ")' \
		"$WORK/body" >/dev/null || fail "the enrolment's command is $(jq -c .command "$WORK/body")"
	jq -r .token "$WORK/body"
}

# start_agent NAME [ARGS...]: an agent with --data $WORK/NAME; its pid in AGENT_PID[NAME].
declare -A AGENT_PID
start_agent() {
	local name=$1; shift
	"$SLIDEOPS" agent --workspace "$BASE" --name "$name" --data "$WORK/$name" "$@" \
		>>"$WORK/$name.out" 2>>"$WORK/$name.err" &
	AGENT_PID[$name]=$!
	defer "kill -TERM ${AGENT_PID[$name]} 2>/dev/null; wait ${AGENT_PID[$name]} 2>/dev/null"
}

# server_field NAME FIELD: FIELD of the server NAME in GET /api/servers.
server_field() {
	expect 200 GET /api/servers
	jq -r --arg n "$1" --arg f "$2" '.servers[] | select(.name == $n) | .[$f]' "$WORK/body"
}

# wait_connected NAME: the server NAME shows as connected; its id in SID.
wait_connected() {
	local i
	for i in $(seq 150); do
		[ "$(server_field "$1" status)" = connected ] && { SID=$(server_field "$1" id); return 0; }
		kill -0 "${AGENT_PID[$1]}" 2>/dev/null || fail "agent $1 exited: $(tail -5 "$WORK/$1.err")"
		sleep 0.2
	done
	fail "agent $1 never showed as connected: $(cat "$WORK/body"); its log: $(tail -5 "$WORK/$1.err")"
}

# profiles_total NAME: how many profiles of server NAME the workspace keeps.
profiles_total() {
	expect 200 GET "/api/profiles?server=$1"
	jq -r .total "$WORK/body"
}

# wait_total NAME N: the workspace keeps N profiles of NAME (waits for the spool).
wait_total() {
	local i
	for i in $(seq 900); do
		[ "$(profiles_total "$1")" = "$2" ] && return 0
		sleep 0.2
	done
	fail "server $1 has $(profiles_total "$1") profiles, want $2; agent log: $(tail -8 "$WORK/$1.err")"
}

# wait_sampling ID: the capture on server ID has sampled for a moment.
wait_sampling() {
	local i
	for i in $(seq 300); do
		expect 200 GET "/api/servers/$1/capture"
		jq -e '.running and .phase == "sampling" and .done > 0' "$WORK/body" >/dev/null && return 0
		sleep 0.1
	done
	fail "the capture on $1 never sampled: $(cat "$WORK/body")"
}

# wait_capture_done ID: the capture on ID ended; the progress document in $WORK/done.json.
wait_capture_done() {
	local i
	for i in $(seq 900); do
		expect 200 GET "/api/servers/$1/capture"
		[ "$(jq -r .running "$WORK/body")" = false ] && { cp "$WORK/body" "$WORK/done.json"; return 0; }
		sleep 0.2
	done
	fail "the capture on $1 never ended: $(cat "$WORK/body")"
}

# held_links PID: the BPF links process PID holds, from its descriptors' fdinfo.
held_links() {
	{ cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '$1 == "link_id:" { print $2 }' |
		sort -u
}

# Refusals that need no workspace: each exits 2 (1 for a data directory it cannot use)
# and says what to do.
agent_refused() { # agent_refused RC PATTERN ARGS...
	local want=$1 pattern=$2 rc=0
	shift 2
	"$SLIDEOPS" agent "$@" >"$WORK/refused.out" 2>"$WORK/refused.err" || rc=$?
	[ "$rc" = "$want" ] || fail "slideops agent $*: exit $rc, want $want: $(cat "$WORK/refused.err")"
	grep -q -- "$pattern" "$WORK/refused.err" ||
		fail "slideops agent $*: said '$(cat "$WORK/refused.err")', want /$pattern/"
}
agent_refused 2 "give the workspace with --workspace URL" --data "$WORK/none"
agent_refused 2 "is not a workspace URL" --workspace http://192.0.2.1:7070 --data "$WORK/none"
agent_refused 2 "not enrolled yet" --workspace "$BASE" --data "$WORK/none"
mkdir -m 700 "$WORK/real"
ln -s "$WORK/real" "$WORK/linked"
agent_refused 1 "is a symbolic link" --workspace "$BASE" --data "$WORK/linked"
mkdir -m 777 "$WORK/open"
agent_refused 1 "others may write it" --workspace "$BASE" --data "$WORK/open"
printf '{"server_id":"s","credential":"c","name":"n"}' > "$WORK/real/credential"
chmod 644 "$WORK/real/credential"
agent_refused 2 "others may read or write it" --workspace "$BASE" --data "$WORK/real"
"$SLIDEOPS" agent --help | has -- "--enrol-token TOKEN" || fail "agent --help does not show --enrol-token"

for name in alpha beta; do
	# Enrolment: once, with the token; the credential kept 0600.
	token=$(new_token)
	start_agent "$name" --enrol-token "$token"
	wait_connected "$name"
	[ "$(stat -c %a "$WORK/$name/credential")" = 600 ] || fail "$name's credential is $(stat -c %a "$WORK/$name/credential")"
	[ "$(server_field "$name" kernel)" = "$(uname -r)" ] || fail "$name's kernel shows as $(server_field "$name" kernel)"
	[ -n "$(server_field "$name" agent_version)" ] || fail "$name shows no agent version"
	[ "$(server_field "$name" this_server)" = false ] || fail "$name shows as this server"
	eval "SID_$name=$SID"

	# A capture from the API, on the agent's server, naming the workload.
	expect 202 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 3}'
	wait_capture_done "$SID"
	jq -e '.phase == "done" and (.profile_id | length) > 0 and .error == null' "$WORK/done.json" \
		>/dev/null || fail "the capture on $name ended as $(cat "$WORK/done.json")"
	# The first capture after a start installs the profiler, and says so.
	jq -e '.note | test("installing the profiler")' "$WORK/done.json" >/dev/null ||
		fail "the first capture on $name did not say it installs the profiler: $(cat "$WORK/done.json")"
	id=$(jq -r .profile_id "$WORK/done.json")
	expect 200 GET "/api/profiles/$id"
	jq -e '[.functions[].name] | index("agents_spin_workload") != null' "$WORK/body" >/dev/null ||
		fail "$name's profile does not name the workload: $(jq -c '[.functions[].name][:12]' "$WORK/body")"
	jq -e 'any(.groups[]; .label == "Unit agents-spin.service")' "$WORK/body" >/dev/null ||
		fail "$name's profile has no group of the workload's unit: $(jq -c '[.groups[].label]' "$WORK/body")"
	[ "$(profiles_total "$name")" = 1 ] || fail "$name has $(profiles_total "$name") profiles after one capture"

	# Check and top answer for the agent's server as for this one. Check loads a program
	# of every question; on a loaded machine that can take longer than the workspace
	# waits for an agent's answer (504), so a 504 is asked again, a few times.
	for i in 1 2 3 4 5; do
		code=$(api GET "/api/servers/$SID/check") || code=none
		[ "$code" = 504 ] || break
	done
	[ "$code" = 200 ] || fail "check on $name: HTTP $code: $(head -c 300 "$WORK/body")"
	jq -e '.can_profile == true and (.requirements | length) > 0' "$WORK/body" >/dev/null ||
		fail "check on $name: $(head -c 300 "$WORK/body")"
	expect 200 GET "/api/servers/$SID/top"
	jq -e '.processes | length > 0' "$WORK/body" >/dev/null || fail "top on $name: $(head -c 300 "$WORK/body")"

	# Stop: sampling ends early, what was sampled is delivered.
	expect 202 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 300}'
	wait_sampling "$SID"
	expect 409 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 3}'
	expect 200 POST "/api/servers/$SID/capture/stop"
	wait_capture_done "$SID"
	jq -e '.phase == "done" and (.profile_id | length) > 0' "$WORK/done.json" >/dev/null ||
		fail "the stopped capture on $name ended as $(cat "$WORK/done.json")"
	wait_total "$name" 2

	# Remove the profiler: DATA/profiler is gone, and the answer says so.
	[ -d "$WORK/$name/profiler" ] || fail "$name has no profiler directory after two captures"
	expect 200 POST "/api/servers/$SID/remove"
	jq -e --arg p "$WORK/$name/profiler" 'any(.removed[]; .path == $p)' "$WORK/body" >/dev/null ||
		fail "Remove the profiler on $name answered $(cat "$WORK/body")"
	[ ! -e "$WORK/$name/profiler" ] || fail "$name's profiler directory is still there after Remove"
done
SID_alpha=$(server_field alpha id)
SID_beta=$(server_field beta id)

# A used enrolment token is refused, and the agent says so and exits 2.
rc=0
"$SLIDEOPS" agent --workspace "$BASE" --name gamma --data "$WORK/gamma" --enrol-token "$token" \
	>"$WORK/gamma.out" 2>"$WORK/gamma.err" || rc=$?
[ "$rc" = 2 ] || fail "an agent with a used token exited $rc: $(cat "$WORK/gamma.err")"
grep -q "refused the enrolment token" "$WORK/gamma.err" || fail "the used token's refusal said: $(cat "$WORK/gamma.err")"
[ ! -e "$WORK/gamma/credential" ] || fail "a refused enrolment left a credential"
[ "$(server_field gamma id)" = "" ] || fail "a refused enrolment added a server"

# The workspace killed (SIGKILL) while alpha samples, then started again: the capture
# goes on, and its profile arrives once.
before=$(profiles_total alpha)
expect 202 POST "/api/servers/$SID_alpha/capture" -d '{"question": "cpu", "seconds": 4}'
wait_sampling "$SID_alpha"
kill -KILL "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
sleep 2
serve_again
wait_total alpha $((before + 1))
sleep 3
[ "$(profiles_total alpha)" = $((before + 1)) ] || fail "the profile arrived more than once: $(profiles_total alpha)"

# The workspace killed while beta uploads: stopped (SIGSTOP) before the capture ends, so
# the batch is sent and no reply comes, killed, started again: the profile arrives once.
before=$(profiles_total beta)
expect 202 POST "/api/servers/$SID_beta/capture" -d '{"question": "cpu", "seconds": 3}'
wait_sampling "$SID_beta"
spooled=$(grep -c "kept in the spool" "$WORK/beta.err" || true)
kill -STOP "$SERVE_PID"
for i in $(seq 300); do
	[ "$(grep -c "kept in the spool" "$WORK/beta.err" || true)" -gt "$spooled" ] && break
	sleep 0.1
done
[ "$(grep -c "kept in the spool" "$WORK/beta.err" || true)" -gt "$spooled" ] ||
	fail "beta never spooled its capture: $(tail -5 "$WORK/beta.err")"
# The batch it now sends meets a workspace that reads nothing; keep a copy to replay.
sleep 1
cp "$WORK"/beta/spool/batch-*.pb "$WORK/replay.pb" 2>/dev/null || fail "no batch waits in beta's spool"
kill -KILL "$SERVE_PID"; kill -CONT "$SERVE_PID" 2>/dev/null || true
wait "$SERVE_PID" 2>/dev/null || true
serve_again
wait_total beta $((before + 1))
sleep 3
[ "$(profiles_total beta)" = $((before + 1)) ] || fail "beta's profile arrived more than once: $(profiles_total beta)"

# A replayed batch (the same boot id and sequence, from beta's spool) is stored once.
kill -TERM "${AGENT_PID[beta]}"; wait "${AGENT_PID[beta]}" || fail "beta did not exit 0 on SIGTERM"
cp "$WORK/replay.pb" "$WORK/beta/spool/batch-replayed-00000000000000000001.pb"
delivered=$(grep -c "was stored already" "$WORK/beta.err" || true)
start_agent beta
for i in $(seq 300); do
	[ "$(grep -c "was stored already" "$WORK/beta.err" || true)" -gt "$delivered" ] && break
	sleep 0.1
done
[ "$(grep -c "was stored already" "$WORK/beta.err" || true)" -gt "$delivered" ] ||
	fail "the replayed batch was not answered as a duplicate: $(tail -5 "$WORK/beta.err")"
[ "$(profiles_total beta)" = $((before + 1)) ] || fail "a replayed batch was stored again"
[ -z "$(ls "$WORK/beta/spool/" | grep '^batch-')" ] || fail "beta's spool keeps delivered batches: $(ls "$WORK/beta/spool")"

# The workspace down for 8 s while alpha captures (its 2 s capture ends while nobody
# answers): the capture arrives after.
before=$(profiles_total alpha)
expect 202 POST "/api/servers/$SID_alpha/capture" -d '{"question": "cpu", "seconds": 2}'
wait_sampling "$SID_alpha"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
sleep 8
serve_again
wait_total alpha $((before + 1))

# An agent killed (SIGKILL) mid-capture: after its next start, nothing of it is
# attached: not the programs the killed one held, no link of either pid.
expect 202 POST "/api/servers/$SID_alpha/capture" -d '{"question": "cpu", "seconds": 60}'
wait_sampling "$SID_alpha"
old=${AGENT_PID[alpha]}
held=$(held_programs "$old")
links=$(held_links "$old")
[ -n "$held" ] || fail "alpha holds no BPF program while it samples"
[ -n "$links" ] || fail "alpha holds no BPF link while it samples"
kill -KILL "$old"; wait "$old" 2>/dev/null || true
start_agent alpha
wait_connected alpha
assert_unloaded "the agent was killed and started again" "$held"
for l in $links; do
	! bpftool link show id "$l" >/dev/null 2>&1 ||
		fail "link $l of the killed agent ($old) is still attached after its next start"
done
[ -z "$(held_links "${AGENT_PID[alpha]}")" ] ||
	fail "the agent started again holds links while not capturing: $(held_links "${AGENT_PID[alpha]}")"

# An unknown credential (of its form, never given by this workspace): the agent stops
# with exit 2 and says what to do; its credential and the capture in its spool stay.
mkdir -m 700 "$WORK/unknown" "$WORK/unknown/spool"
printf '{"server_id":"s0","credential":"%064d","name":"unknown"}' 7 > "$WORK/unknown/credential"
chmod 600 "$WORK/unknown/credential"
cp "$WORK/replay.pb" "$WORK/unknown/spool/batch-copied-00000000000000000001.pb"
rc=0
timeout 120 "$SLIDEOPS" agent --workspace "$BASE" --data "$WORK/unknown" \
	>"$WORK/unknown.out" 2>"$WORK/unknown.err" || rc=$?
[ "$rc" = 2 ] || fail "an agent with an unknown credential exited $rc: $(cat "$WORK/unknown.err")"
grep -q "does not accept this agent's credential.*enrol again with a new token" \
	"$WORK/unknown.err" || fail "the unknown credential's refusal said: $(cat "$WORK/unknown.err")"
[ -e "$WORK/unknown/credential" ] &&
	[ -e "$WORK/unknown/spool/batch-copied-00000000000000000001.pb" ] ||
	fail "a refused agent did not keep its data: $(ls -R "$WORK/unknown")"

# copy_beta DIR: a copy of beta's data directory (its credential, the profiler its
# captures installed) whose spool holds one finished capture.
copy_beta() {
	rm -rf "${WORK:?}/$1"
	cp -a "$WORK/beta" "$WORK/$1"
	rm -f "$WORK/$1"/spool/batch-*.pb
	cp "$WORK/replay.pb" "$WORK/$1/spool/batch-copied-00000000000000000001.pb"
	[ -d "$WORK/$1/profiler" ] || fail "beta has no profiler directory to copy"
}
# stand_in STATUS: a stand-in workspace on loopback (its port in STAND_IN) that holds
# every poll for 40 s (the agent waits 45) and answers a batch with STATUS and an error
# document, so that the agent's sender, delivering its spool, meets that answer before
# its poll does, however loaded the machine. (What the workspace answers is asserted in
# serve_agents.sh.)
stand_in() {
	local i
	: > "$WORK/stand-in.log"
	python3 - "$1" >"$WORK/stand-in.port" 2>"$WORK/stand-in.log" <<'PY' &
import http.server, json, sys, time
status = int(sys.argv[1])
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length') or 0))
        code, kind, body = 200, 'application/x-protobuf', b''
        if self.path == '/agent/poll':
            time.sleep(40)
        elif self.path == '/agent/batch':
            code, kind = status, 'application/json'
            body = json.dumps({'error': 'the stand-in answers %d' % status, 'hint': None}).encode()
        self.send_response(code)
        self.send_header('Content-Type', kind)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
    def log_message(self, fmt, *args):
        sys.stderr.write(self.requestline + ' -> %s\n' % (args[1] if len(args) > 1 else ''))
        sys.stderr.flush()
http.server.ThreadingHTTPServer.daemon_threads = True
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
	STAND_IN_PID=$!
	defer "kill $STAND_IN_PID 2>/dev/null; wait $STAND_IN_PID 2>/dev/null"
	for i in $(seq 100); do
		STAND_IN=$(cat "$WORK/stand-in.port")
		[ -n "$STAND_IN" ] && return 0
		sleep 0.1
	done
	fail "the stand-in workspace did not start: $(cat "$WORK/stand-in.log")"
}
# stand_in_run DIR STATUS: the agent of DIR against the stand-in, whose batch met STATUS;
# its exit status in RC.
stand_in_run() {
	RC=0
	timeout 120 "$SLIDEOPS" agent --workspace "http://127.0.0.1:$STAND_IN" --data "$WORK/$1" \
		>"$WORK/$1.out" 2>"$WORK/$1.err" || RC=$?
	kill "$STAND_IN_PID" 2>/dev/null; wait "$STAND_IN_PID" 2>/dev/null || true
	grep -q "POST /agent/batch HTTP/1.1 -> $2" "$WORK/stand-in.log" ||
		fail "the agent's sender did not meet $2: the stand-in saw $(cat "$WORK/stand-in.log")"
}

# The sender meets 410 (the server was removed) first: the agent removes the profiler,
# the spool and the credential and exits 0, as when its poll meets it.
copy_beta removed-first
stand_in 410
stand_in_run removed-first 410
[ "$RC" = 0 ] || fail "an agent whose batch met 410 exited $RC: $(cat "$WORK/removed-first.err")"
grep -q "was removed from the workspace" "$WORK/removed-first.out" ||
	fail "the agent whose batch met 410 did not say it was removed: $(cat "$WORK/removed-first".*)"
for gone in profiler spool credential; do
	[ ! -e "$WORK/removed-first/$gone" ] || fail "an agent whose batch met 410 kept its $gone"
done
# The sender meets 401 first: exit 2, saying why; its data stays.
copy_beta refused-first
stand_in 401
stand_in_run refused-first 401
[ "$RC" = 2 ] || fail "an agent whose batch met 401 exited $RC: $(cat "$WORK/refused-first.err")"
grep -q "does not accept this agent's credential (the stand-in answers 401)" \
	"$WORK/refused-first.err" ||
	fail "the agent whose batch met 401 said: $(cat "$WORK/refused-first.err")"
[ -d "$WORK/refused-first/profiler" ] && [ -e "$WORK/refused-first/credential" ] &&
	[ -e "$WORK/refused-first/spool/batch-copied-00000000000000000001.pb" ] ||
	fail "an agent whose batch met 401 did not keep its data: $(ls "$WORK/refused-first")"

# A deleted server: its agent removes the profiler, its spool and its credential, and
# exits 0 saying so.
expect 202 POST "/api/servers/$SID_beta/capture" -d '{"question": "cpu", "seconds": 1}'
wait_capture_done "$SID_beta"
[ -d "$WORK/beta/profiler" ] || fail "beta has no profiler directory after a capture"
copy_beta beta-later
before=$(profiles_total beta)
expect 200 DELETE "/api/servers/$SID_beta"
rc=0
for i in $(seq 600); do kill -0 "${AGENT_PID[beta]}" 2>/dev/null || break; sleep 0.1; done
wait "${AGENT_PID[beta]}" || rc=$?
[ "$rc" = 0 ] || fail "the deleted server's agent exited $rc: $(tail -5 "$WORK/beta.err")"
grep -q "was removed from the workspace" "$WORK/beta.out" || fail "beta did not say it was removed: $(cat "$WORK/beta.out")"
[ ! -e "$WORK/beta/profiler" ] || fail "the deleted server's profiler directory is still there"
[ ! -e "$WORK/beta/credential" ] || fail "the deleted server's credential is still there"
[ "$(server_field beta status)" = removed ] || fail "beta shows as $(server_field beta status)"
# Its agent started after the removal, a capture in its spool: its poll and its sender
# both meet the removal at once; whichever is first, it cleans up once and exits 0, and
# the capture is not stored.
rc=0
timeout 120 "$SLIDEOPS" agent --workspace "$BASE" --data "$WORK/beta-later" \
	>"$WORK/beta-later.out" 2>"$WORK/beta-later.err" || rc=$?
[ "$rc" = 0 ] ||
	fail "the deleted server's agent started again exited $rc: $(cat "$WORK/beta-later.err")"
[ "$(grep -c "was removed from the workspace" "$WORK/beta-later.out")" = 1 ] ||
	fail "the agent started after its removal did not say so once: $(cat "$WORK/beta-later.out")"
for gone in profiler spool credential; do
	[ ! -e "$WORK/beta-later/$gone" ] || fail "the agent started after its removal kept its $gone"
done
[ "$(profiles_total beta)" = "$before" ] || fail "a removed server's spooled capture was stored"

# alpha is unaffected, and ends cleanly on SIGTERM.
[ "$(server_field alpha status)" = connected ] || fail "alpha shows as $(server_field alpha status)"
kill -TERM "${AGENT_PID[alpha]}"
wait "${AGENT_PID[alpha]}" || fail "alpha did not exit 0 on SIGTERM: $(tail -5 "$WORK/alpha.err")"
stop_serve
echo "agents: ok"
