#!/usr/bin/env bash
# The workspace's side of the agent protocol (docs/protocol.md), driven with curl as an
# agent would, with messages built by tests/tools/agent_msg: Add a server gives a command
# and a one-use token (used again: 401); the enrolled server is listed connected; a
# capture asked for in the API reaches the agent's poll (held open) as CAPTURE, its
# progress is the API's, its batch sent twice is stored once, under the server's name,
# named by the symbol table it carried, and the spool drops it reports are listed once
# (a refused batch's not at all); top is answered by the agent, or 504 when it
# does not answer; Stop reaches the poll; a capture its restarted agent no longer runs
# fails; a server not heard from for 90 s is unreachable (503 at once); Remove the
# profiler waits for the capture (409); a deleted server's credential gets 410 and why on
# every path (a poll held open too) from a version 2 agent, 401 and REMOVED in its poll
# from a version 1 agent, while an unknown credential gets 401;
# the UI token is no agent credential and an agent's credential opens no /api path;
# an unknown protocol version gets 426; a damaged profile is refused, keeping nothing;
# serve killed with SIGKILL mid-batch keeps nothing of it (its drops not counted), and the
# batch sent again after is stored once, the drops counted before still listed. Then
# enrolment, a batch twice and removal on a PostgreSQL workspace, its drops listed once by
# a second serve on the same database and by the first started again.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
MSG=${AGENT_MSG:-$(dirname "$SLIDEOPS")/tests/agent_msg}
[ -x "$MSG" ] || fail "$MSG is not built (make all builds it)"

start_serve

# agent PATH CREDENTIAL MESSAGE-FILE [REPLY-TYPE]: POSTs the message as an agent; prints
# the status; the reply (decoded when REPLY-TYPE is given and the status is 200) is in
# $WORK/reply.
agent() {
	local path=$1 cred=$2 body=$3 type=${4:-} code
	code=$(curl -s -o "$WORK/reply.bin" -w '%{http_code}' -X POST \
		-H 'Content-Type: application/x-protobuf' ${cred:+-H "Authorization: Bearer $cred"} \
		--data-binary "@$body" "$BASE$path")
	if [ "$code" = 200 ] && [ -n "$type" ]; then
		"$MSG" decode "$type" < "$WORK/reply.bin" > "$WORK/reply" ||
			fail "$path: the reply is not a $type"
	else
		cp "$WORK/reply.bin" "$WORK/reply"
	fi
	echo "$code"
}
expect_agent() { # expect_agent STATUS PATH CREDENTIAL FILE [TYPE]
	local want=$1 got; shift
	got=$(agent "$@")
	[ "$got" = "$want" ] || fail "POST $1: HTTP $got, want $want: $(head -c 400 "$WORK/reply")"
}
# dropped_is SERVER-ID N WHEN: the servers' list says the server's agent dropped N
# captures from its spool (as its stored batches reported).
dropped_is() {
	expect 200 GET /api/servers
	jq -e --arg id "$1" --argjson n "$2" '.servers[] | select(.id == $id) |
		.spool_dropped == $n' "$WORK/body" >/dev/null ||
		fail "$3: the list's spool_dropped of $1 is not $2: $(cat "$WORK/body")"
}

