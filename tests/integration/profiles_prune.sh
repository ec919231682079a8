#!/usr/bin/env bash
# slideops profiles prune --older-than AGE on the workspace in the data directory: what
# started before the cut goes (its file with it), what is newer stays and still opens;
# an age that is not one is refused with what to give. slideops profiles retention: the
# workspace's setting said, set and turned off. (tests/integration/store_pg.sh
# prunes a PostgreSQL workspace; the store's unit tests prune both in batches.)
source "$(dirname "$0")/lib.sh"

"$SLIDEOPS" check >/dev/null 2>&1 ||
	skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"
"$SLIDEOPS" capture cpu -d 1 --json > "$WORK/old.json" || fail "the first capture failed"
old=$(jq -r .id "$WORK/old.json")
sleep 6
"$SLIDEOPS" capture cpu -d 1 --json > "$WORK/new.json" || fail "the second capture failed"
new=$(jq -r .id "$WORK/new.json")
new_start=$(date -d "$(jq -r .started_at "$WORK/new.json")" +%s)
[ -f "$SLIDEOPS_DATA/profiles/$old.pb.gz" ] || fail "no file for the first profile"

rc=0; "$SLIDEOPS" profiles prune --older-than 30 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] &&
	grep -q "'30' is not an age; give --older-than N followed by d, h, m or s" "$WORK/err" ||
	fail "an age without its unit: exit $rc, $(cat "$WORK/err")"
rc=0; "$SLIDEOPS" profiles prune 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] || fail "prune without an age: exit $rc"

"$SLIDEOPS" --json profiles prune --older-than 30d > "$WORK/prune.json"
jq -e '.deleted == 0' "$WORK/prune.json" >/dev/null || fail "30d pruned $(cat "$WORK/prune.json")"
# The cut 3 s before the second capture started: 3 s or more after the first.
age=$(( $(date +%s) - new_start + 3 ))
"$SLIDEOPS" --json profiles prune --older-than "${age}s" > "$WORK/prune.json"
jq -e '.deleted == 1' "$WORK/prune.json" >/dev/null || fail "3s pruned $(cat "$WORK/prune.json")"
"$SLIDEOPS" profiles --json | jq -e --arg o "$old" --arg n "$new" \
	'[.profiles[].id] | (index($o) == null) and (index($n) != null)' >/dev/null ||
	fail "after the prune the list is $("$SLIDEOPS" profiles --json | jq -c '[.profiles[].id]')"
[ ! -e "$SLIDEOPS_DATA/profiles/$old.pb.gz" ] || fail "the pruned profile's file stayed"
"$SLIDEOPS" show "$new" >/dev/null || fail "the newer profile no longer opens"

# The workspace's retention: said, set, kept, turned off; a bad age refused.
"$SLIDEOPS" --json profiles retention | jq -e '.retention_seconds == null' >/dev/null ||
	fail "a new workspace has a retention"
"$SLIDEOPS" profiles retention 30d | has "^Profiles are kept for 30d" ||
	fail "retention 30d was not said"
"$SLIDEOPS" --json profiles retention | jq -e '.retention_seconds == 2592000' >/dev/null ||
	fail "retention 30d was not kept"
rc=0; "$SLIDEOPS" profiles retention soon 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] && grep -q "'soon' is not an age" "$WORK/err" || fail "retention soon: exit $rc"
"$SLIDEOPS" profiles retention off >/dev/null
"$SLIDEOPS" --json profiles retention | jq -e '.retention_seconds == null' >/dev/null ||
	fail "retention off did not turn it off"
echo ok
