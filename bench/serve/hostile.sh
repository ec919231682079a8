#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The workspace server against hostile agents (issue 28; docs/security.md), in one run:
#
#   1. the UI (wrk on GET /api/servers with the token): requests per second and p99,
#      alone, then while 1,000 slow connections (a whole /agent/enrol header, then a byte
#      of body every 5 s, each reopened as serve drops it) and 200 connections re-polling
#      as fast as answers come with one stolen credential run: both, and their ratio;
#   2. serve's peak RSS under each attack of tests/tools/serve_attack.py, beside the cap
#      docs/security.md states:
#        - a 32 MB body of empty repeated fields with a made-up credential, three at once
#        - 30 connections holding 60 MB of body each with made-up credentials
#        - the 32 MB body with a valid (stolen) credential
#        - three stolen credentials each holding a 60 MB batch
#      and the largest profile an agent may send (250,000 locations): its ingest, and its
#      page and flame graph (peak RSS and seconds).
#
#   bench/serve/hostile.sh                      (loopback only; no capture, no root needed
#                                                but for /proc/PID/clear_refs: run as root)
#   BASELINE=/path/to/older/slideops bench/serve/hostile.sh   the same against that build
#
# Not a test: the figures move with whatever else the machine runs.
set -euo pipefail
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
MSG=${AGENT_MSG:-$top/build/tests/agent_msg}
ATTACK="python3 $top/tests/tools/serve_attack.py"
SECONDS_EACH=${SECONDS_EACH:-5}
work=$(mktemp -d /tmp/slideops-bench-hostile-serve.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap 'bench_report_failure $?; cleanup' EXIT
command -v wrk >/dev/null || { echo "bench/serve: wrk is missing: make bench-deps" >&2; exit 1; }
[ -x "$MSG" ] || { echo "bench/serve: $MSG is not built (make all)" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
rss_mb() { echo $(( $(awk "/^$2:/ { print \$2 }" /proc/$1/status) / 1024 )); }

# serve_start BINARY: serve on a fresh workspace; sets serve, port, base, token.
serve_start() {
	rm -rf "$work/data"
	port=$(free_port)
	SLIDEOPS_DATA=$work/data "$1" serve --listen "127.0.0.1:$port" > "$work/serve.out" 2>&1 &
	serve=$!
	pids+=("$serve")
	for _ in $(seq 100); do grep -q token= "$work/serve.out" && break; sleep 0.1; done
	token=$(sed -n 's/.*token=//p' "$work/serve.out")
	base=http://127.0.0.1:$port
}
serve_stop() { kill "$serve"; wait "$serve" 2>/dev/null || true; }

# enrol NAME: an agent's credential.
enrol() {
	local t
	t=$(curl -s -X POST -H "Authorization: Bearer $token" "$base/api/enrolments" | jq -r .token)
	"$MSG" encode EnrolRequest protocol_version=2 enrolment_token="$t" name="$1" hostname=h \
		boot_id=b > "$work/e.bin"
	curl -s -X POST --data-binary "@$work/e.bin" "$base/agent/enrol" |
		"$MSG" decode EnrolReply | jq -r .credential
}

# ui: "rps p99_ms" of wrk on the servers' list.
ui() {
	local out
	out=$(wrk -t2 -c8 -d"${SECONDS_EACH}s" --latency -H "Authorization: Bearer $token" \
		"$base/api/servers")
	awk '/^Requests\/sec:/ { r = $2 } $1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 }
		else if (v ~ /ms$/) sub(/ms$/, "", v); else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
		p = v } END { print r, p }' <<<"$out"
}

# peak LABEL CAP_MB CMD...: serve's peak RSS while CMD runs, from its RSS before.
peak() {
	local label=$1 cap=$2 before t0 t1; shift 2
	echo 5 > "/proc/$serve/clear_refs"
	before=$(rss_mb "$serve" VmRSS)
	t0=$(date +%s.%N)
	"$@" > "$work/peak.out" 2>&1 || true
	t1=$(date +%s.%N)
	printf '   %-58s peak %5d MB (from %d; cap +%s MB) in %.1f s\n' "$label" \
		"$(rss_mb "$serve" VmHWM)" "$before" "$cap" "$(echo "$t1 - $t0" | bc -l)"
}

measure() { # measure BINARY LABEL
	echo "== $2: $1"
	serve_start "$1"
	local honest thief thieves=() fake
	honest=$(enrol honest)
	thief=$(enrol thief)
	for i in 1 2 3; do thieves+=("$(enrol "thief-$i")"); done
	fake=$(printf '%064d' 28)
	"$MSG" encode PollRequest protocol_version=2 boot_id=b wait_ms=30000 > "$work/poll.bin"

	read -r rps p99 < <(ui)
	$ATTACK slow "$port" 1000 $((SECONDS_EACH + 15)) 5 /agent/enrol "$work/slow" > /dev/null &
	pids+=("$!"); slow=$!
	$ATTACK pollers "$port" "$thief" 200 $((SECONDS_EACH + 15)) "$work/poll.bin" \
		> "$work/pollers.json" &
	pids+=("$!"); pollers=$!
	for _ in $(seq 300); do [ -e "$work/slow" ] && break; sleep 0.1; done
	sleep 3
	echo 5 > "/proc/$serve/clear_refs"
	read -r hrps hp99 < <(ui)
	hrss=$(rss_mb "$serve" VmHWM)
	wait "$slow" "$pollers" || true
	printf '   UI alone:                                   %8s req/s, p99 %7s ms\n' "$rps" "$p99"
	printf '   UI, 1,000 slow + 200 pollers:               %8s req/s, p99 %7s ms (%.2fx the rate, %.2fx the p99); serve peak %d MB\n' \
		"$hrps" "$hp99" "$(echo "$hrps / $rps" | bc -l)" "$(echo "$hp99 / $p99" | bc -l)" "$hrss"
	printf '   the thief'"'"'s polls: %s\n' "$(jq -c .statuses "$work/pollers.json")"

	peak "32 MB of empty fields, a made-up credential, x3 at once" 16 \
		bash -c "for i in 1 2 3; do $ATTACK amplify $port $fake 32 & done; wait"
	peak "30 x 60 MB bodies, made-up credentials" 16 \
		$ATTACK hold-bodies "$port" "$fake" 30 60 2
	peak "32 MB of empty fields, a stolen credential" 320 \
		$ATTACK amplify "$port" "${thieves[0]}" 32
	peak "3 stolen credentials holding a 60 MB batch each" 200 \
		bash -c "for c in ${thieves[*]}; do $ATTACK hold-bodies $port \$c 1 60 3 & done; wait"
	"$MSG" profile h ncpus=64 hz=1000 seconds=30 count=1 ns=1000 locations=250000 \
		> "$work/big.pb.gz"
	"$MSG" batch b 1 "" "$work/big.pb.gz" fn 2 > "$work/big.bin"
	peak "the largest profile accepted (250,000 locations): ingest" 640 \
		curl -s -o "$work/big.reply" -X POST -H "Authorization: Bearer $honest" \
		--data-binary "@$work/big.bin" "$base/agent/batch"
	id=$(curl -s -H "Authorization: Bearer $token" "$base/api/profiles" | jq -r '.profiles[0].id // empty')
	if [ -n "$id" ]; then
		peak "   its page" 384 curl -s -o /dev/null -H "Authorization: Bearer $token" \
			"$base/api/profiles/$id"
		peak "   its flame graph" 384 curl -s -o /dev/null -H "Authorization: Bearer $token" \
			"$base/api/profiles/$id/flamegraph"
	fi
	serve_stop
}

[ -n "${BASELINE:-}" ] && measure "$BASELINE" baseline
measure "$SLIDEOPS" "this build"
