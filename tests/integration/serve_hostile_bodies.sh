#!/usr/bin/env bash
# Issue 28, 2: bodies are buffered only for a valid agent, and all of them together
# within a cap. 30 connections with made-up credentials, each sending 60 MB of a batch's
# body less two bytes (it took serve +2.3 GB), are refused before their bodies are read:
# serve grows by less than 16 MB. With a stolen credential, one batch is read at a time
# (the others 429 before their bodies); with four, the fourth whose 60 MB would pass the
# 192 MB all agents' bodies may hold is answered 503 (Retry-After) before its body, and
# serve holds less than 192 MB more. An honest agent's small batch still fits, and goes
# through; the UI is answered meanwhile.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"

start_serve
honest_agents
THIEVES=()
for i in 1 2 3 4; do enrol "thief-$i"; THIEVES+=("$CRED"); done
ui_unloaded
FAKE=$(printf '%064d' 28)

# ---- 30 made-up credentials, 60 MB each ----
rss_reset
base=$(rss_kb)
$ATTACK hold-bodies "$PORT" "$FAKE" 30 60 3 "$WORK/held" > "$WORK/fake.json" &
attack=$!
for _ in $(seq 600); do [ -e "$WORK/held" ] && break; sleep 0.1; done
ui_loaded "30 bodies of 60 MB with made-up credentials"
wait "$attack"
jq -e '[.statuses | to_entries[] | select(.key != "401" and .key != "429")] | length == 0' \
	"$WORK/fake.json" >/dev/null || fail "made-up credentials' bodies: $(cat "$WORK/fake.json")"
rss_within "30 bodies of 60 MB with made-up credentials" "$base" $((16 * 1024))
honest_round

# ---- one stolen credential, five bodies at once: one is read ----
rss_reset
base=$(rss_kb)
$ATTACK hold-bodies "$PORT" "${THIEVES[0]}" 5 60 3 "$WORK/held1" > "$WORK/one.json" &
attack=$!
for _ in $(seq 600); do [ -e "$WORK/held1" ] && break; sleep 0.1; done
ui_loaded "five 60 MB bodies of one stolen credential"
wait "$attack"
jq -e '.statuses["429"] == 4' "$WORK/one.json" >/dev/null ||
	fail "one agent's five batches at once: $(cat "$WORK/one.json")"
rss_within "five 60 MB bodies of one stolen credential" "$base" $((80 * 1024))

# ---- four stolen credentials: the fourth 60 MB passes what all may hold ----
rss_reset
base=$(rss_kb)
pids=()
for i in 0 1 2; do
	$ATTACK hold-bodies "$PORT" "${THIEVES[$i]}" 1 60 6 "$WORK/held-$i" > "$WORK/t$i.json" &
	pids+=($!)
	for _ in $(seq 600); do [ -e "$WORK/held-$i" ] && break; sleep 0.1; done
done
$ATTACK hold-bodies "$PORT" "${THIEVES[3]}" 1 60 1 > "$WORK/t3.json"
jq -e '.statuses == {"503": 1}' "$WORK/t3.json" >/dev/null ||
	fail "a 60 MB body past the agents' 192 MB: $(cat "$WORK/t3.json")"
# The honest agents' small batches fit beside them.
honest_round
ui_loaded "three 60 MB bodies held"
rss_within "three 60 MB bodies held, a fourth refused" "$base" $((200 * 1024))
wait "${pids[@]}"
honest_kept 3
stop_serve
echo ok
