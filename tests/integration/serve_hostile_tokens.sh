#!/usr/bin/env bash
# Issue 28, 9: wrong tokens cost their sender, not the workspace. 600 enrolments with
# wrong tokens from one address (600 were answered 401 in 0.3 s, each taking SQLite's
# write lock): after a few, the address waits, the wait doubling, and is answered 429
# (Retry-After) before its body is read; no wrong token takes the store's write lock,
# so they are answered while another process holds it. 300 made-up agent credentials
# likewise. An honest agent behind the same address (its credential known) is not held;
# once the wait has passed, a valid token enrols.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed (make deps installs it)"

start_serve
honest_agents
expect 201 POST /api/enrolments
GOOD=$(jq -r .token "$WORK/body")
"$MSG" encode EnrolRequest protocol_version=2 enrolment_token="$(printf '%064d' 9)" name=x \
	hostname=x boot_id=b > "$WORK/wrong.bin"
"$MSG" encode PollRequest protocol_version=2 boot_id=b wait_ms=0 > "$WORK/poll.bin"

# Another process holds the workspace's write lock while the wrong tokens come: a check
# that wrote would wait for it (and fail); a read does not.
python3 - "$SLIDEOPS_DATA/workspace.db" "$WORK/locked" <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
db.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").write("locked\n")
time.sleep(12)
db.execute("ROLLBACK")
PY
locker=$!
for _ in $(seq 100); do [ -e "$WORK/locked" ] && break; sleep 0.1; done
$ATTACK posts "$PORT" - 600 /agent/enrol "$WORK/wrong.bin" > "$WORK/tokens.json"
echo "  600 wrong tokens: $(cat "$WORK/tokens.json")"
jq -e '(.statuses["401"] // 0) >= 4 and (.statuses["401"] // 0) <= 40
	and (.statuses["429"] // 0) >= 560 and .seconds < 10' "$WORK/tokens.json" >/dev/null ||
	fail "600 wrong tokens while the store is locked: $(cat "$WORK/tokens.json")"
$ATTACK posts "$PORT" "$(printf '%064d' 7)" 300 /agent/poll "$WORK/poll.bin" > "$WORK/creds.json"
echo "  300 made-up credentials: $(cat "$WORK/creds.json")"
jq -e '(.statuses["429"] // 0) >= 290' "$WORK/creds.json" >/dev/null ||
	fail "300 made-up credentials: $(cat "$WORK/creds.json")"
# Refused before the body: a 429 says when to come back.
code=$(curl -s -D "$WORK/h" -o /dev/null -w '%{http_code}' -X POST --data-binary "@$WORK/wrong.bin" \
	"$BASE/agent/enrol")
[ "$code" = 429 ] && grep -qi '^Retry-After: [0-9]' "$WORK/h" || fail "no Retry-After on 429 ($code)"
# An honest agent behind the same address is not held.
honest_round
wait "$locker"
# Once the wait has passed, a valid token enrols (the wait is at most a minute).
"$MSG" encode EnrolRequest protocol_version=2 enrolment_token="$GOOD" name=late hostname=h \
	boot_id=b > "$WORK/good.bin"
for _ in $(seq 70); do
	code=$(agent /agent/enrol "" "$WORK/good.bin" EnrolReply)
	[ "$code" = 429 ] || break
	sleep 1
done
[ "$code" = 200 ] || fail "a valid token after the wait: HTTP $code: $(cat "$WORK/reply")"
honest_kept 2
stop_serve
echo ok
