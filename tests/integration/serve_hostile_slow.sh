#!/usr/bin/env bash
# Issue 28, 3: slow and idle connections are dropped by deadline, and connections no
# credential vouches for have a share of their own that never starves the UI or
# authenticated agents. 4,200 connections each sending a whole /agent/enrol header (no
# credential needed) and then, 3,700 of them, one byte of its body every 5 s (the rest
# nothing) (4,200 such made every UI request time out for 75 s; more than serve's 4,096
# connections), each reopened as serve drops it: serve holds at most its share of them (1,024 descriptors and a few), the UI is
# answered within 20 times its unloaded median, honest agents poll and deliver, and
# serve's RSS grows by less than 64 MB.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"
source "$(dirname "$0")/hostile-lib.bash"

start_serve
honest_agents
ui_unloaded
rss_reset
base=$(rss_kb)
$ATTACK slow "$PORT" 3700 20 5 /agent/enrol "$WORK/slow" > "$WORK/slow.json" &
slow=$!
$ATTACK slow "$PORT" 500 20 30 /agent/enrol "$WORK/idle" > "$WORK/idle.json" &
idle=$!
for _ in $(seq 300); do [ -e "$WORK/slow" ] && [ -e "$WORK/idle" ] && break; sleep 0.1; done
most=0
for round in 1 2 3; do
	sleep 3
	fds=$(ls "/proc/$SERVE_PID/fd" | wc -l)
	[ "$fds" -gt "$most" ] && most=$fds
	ui_loaded "4,200 slow connections, round $round"
	honest_round
done
# Its share: 1,024 connections without a credential, and its own few descriptors.
[ "$most" -le $((1024 + 64)) ] || fail "serve held $most descriptors under 4,200 slow connections"
echo "  serve held at most $most descriptors"
rss_within "4,200 slow connections" "$base" $((64 * 1024))
wait "$slow" "$idle"
# Dropped, not kept: every slow connection ended by serve, and reopened.
jq -e '.dropped >= 3700' "$WORK/slow.json" >/dev/null || fail "slow connections kept: $(cat "$WORK/slow.json")"
honest_kept 4
stop_serve
echo ok