# ---- Add a server ----
expect 201 POST /api/enrolments
ET=$(jq -r .token "$WORK/body")
jq -e --arg t "$ET" --arg b "$BASE" '.command == "slideops agent --workspace \($b) --enrol-token \($t)"
	and (.expires_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T"))' "$WORK/body" >/dev/null ||
	fail "the enrolment does not give the command to run: $(cat "$WORK/body")"
# A name with markup and a quote: kept as written, escaped where shown.
NAME='db <b>"one"</b>'
"$MSG" encode EnrolRequest protocol_version=1 enrolment_token="$ET" name="$NAME" \
	hostname=db-host machine_id=0123abcd kernel=6.18.0-test cpus=4 agent_version=0.1.0 \
	boot_id=boot-1 > "$WORK/enrol.bin"
expect_agent 200 /agent/enrol "" "$WORK/enrol.bin" EnrolReply
CRED=$(jq -r .credential "$WORK/reply")
SID=$(jq -r .server_id "$WORK/reply")
[ "$(jq -r .name "$WORK/reply")" = "$NAME" ] || fail "the name kept is not the one sent: $(cat "$WORK/reply")"
[ ${#CRED} = 64 ] || fail "no credential in $(cat "$WORK/reply")"
# The token is used: refused, and no second server appears.
expect_agent 401 /agent/enrol "" "$WORK/enrol.bin"
grep -q "enrolment token is unknown, used or expired" "$WORK/reply" ||
	fail "a used token's refusal does not say why: $(cat "$WORK/reply")"
expect 200 GET /api/servers
jq -e --arg id "$SID" --arg n "$NAME" '(.servers | length) == 2 and .servers[0].this_server
	and (.servers[] | select(.id == $id) | .name == $n and .status == "connected"
	     and .kernel == "6.18.0-test" and .agent_version == "0.1.0" and .last_seen != null
	     and .this_server == false and .spool_dropped == 0)' "$WORK/body" >/dev/null ||
	fail "the new server is not listed connected: $(cat "$WORK/body")"

# ---- who may use which paths ----
"$MSG" encode PollRequest protocol_version=1 boot_id=boot-1 wait_ms=20000 \
	kernel=6.18.1-test agent_version=0.1.1 > "$WORK/poll.bin"
expect_agent 401 /agent/poll "$TOKEN" "$WORK/poll.bin"
expect_agent 401 /agent/poll "" "$WORK/poll.bin"
code=$(curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $CRED" "$BASE/api/servers")
[ "$code" = 401 ] || fail "an agent's credential opened /api/servers (HTTP $code)"
code=$(curl -s -o "$WORK/body" -w '%{http_code}' -X POST -H "Origin: $BASE" \
	-H "Authorization: Bearer $CRED" --data-binary "@$WORK/poll.bin" "$BASE/agent/poll")
[ "$code" = 403 ] || fail "a browser's request (Origin) reached /agent/poll (HTTP $code)"
"$MSG" encode PollRequest protocol_version=99 > "$WORK/v99.bin"
expect_agent 426 /agent/poll "$CRED" "$WORK/v99.bin"
grep -q "accepts 1 to 2" "$WORK/reply" || fail "426 does not say the versions: $(cat "$WORK/reply")"

# ---- a capture through the poll ----
agent /agent/poll "$CRED" "$WORK/poll.bin" PollReply > "$WORK/poll.code" &
POLL=$!
sleep 0.5
curl -s -o "$WORK/capture" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	-d '{"question": "cpu", "seconds": 5}' "$BASE/api/servers/$SID/capture" > "$WORK/capture.code" &
CAPTURE=$!
wait "$POLL"
[ "$(cat "$WORK/poll.code")" = 200 ] || fail "the poll: HTTP $(cat "$WORK/poll.code")"
jq -e '.commands | length == 1 and .[0].kind == "CAPTURE" and .[0].question == "cpu"
	and .[0].seconds == 5 and .[0].capture_id != ""' "$WORK/reply" >/dev/null ||
	fail "the poll did not bring the capture: $(cat "$WORK/reply")"
KID=$(jq -r '.commands[0].capture_id' "$WORK/reply")
"$MSG" encode Progress protocol_version=1 capture_id="$KID" phase=sampling done=1000 \
	total=5000 note="the first capture installs the profiler" > "$WORK/progress.bin"
expect_agent 200 /agent/progress "$CRED" "$WORK/progress.bin" Ack
wait "$CAPTURE"
[ "$(cat "$WORK/capture.code")" = 202 ] ||
	fail "capture on the agent's server: HTTP $(cat "$WORK/capture.code"): $(cat "$WORK/capture")"
jq -e '.running and .phase == "sampling" and .question == "cpu"' "$WORK/capture" >/dev/null ||
	fail "the capture's progress: $(cat "$WORK/capture")"
# Heard from: what the poll said is kept.
expect 200 GET "/api/servers/$SID"
jq -e '.kernel == "6.18.1-test" and .agent_version == "0.1.1" and .capturing' "$WORK/body" \
	>/dev/null || fail "the poll's kernel and version are not kept: $(cat "$WORK/body")"
# One capture at a time, as on this server; the profiler stays while it runs.
expect 409 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 5}'
grep -q "is already capturing" "$WORK/body" || fail "409 does not name the capture: $(cat "$WORK/body")"
expect 409 POST "/api/servers/$SID/remove"
# Stop reaches the agent's next poll.
expect 200 POST "/api/servers/$SID/capture/stop"
jq -e '.stopping' "$WORK/body" >/dev/null || fail "stop: $(cat "$WORK/body")"
expect_agent 200 /agent/poll "$CRED" "$WORK/poll.bin" PollReply
jq -e --arg k "$KID" '.commands[0].kind == "STOP" and .commands[0].capture_id == $k' \
	"$WORK/reply" >/dev/null || fail "the poll did not bring Stop: $(cat "$WORK/reply")"

# ---- its batch, twice ----
# It reports 3 captures its agent's spool dropped: counted when it is stored, not again.
"$MSG" profile db-host > "$WORK/profile.pb.gz"
"$MSG" batch boot-1 1 "$KID" "$WORK/profile.pb.gz" 'work_<script>' 1 3 > "$WORK/batch.bin"
expect_agent 200 /agent/batch "$CRED" "$WORK/batch.bin" BatchReply
jq -e '.duplicate == false and .profile_id != ""' "$WORK/reply" >/dev/null ||
	fail "the batch was not stored: $(cat "$WORK/reply")"
PID1=$(jq -r .profile_id "$WORK/reply")
dropped_is "$SID" 3 "a batch reporting 3 spool drops"
expect_agent 200 /agent/batch "$CRED" "$WORK/batch.bin" BatchReply
jq -e --arg p "$PID1" '.duplicate == true and .profile_id == $p' "$WORK/reply" >/dev/null ||
	fail "the batch sent again was not told apart: $(cat "$WORK/reply")"
dropped_is "$SID" 3 "the batch sent again"
expect 200 GET "/api/profiles?server=$(jq -rn --arg n "$NAME" '$n | @uri')"
jq -e --arg p "$PID1" --arg n "$NAME" '.total == 1 and .profiles[0].id == $p
	and .profiles[0].server == $n and (.profiles[0].answer | contains("work_<script>"))' \
	"$WORK/body" >/dev/null || fail "the batch is not listed once under its server: $(cat "$WORK/body")"
expect 200 GET /api/profiles
[ "$(jq .total "$WORK/body")" = 1 ] || fail "a batch sent twice was stored twice: $(cat "$WORK/body")"
expect 200 GET "/api/servers/$SID/capture"
jq -e --arg p "$PID1" '.running == false and .phase == "done" and .profile_id == $p' \
	"$WORK/body" >/dev/null || fail "the capture did not end with its profile: $(cat "$WORK/body")"
expect 200 GET "/api/servers/$SID/profiles"
[ "$(jq .total "$WORK/body")" = 1 ] || fail "the server's profiles: $(cat "$WORK/body")"
# A second server's capture compares with the first's, each named by its server.
expect 201 POST /api/enrolments
"$MSG" encode EnrolRequest protocol_version=1 enrolment_token="$(jq -r .token "$WORK/body")" \
	name=web-2 hostname=web-host kernel=6.18.0 agent_version=0.1.0 boot_id=b2 > "$WORK/enrol2.bin"
expect_agent 200 /agent/enrol "" "$WORK/enrol2.bin" EnrolReply
CRED2=$(jq -r .credential "$WORK/reply")
SID2=$(jq -r .server_id "$WORK/reply")
expect_agent 200 /agent/batch "$CRED2" "$WORK/batch.bin" BatchReply
PID2=$(jq -r .profile_id "$WORK/reply")
[ "$PID2" != "$PID1" ] || fail "one batch of two servers was stored as one"
# Each server's drops are its own.
dropped_is "$SID2" 3 "web-2's batch"
dropped_is "$SID" 3 "web-2's batch, as db's"
expect 200 GET "/api/compare?a=$PID1&b=$PID2"
jq -e --arg n "$NAME" '.before.server == $n and .after.server == "web-2"' "$WORK/body" >/dev/null ||
	fail "compare across servers: $(head -c 600 "$WORK/body")"
expect 200 DELETE "/api/profiles/$PID2"
# The next sequence is a new capture; a damaged profile keeps nothing (nor counts the
# drops it reports); the next batch's drops add to the server's.
head -c $(($(stat -c %s "$WORK/profile.pb.gz") / 2)) "$WORK/profile.pb.gz" > "$WORK/cut.pb.gz"
"$MSG" batch boot-1 2 "" "$WORK/cut.pb.gz" 'work' 1 50 > "$WORK/cut.bin"
expect_agent 400 /agent/batch "$CRED" "$WORK/cut.bin"
grep -q "not a whole profile" "$WORK/reply" || fail "a cut profile: $(cat "$WORK/reply")"
dropped_is "$SID" 3 "a refused batch"
"$MSG" batch boot-1 2 "" "$WORK/profile.pb.gz" 'work' 1 2 > "$WORK/batch2.bin"
expect_agent 200 /agent/batch "$CRED" "$WORK/batch2.bin" BatchReply
expect 200 GET /api/profiles
[ "$(jq .total "$WORK/body")" = 2 ] || fail "the next batch: $(cat "$WORK/body")"
dropped_is "$SID" 5 "the next batch, reporting 2"

# ---- check and top through the agent ----
agent /agent/poll "$CRED" "$WORK/poll.bin" PollReply > "$WORK/poll.code" &
POLL=$!
sleep 0.5
api GET "/api/servers/$SID/top?n=3" > "$WORK/top.code" &
TOP=$!
wait "$POLL"
jq -e '.commands[0].kind == "TOP" and .commands[0].top == 3' "$WORK/reply" >/dev/null ||
	fail "the poll did not bring top: $(cat "$WORK/reply")"
CID=$(jq -r '.commands[0].command_id' "$WORK/reply")
"$MSG" encode CommandReply protocol_version=1 command_id="$CID" http_status=200 \
	document_json='{"processes": [{"pid": 7, "comm": "<img>", "cpu_percent": 1.5, "group": null}]}' \
	> "$WORK/top.bin"
expect_agent 200 /agent/reply "$CRED" "$WORK/top.bin" Ack
wait "$TOP"
[ "$(cat "$WORK/top.code")" = 200 ] && jq -e '.processes[0].comm == "<img>"' "$WORK/body" >/dev/null ||
	fail "top through the agent: HTTP $(cat "$WORK/top.code"): $(cat "$WORK/body")"
# Nobody answers: 504, saying what to check.
expect 504 GET "/api/servers/$SID/top"
grep -q "did not answer within 45 seconds" "$WORK/body" || fail "504: $(cat "$WORK/body")"

# ---- a server not heard from for 90 s: unreachable, and said so at once ----
expect 201 POST /api/enrolments
"$MSG" encode EnrolRequest protocol_version=1 enrolment_token="$(jq -r .token "$WORK/body")" \
	name=quiet hostname=quiet-host kernel=6.18.0 agent_version=0.1.0 boot_id=q > "$WORK/enrol3.bin"
expect_agent 200 /agent/enrol "" "$WORK/enrol3.bin" EnrolReply
SID3=$(jq -r .server_id "$WORK/reply")
# Its last poll, moved back by the workspace's own index (as a shut-down agent leaves it).
sqlite3 "$SLIDEOPS_DATA/workspace.db" \
	"UPDATE servers SET last_seen_ns = last_seen_ns - 100000000000 WHERE id = '$SID3'" ||
	fail "could not age the server's last poll"
expect 200 GET "/api/servers/$SID3"
jq -e '.status == "unreachable"' "$WORK/body" >/dev/null || fail "not unreachable: $(cat "$WORK/body")"
expect 503 POST "/api/servers/$SID3/capture" -d '{"question": "cpu", "seconds": 5}'
grep -q "quiet is unreachable: its agent was last heard from" "$WORK/body" ||
	fail "503 does not say why: $(cat "$WORK/body")"
expect 503 GET "/api/servers/$SID3/check"

# ---- a poll's wait ends empty ----
"$MSG" encode PollRequest protocol_version=1 boot_id=boot-1 wait_ms=1000 > "$WORK/short.bin"
expect_agent 200 /agent/poll "$CRED" "$WORK/short.bin" PollReply
jq -e '.commands | length == 0' "$WORK/reply" >/dev/null || fail "an idle poll: $(cat "$WORK/reply")"

# ---- an agent restarted while it sampled: its capture failed, the next may start ----
agent /agent/poll "$CRED" "$WORK/poll.bin" PollReply > "$WORK/poll.code" &
POLL=$!
sleep 0.5
api POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 60}' > "$WORK/capture.code" &
CAPTURE=$!
wait "$POLL"
KID=$(jq -r '.commands[0].capture_id' "$WORK/reply")
"$MSG" encode Progress protocol_version=1 capture_id="$KID" phase=sampling done=1 \
	total=60000 > "$WORK/progress2.bin"
expect_agent 200 /agent/progress "$CRED" "$WORK/progress2.bin" Ack
wait "$CAPTURE"
sleep 3.5 # past the grace after its last progress
expect_agent 200 /agent/poll "$CRED" "$WORK/short.bin" PollReply
expect 200 GET "/api/servers/$SID/capture"
jq -e '.running == false and .phase == "failed" and (.error | contains("restarted"))' \
	"$WORK/body" >/dev/null || fail "a capture its agent lost still runs: $(cat "$WORK/body")"

# ---- serve killed mid-batch: nothing kept; sent again after a restart, stored once ----
"$MSG" batch boot-1 3 "" "$WORK/profile.pb.gz" 'work' 1 7 > "$WORK/batch3.bin"
python3 - "$PORT" "$CRED" "$WORK/batch3.bin" > "$WORK/half.out" <<'PY' &
import socket, sys, time
port, cred, body = int(sys.argv[1]), sys.argv[2], open(sys.argv[3], 'rb').read()
s = socket.create_connection(('127.0.0.1', port))
s.sendall(b'POST /agent/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ' +
          cred.encode() + b'\r\nContent-Length: %d\r\n\r\n' % len(body) + body[:len(body) // 2])
print('half sent', flush=True)
time.sleep(30)
PY
HALF=$!
for i in $(seq 100); do grep -q 'half sent' "$WORK/half.out" && break; sleep 0.1; done
sleep 0.3
kill -9 "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
kill "$HALF" 2>/dev/null || true
start_serve
expect 200 GET /api/profiles
[ "$(jq .total "$WORK/body")" = 2 ] || fail "a batch cut by a kill was kept: $(cat "$WORK/body")"
# The drops counted before the restart are kept; the cut batch's are not counted.
dropped_is "$SID" 5 "serve started again"
dropped_is "$SID2" 3 "serve started again (web-2)"
expect_agent 200 /agent/batch "$CRED" "$WORK/batch3.bin" BatchReply
expect_agent 200 /agent/batch "$CRED" "$WORK/batch3.bin" BatchReply
jq -e '.duplicate' "$WORK/reply" >/dev/null || fail "the batch after the restart: $(cat "$WORK/reply")"
expect 200 GET /api/profiles
[ "$(jq .total "$WORK/body")" = 3 ] || fail "the batch after the restart: $(cat "$WORK/body")"
dropped_is "$SID" 12 "the cut batch sent again twice after the restart, reporting 7"

# ---- the server removed ----
# Version 2: one answer on every path, 410 saying the server was removed; the poll held
# open when it is removed gets it at once.
"$MSG" encode PollRequest protocol_version=2 boot_id=boot-1 wait_ms=20000 > "$WORK/poll2.bin"
"$MSG" encode PollRequest protocol_version=2 boot_id=boot-1 wait_ms=1000 > "$WORK/short2.bin"
"$MSG" encode Progress protocol_version=2 capture_id=k phase=sampling > "$WORK/progress2v.bin"
"$MSG" encode CommandReply protocol_version=2 command_id=c http_status=200 \
	document_json='{}' > "$WORK/reply2v.bin"
"$MSG" encode SymbolsWanted protocol_version=2 build_ids=b00c0ffee0 > "$WORK/wanted2v.bin"
"$MSG" batch boot-1 4 "" "$WORK/profile.pb.gz" 'work' 2 > "$WORK/batch4v2.bin"
# Before: a version 2 agent is served as any (its batch stored), and an unknown
# credential gets 401.
expect_agent 200 /agent/batch "$CRED" "$WORK/batch4v2.bin" BatchReply
jq -e '.duplicate == false' "$WORK/reply" >/dev/null || fail "a version 2 batch: $(cat "$WORK/reply")"
UNKNOWN=$(printf '%064d' 7)
for sent in /agent/poll:short2 /agent/batch:batch4v2; do
	expect_agent 401 "${sent%%:*}" "$UNKNOWN" "$WORK/${sent#*:}.bin"
	grep -q "credential is not valid here" "$WORK/reply" ||
		fail "an unknown credential's 401 on ${sent%%:*}: $(cat "$WORK/reply")"
done
agent /agent/poll "$CRED" "$WORK/poll2.bin" > "$WORK/poll.code" &
POLL=$!
sleep 0.5
expect 200 DELETE "/api/servers/$SID"
wait "$POLL"
[ "$(cat "$WORK/poll.code")" = 410 ] && grep -q "this server was removed from the workspace" \
	"$WORK/reply" || fail "the held version 2 poll: HTTP $(cat "$WORK/poll.code"): $(cat "$WORK/reply")"
gone() { # gone PATH FILE: a version 2 request of the removed server gets 410 and why
	expect_agent 410 "$1" "$CRED" "$2"
	jq -e '(.error | contains("this server was removed from the workspace")) and
		(.error | contains("Add a server"))' "$WORK/reply" >/dev/null ||
		fail "410 on $1 is not the error document saying why: $(cat "$WORK/reply")"
}
gone /agent/poll "$WORK/short2.bin"
gone /agent/progress "$WORK/progress2v.bin"
gone /agent/reply "$WORK/reply2v.bin"
gone /agent/symbols-wanted "$WORK/wanted2v.bin"
gone /agent/batch "$WORK/batch4v2.bin"
# A batch that would be new is refused too, and nothing is stored.
"$MSG" batch boot-1 5 "" "$WORK/profile.pb.gz" 'work' 2 > "$WORK/batch5v2.bin"
gone /agent/batch "$WORK/batch5v2.bin"
# Version 1 (still accepted): 401 on every path, and REMOVED in its poll.
expect_agent 401 /agent/progress "$CRED" "$WORK/progress.bin"
expect_agent 401 /agent/batch "$CRED" "$WORK/batch2.bin"
expect_agent 200 /agent/poll "$CRED" "$WORK/poll.bin" PollReply
jq -e '.commands[0].kind == "REMOVED"' "$WORK/reply" >/dev/null ||
	fail "a removed server's next version 1 poll: $(cat "$WORK/reply")"
expect 200 GET /api/servers
jq -e --arg id "$SID" '.servers[] | select(.id == $id) | .status == "removed"' "$WORK/body" \
	>/dev/null || fail "the removed server is not listed as removed: $(cat "$WORK/body")"
expect 410 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 5}'
# Its profiles stay (the version 2 batch before the removal is the fourth), and the count
# of its spool drops.
expect 200 GET /api/profiles
[ "$(jq .total "$WORK/body")" = 4 ] || fail "a removed server's profiles went: $(cat "$WORK/body")"
dropped_is "$SID" 12 "the server removed"
expect 409 DELETE /api/servers/local

stop_serve

# ---- the same on a workspace in PostgreSQL ----
if ! start_pg; then
	echo "ok (PostgreSQL 15 is not installed: SQLite only)"
	exit 0
fi
SERVE_ARGS="--store $(cat "$PG/url")/workspace" start_serve
expect 201 POST /api/enrolments
"$MSG" encode EnrolRequest protocol_version=1 enrolment_token="$(jq -r .token "$WORK/body")" \
	name="$NAME" hostname=db-host kernel=6.18.0 agent_version=0.1.0 boot_id=b > "$WORK/enrol.bin"
expect_agent 200 /agent/enrol "" "$WORK/enrol.bin" EnrolReply
CRED=$(jq -r .credential "$WORK/reply")
SID=$(jq -r .server_id "$WORK/reply")
expect_agent 401 /agent/enrol "" "$WORK/enrol.bin"
for i in 1 2; do expect_agent 200 /agent/batch "$CRED" "$WORK/batch.bin" BatchReply; done
jq -e '.duplicate' "$WORK/reply" >/dev/null || fail "PostgreSQL: a batch sent again: $(cat "$WORK/reply")"
expect 200 GET "/api/profiles?server=$(jq -rn --arg n "$NAME" '$n | @uri')"
[ "$(jq .total "$WORK/body")" = 1 ] || fail "PostgreSQL: the batch: $(cat "$WORK/body")"
dropped_is "$SID" 3 "PostgreSQL: a batch reporting 3, sent twice"
# A second serve on the database (its own data directory), as in a shared workspace: it
# lists the same count; a batch stored through it, sent again through either, adds once
# for both; the first serve started again still lists it.
PID_A=$SERVE_PID BASE_A=$BASE TOKEN_A=$TOKEN
mkdir "$WORK/b"
SERVE_ARGS="--store $(cat "$PG/url")/workspace" SLIDEOPS_DATA=$WORK/data-b WORK=$WORK/b \
	start_serve
PID_B=$SERVE_PID
dropped_is "$SID" 3 "PostgreSQL: the second serve"
"$MSG" batch b 2 "" "$WORK/profile.pb.gz" 'work' 1 4 > "$WORK/pg2.bin"
for i in 1 2; do expect_agent 200 /agent/batch "$CRED" "$WORK/pg2.bin" BatchReply; done
jq -e '.duplicate' "$WORK/reply" >/dev/null || fail "PostgreSQL: B, a batch sent again: $(cat "$WORK/reply")"
dropped_is "$SID" 7 "PostgreSQL: a batch reporting 4 through the second serve"
SERVE_PID=$PID_B WORK=$WORK/b stop_serve
BASE=$BASE_A SERVE_PID=$PID_A TOKEN=$TOKEN_A
expect_agent 200 /agent/batch "$CRED" "$WORK/pg2.bin" BatchReply
jq -e '.duplicate' "$WORK/reply" >/dev/null || fail "PostgreSQL: A, B's batch sent again: $(cat "$WORK/reply")"
dropped_is "$SID" 7 "PostgreSQL: the first serve, after the second's batch"
stop_serve
SERVE_ARGS="--store $(cat "$PG/url")/workspace" start_serve
dropped_is "$SID" 7 "PostgreSQL: serve started again"
expect 200 DELETE "/api/servers/$SID"
expect_agent 401 /agent/batch "$CRED" "$WORK/batch.bin"
expect_agent 200 /agent/poll "$CRED" "$WORK/short.bin" PollReply
jq -e '.commands[0].kind == "REMOVED"' "$WORK/reply" >/dev/null ||
	fail "PostgreSQL: a removed server's poll: $(cat "$WORK/reply")"
gone /agent/batch "$WORK/batch4v2.bin"
gone /agent/poll "$WORK/short2.bin"
stop_serve
echo ok
