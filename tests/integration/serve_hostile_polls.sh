#!/usr/bin/env bash
# Issue 28, 6: one agent's polls cannot starve users. 200 connections re-polling as fast
# as answers come with one stolen credential (they made GET /api/servers take 2.3-3.2 s):
# one poll is held for the agent, and every other is refused 429 before its message is
# read, so the store is not written per poll; the UI is answered within 20 times its
# unloaded median; an honest agent's held poll is answered when its wait ends, and a
# command asked for it meanwhile reaches it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"

start_serve
honest_agents
enrol thief
ui_unloaded
"$MSG" encode PollRequest protocol_version=2 boot_id=b wait_ms=30000 > "$WORK/held-poll.bin"
"$MSG" encode PollRequest protocol_version=2 boot_id=b wait_ms=3000 > "$WORK/short-poll.bin"

$ATTACK pollers "$PORT" "$CRED" 200 12 "$WORK/held-poll.bin" > "$WORK/pollers.json" &
attack=$!
sleep 2
ui_loaded "200 connections re-polling with one credential"
# An honest agent's poll, held 3 s, answered empty when its wait ends.
start=$(date +%s%N)
expect_agent 200 /agent/poll "${HONEST_CRED[0]}" "$WORK/short-poll.bin" PollReply
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -ge 2500 ] && [ "$ms" -lt 20000 ] || fail "an honest agent's 3 s poll took $ms ms"
# A command for the other honest agent reaches its held poll.
agent /agent/poll "${HONEST_CRED[1]}" "$WORK/short-poll.bin" PollReply > "$WORK/poll.code" &
poll=$!
sleep 0.5
api GET "/api/servers/${HONEST_SID[1]}/top?n=3" > "$WORK/top.code" &
top=$!
wait "$poll"
[ "$(cat "$WORK/poll.code")" = 200 ] && jq -e '.commands[0].kind == "TOP"' "$WORK/reply" >/dev/null ||
	fail "a command did not reach an honest agent's poll: $(cat "$WORK/poll.code") $(cat "$WORK/reply")"
"$MSG" encode CommandReply protocol_version=2 command_id="$(jq -r '.commands[0].command_id' "$WORK/reply")" \
	http_status=200 document_json='{"processes": []}' > "$WORK/top.bin"
expect_agent 200 /agent/reply "${HONEST_CRED[1]}" "$WORK/top.bin" Ack
wait "$top"
[ "$(cat "$WORK/top.code")" = 200 ] || fail "top through an honest agent: HTTP $(cat "$WORK/top.code")"
honest_round
ui_loaded "200 connections re-polling, later"
wait "$attack"
# At most one of the thief's polls held at a time; a new one replaces it only after 2 s.
jq -e '(.statuses["429"] // 0) > 100 and ((.statuses["200"] // 0) <= 12)' \
	"$WORK/pollers.json" >/dev/null || fail "polls of one agent: $(cat "$WORK/pollers.json")"
echo "  the thief's polls: $(jq -c .statuses "$WORK/pollers.json")"
honest_kept 2
stop_serve
echo ok
