#!/usr/bin/env bash
# Issue 28, 7: every number an agent sends is clamped or refused. With a stolen
# credential: a sample count of INT64_MAX ("92233720369% of the CPU"), a start in 2262
# (pinned at the top of the list, never pruned), a start a day from when the capture was
# asked for, CPU time past CPUs x seconds: each batch refused 422 saying why, nothing
# kept, counted with the server (its page says the last reason), and the capture it
# answered failing with the reason; a
# progress of -1 after done is shown within the capture's total; an HTTP status chosen
# by the agent (302) reaches the API's caller as 502, saying so. The honest agents' batches
# all go through.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"

start_serve
honest_agents
enrol thief
"$MSG" encode PollRequest protocol_version=2 boot_id=b wait_ms=20000 > "$WORK/poll.bin"

# refused WHAT SEQ PROFILE-ARGS...: a batch of the thief with that profile is refused 422,
# its reason naming WHAT.
refused() {
	local what=$1 seq=$2; shift 2
	"$MSG" profile thief-host "$@" > "$WORK/p.pb.gz"
	"$MSG" batch b "$seq" "${KID:-}" "$WORK/p.pb.gz" fn 2 > "$WORK/b.bin"
	expect_agent 422 /agent/batch "$CRED" "$WORK/b.bin"
	jq -e --arg w "$what" '.error | contains("profile was refused") and contains($w)' \
		"$WORK/reply" >/dev/null || fail "a batch whose $what is wrong: $(cat "$WORK/reply")"
}

refused "samples" 1 count=9223372036854775807
refused "started at" 2 started=9214646400
refused "CPU time" 3 ns=20000000000
refused "CPUs" 4 ncpus=0
expect 200 GET "/api/profiles?server=thief"
[ "$(jq .total "$WORK/body")" = 0 ] || fail "a refused batch was kept: $(cat "$WORK/body")"
expect 200 GET /api/profiles
jq -e '[.profiles[].answer | select(contains("92233720369"))] | length == 0' "$WORK/body" \
	>/dev/null || fail "an answer believed INT64_MAX samples"

# ---- a capture asked for: its progress clamped, its refused batch fails it, said why ----
agent /agent/poll "$CRED" "$WORK/poll.bin" PollReply > "$WORK/poll.code" &
poll=$!
sleep 0.5
expect 202 POST "/api/servers/$SID/capture" -d '{"question": "cpu", "seconds": 5}' &
capture=$!
wait "$poll"
KID=$(jq -r '.commands[0].capture_id' "$WORK/reply")
[ -n "$KID" ] && [ "$KID" != null ] || fail "the poll did not bring the capture: $(cat "$WORK/reply")"
"$MSG" encode Progress protocol_version=2 capture_id="$KID" phase=sampling done=1000 \
	total=5000 > "$WORK/progress.bin"
expect_agent 200 /agent/progress "$CRED" "$WORK/progress.bin" Ack
wait "$capture"
"$MSG" encode Progress protocol_version=2 capture_id="$KID" phase=saving \
	done=18446744073709551615 total=18446744073709551615 > "$WORK/progress.bin"
expect_agent 200 /agent/progress "$CRED" "$WORK/progress.bin" Ack
expect 200 GET "/api/servers/$SID/capture"
jq -e '.done >= 0 and .total >= 0 and .done <= .total and .total <= 4294967296' \
	"$WORK/body" >/dev/null || fail "progress believed as sent: $(cat "$WORK/body")"
# Started a day before it was asked for.
refused "asked for" 5 started=$(( $(date +%s) - 86400 ))
expect 200 GET "/api/servers/$SID/capture"
jq -e '.running == false and .phase == "failed" and (.error | contains("refused"))' \
	"$WORK/body" >/dev/null || fail "the refused capture is not failed on the page: $(cat "$WORK/body")"
KID=
# Every refusal counted with the server, the last one's reason on its page.
expect 200 GET "/api/servers/$SID"
jq -e '.batches_refused == 5 and (.last_refusal.error | contains("asked for"))
	and (.last_refusal.at | test("^[0-9]{4}-"))' "$WORK/body" >/dev/null ||
	fail "the server does not say its batches were refused: $(cat "$WORK/body")"
expect 200 GET "/api/servers/${HONEST_SID[0]}"
jq -e '.batches_refused == 0 and .last_refusal == null' "$WORK/body" >/dev/null ||
	fail "an honest server lists refusals: $(cat "$WORK/body")"

# ---- a status of the agent's choosing ----
agent /agent/poll "$CRED" "$WORK/poll.bin" PollReply > "$WORK/poll.code" &
poll=$!
sleep 0.5
api GET "/api/servers/$SID/top" > "$WORK/top.code" &
top=$!
wait "$poll"
jq -e '.commands[0].kind == "TOP"' "$WORK/reply" >/dev/null || fail "no TOP: $(cat "$WORK/reply")"
"$MSG" encode CommandReply protocol_version=2 command_id="$(jq -r '.commands[0].command_id' "$WORK/reply")" \
	http_status=302 document_json='{"error": "moved", "hint": null}' > "$WORK/r.bin"
expect_agent 200 /agent/reply "$CRED" "$WORK/r.bin" Ack
wait "$top"
[ "$(cat "$WORK/top.code")" = 502 ] && grep -q "HTTP status 302" "$WORK/body" ||
	fail "an agent's 302 reached the API's caller: HTTP $(cat "$WORK/top.code"): $(cat "$WORK/body")"

honest_round
honest_kept 2
stop_serve
echo ok
