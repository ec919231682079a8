#!/usr/bin/env bash
# Issue 28, 4: one agent cannot name another's code. Agent A (a stolen credential) sends a
# symbol table for build b00c... that B runs, naming its function fn_from_A: before B's
# first batch, and again after it. B's profiles keep the names B's own table gives
# (b_fn), and a profile B sends without a table (the workspace said it had the build)
# is not named by A's; /agent/symbols-wanted asks B for the build A named; A's own
# profiles read A's names. The cross-server rule (docs/security.md): uploads name every
# server's profiles, an agent's tables its own server's only.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"

start_serve
enrol agent-a
A=$CRED
enrol agent-b
B=$CRED
"$MSG" profile a-host > "$WORK/a.pb.gz"
"$MSG" profile b-host > "$WORK/b.pb.gz"

# names ID: the functions of profile ID, one a line.
names() {
	expect 200 GET "/api/profiles/$1"
	jq -r '.functions[].name' "$WORK/body"
}

# ---- A names B's build first ----
"$MSG" batch a 1 "" "$WORK/a.pb.gz" fn_from_A 2 > "$WORK/a1.bin"
expect_agent 200 /agent/batch "$A" "$WORK/a1.bin" BatchReply
PA=$(jq -r .profile_id "$WORK/reply")
names "$PA" | has -x fn_from_A || fail "A's own profile does not read A's names: $(names "$PA")"
# B is asked for the build all the same: A's table does not name B's profiles.
"$MSG" encode SymbolsWanted protocol_version=2 build_ids=b00c0ffee0000000000000000000000000000001 \
	> "$WORK/wanted.bin"
expect_agent 200 /agent/symbols-wanted "$B" "$WORK/wanted.bin" SymbolsWanted
jq -e '.build_ids == ["b00c0ffee0000000000000000000000000000001"]' "$WORK/reply" >/dev/null ||
	fail "B was not asked for the build A named: $(cat "$WORK/reply")"
# A profile of B without a table: not named by A's.
"$MSG" batch b 1 "" "$WORK/b.pb.gz" - 2 > "$WORK/b1.bin"
expect_agent 200 /agent/batch "$B" "$WORK/b1.bin" BatchReply
PB1=$(jq -r .profile_id "$WORK/reply")
names "$PB1" | has fn_from_A && fail "A's table named B's profile: $(names "$PB1")"
expect 200 GET "/api/profiles?server=agent-b"
jq -e '[.profiles[].answer | select(contains("fn_from_A"))] | length == 0' "$WORK/body" \
	>/dev/null || fail "B's answer names A's function: $(cat "$WORK/body")"

# ---- B's own table, then A's again ----
"$MSG" batch b 2 "" "$WORK/b.pb.gz" b_fn 2 > "$WORK/b2.bin"
expect_agent 200 /agent/batch "$B" "$WORK/b2.bin" BatchReply
PB2=$(jq -r .profile_id "$WORK/reply")
"$MSG" batch a 2 "" "$WORK/a.pb.gz" fn_from_A_again 2 > "$WORK/a2.bin"
expect_agent 200 /agent/batch "$A" "$WORK/a2.bin" BatchReply
for id in "$PB1" "$PB2"; do
	names "$id" | has -x b_fn || fail "B's profile $id is not named by B's table: $(names "$id")"
	names "$id" | has fn_from_A && fail "B's profile $id reads A's names"
done
names "$PA" | has -x fn_from_A || fail "A's profile lost A's names: $(names "$PA")"
# And B is no longer asked for it: its own .symtab names it.
expect_agent 200 /agent/symbols-wanted "$B" "$WORK/wanted.bin" SymbolsWanted
jq -e '.build_ids | length == 0' "$WORK/reply" >/dev/null ||
	fail "B is asked again for a build it named: $(cat "$WORK/reply")"
stop_serve
echo ok
