# Shared by the serve_hostile_*.sh tests (not a test itself: tests/run.sh runs *.sh):
# a real `slideops serve` on loopback, two honest agents enrolled in it, and what every
# attack is measured by: serve's memory from /proc, the UI's latency against its own
# unloaded figure of the same run, and whether the honest agents lost anything.
# Sourced after lib.sh and serve-lib.bash. Attacks come from tests/tools/serve_attack.py,
# each bounded in count and in time, on loopback only.

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
MSG=${AGENT_MSG:-$(dirname "$SLIDEOPS")/tests/agent_msg}
[ -x "$MSG" ] || fail "$MSG is not built (make all builds it)"
ATTACK="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)/serve_attack.py"

# agent PATH CREDENTIAL MESSAGE-FILE [REPLY-TYPE]: POSTs the message as an agent; prints
# the status; the reply (decoded when REPLY-TYPE is given and the status is 200) is in
# $WORK/reply.
agent() {
	local path=$1 cred=$2 body=$3 type=${4:-} code
	code=$(curl -s -m 60 -o "$WORK/reply.bin" -w '%{http_code}' -X POST \
		-H 'Content-Type: application/x-protobuf' ${cred:+-H "Authorization: Bearer $cred"} \
		--data-binary "@$body" "$BASE$path" || true)
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

# enrol NAME: enrols an agent named NAME; sets CRED and SID.
enrol() {
	expect 201 POST /api/enrolments
	"$MSG" encode EnrolRequest protocol_version=2 enrolment_token="$(jq -r .token "$WORK/body")" \
		name="$1" hostname="$1-host" kernel=6.18.0 cpus=2 agent_version=0.1.0 \
		boot_id="boot-$1" > "$WORK/enrol-$1.bin"
	expect_agent 200 /agent/enrol "" "$WORK/enrol-$1.bin" EnrolReply
	CRED=$(jq -r .credential "$WORK/reply")
	SID=$(jq -r .server_id "$WORK/reply")
}

# honest_agents: two enrolled agents, db-1 and web-2 (HONEST_CRED[i], HONEST_SID[i]),
# each with one batch stored; their short poll and their next batches (honest_round).
honest_agents() {
	"$MSG" profile honest-host > "$WORK/profile.pb.gz"
	"$MSG" encode PollRequest protocol_version=2 boot_id=b wait_ms=0 > "$WORK/honest-poll.bin"
	HONEST_CRED=() HONEST_SID=() HONEST_SEQ=1
	for n in db-1 web-2; do
		enrol "$n"
		HONEST_CRED+=("$CRED") HONEST_SID+=("$SID")
	done
	honest_round
}
# honest_round: each honest agent polls (answered at once) and delivers its next batch,
# which is stored: nothing an honest agent sends is lost under an attack.
honest_round() {
	local i
	for i in 0 1; do
		expect_agent 200 /agent/poll "${HONEST_CRED[$i]}" "$WORK/honest-poll.bin" PollReply
		"$MSG" batch "boot-$i" "$HONEST_SEQ" "" "$WORK/profile.pb.gz" "honest_fn_$i" 2 \
			> "$WORK/honest-batch.bin"
		expect_agent 200 /agent/batch "${HONEST_CRED[$i]}" "$WORK/honest-batch.bin" BatchReply
		jq -e '.duplicate == false' "$WORK/reply" >/dev/null ||
			fail "an honest agent's batch was not stored: $(cat "$WORK/reply")"
	done
	HONEST_SEQ=$((HONEST_SEQ + 1))
}
# honest_kept N: the workspace lists N profiles of each honest agent.
honest_kept() {
	local n
	for n in db-1 web-2; do
		expect 200 GET "/api/profiles?server=$n"
		[ "$(jq .total "$WORK/body")" = "$1" ] ||
			fail "$n: $(jq .total "$WORK/body") profiles kept, want $1: an honest batch was lost"
	done
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVE_PID/status"; }
# rss_reset: the peak (VmHWM) starts again from the current RSS.
rss_reset() { echo 5 > "/proc/$SERVE_PID/clear_refs"; }
# rss_within WHAT BASE_KB MAX_GROWTH_KB: serve's peak since rss_reset is within
# MAX_GROWTH_KB of BASE_KB.
rss_within() {
	local peak
	peak=$(rss_peak_kb "$SERVE_PID")
	# Under a sanitizer build (SLIDEOPS=build/asan/slideops) memory is ASan's: said, not
	# held to the cap; what is checked there is that nothing is reported.
	[ "$peak" -le $(($2 + $3)) ] || [[ $SLIDEOPS == */asan/* ]] ||
		fail "$1: serve's peak RSS $((peak / 1024)) MB, more than $(($2 / 1024)) MB + $(($3 / 1024)) MB"
	echo "  $1: serve's peak RSS $((peak / 1024)) MB (from $(($2 / 1024)) MB, cap +$(($3 / 1024)) MB)"
}

# ui_unloaded: the UI's median latency on /api/servers with nothing else running, in ms
# (UI_MS), measured the way ui_loaded measures it.
ui_unloaded() {
	$ATTACK ui "$PORT" "$TOKEN" 30 > "$WORK/ui0.json"
	UI_MS=$(jq .median_ms "$WORK/ui0.json")
}
# ui_loaded WHAT: while an attack runs, 20 UI requests are all answered 200, none later
# than 20 s, and their median within 20 times the unloaded median and 250 ms (generous:
# what is asserted is that strangers cannot starve the UI, not how fast it is).
ui_loaded() {
	local med max bound
	$ATTACK ui "$PORT" "$TOKEN" 20 > "$WORK/ui1.json"
	jq -e '.statuses == {"200": 20}' "$WORK/ui1.json" >/dev/null ||
		fail "$1: the UI was not answered: $(cat "$WORK/ui1.json")"
	med=$(jq .median_ms "$WORK/ui1.json")
	max=$(jq .max_ms "$WORK/ui1.json")
	bound=$(awk -v u="$UI_MS" 'BEGIN { print u * 20 + 250 }')
	awk -v m="$med" -v b="$bound" -v x="$max" 'BEGIN { exit !(m <= b && x <= 20000) }' ||
		fail "$1: the UI's median $med ms (max $max ms), past $bound ms (unloaded $UI_MS ms)"
	echo "  $1: UI median $med ms, max $max ms (unloaded $UI_MS ms)"
}
