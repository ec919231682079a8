#!/usr/bin/env bash
# Issue 28, 8: removed names and look-alikes. A removed server's name enrolled again is
# another name ("db-1-2"), so the removed server's history stays its own; names that
# differ from another by a look-alike letter (a Cyrillic "ԁ"), by zero-width or bidi
# characters, or by "rn" for "m", enrol as names that read differently; a name of nothing
# visible is refused; every name is kept in NFC. Each enrolment needs a token of its own,
# as an attacker with stolen tokens would use them.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"
# The names below are written as $'\uXXXX', which bash spells in UTF-8 only under a UTF-8 locale.
export LC_ALL=C.UTF-8

start_serve
"$MSG" profile db-host > "$WORK/profile.pb.gz"
# enrol_as NAME: enrols a server sending NAME; NAMED is the name the workspace kept.
enrol_as() {
	expect 201 POST /api/enrolments
	"$MSG" encode EnrolRequest protocol_version=2 enrolment_token="$(jq -r .token "$WORK/body")" \
		name="$1" hostname=h boot_id=b > "$WORK/e.bin"
	expect_agent 200 /agent/enrol "" "$WORK/e.bin" EnrolReply
	NAMED=$(jq -r .name "$WORK/reply") CRED=$(jq -r .credential "$WORK/reply")
	SID=$(jq -r .server_id "$WORK/reply")
}

# ---- a removed server's name ----
enrol_as db-1
OLD=$SID
"$MSG" batch b 1 "" "$WORK/profile.pb.gz" fn 2 > "$WORK/b.bin"
expect_agent 200 /agent/batch "$CRED" "$WORK/b.bin" BatchReply
expect 200 DELETE "/api/servers/$OLD"
enrol_as db-1
[ "$NAMED" = db-1-2 ] || fail "a removed server's name was given again: $NAMED"
expect_agent 200 /agent/batch "$CRED" "$WORK/b.bin" BatchReply
expect 200 GET "/api/profiles?server=db-1"
[ "$(jq .total "$WORK/body")" = 1 ] || fail "the removed server's history took another's profile: $(cat "$WORK/body")"
expect 200 GET "/api/profiles?server=db-1-2"
[ "$(jq .total "$WORK/body")" = 1 ] || fail "the new server's profile: $(cat "$WORK/body")"

# ---- look-alikes ----
enrol_as $'\u0501b-1'                  # Cyrillic komi de
[ "$NAMED" = $'\u0501b-1-3' ] || fail "a look-alike of db-1 kept as $NAMED"
enrol_as $'db\u200b-1\u200d'           # zero-width space and joiner
[ "$NAMED" = db-1-4 ] || fail "a name with zero-width characters kept as $NAMED"
enrol_as $'\u202edb-1'                 # right-to-left override
[ "$NAMED" = db-1-5 ] || fail "a name with a bidi override kept as $NAMED"
enrol_as web-m
enrol_as web-rn
[ "$NAMED" = web-rn-2 ] || fail "web-rn beside web-m kept as $NAMED"
enrol_as $'cafe\u0301'
[ "$NAMED" = $'caf\u00e9' ] || fail "a name not kept in NFC: $NAMED"
expect 201 POST /api/enrolments
"$MSG" encode EnrolRequest protocol_version=2 enrolment_token="$(jq -r .token "$WORK/body")" \
	name=$'\u200b\u200d' hostname=$'\u2060' boot_id=b > "$WORK/e.bin"
expect_agent 400 /agent/enrol "" "$WORK/e.bin"
grep -q "invisible" "$WORK/reply" || fail "a name of nothing visible: $(cat "$WORK/reply")"

# Every name listed reads differently from every other.
expect 200 GET /api/servers
jq -r '.servers[].name' "$WORK/body" > "$WORK/names"
[ "$(sort "$WORK/names" | uniq -d)" = "" ] || fail "two servers share a name: $(cat "$WORK/names")"
grep -q $'\u200b' "$WORK/names" && fail "a name kept a zero-width space"
stop_serve
echo ok
