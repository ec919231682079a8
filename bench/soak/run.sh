#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Hours of resident work: a resident `slideops serve` and an agent enrolled in it (both on
# loopback, each its own data directory) take back-to-back captures of every question
# (cpu, wall, locks, memory of CAPTURE_SECONDS each, and a threads snapshot), serve's own
# server and the agent's in turn, for SOAK_SECONDS, beside a workload that gives every
# question something to see (tests/workloads/overlap.c). After every capture it notes, for
# serve and for the agent: resident memory (VmRSS), open descriptors, the BPF programs and
# maps they hold (from their descriptors). It reports them after the first ten captures,
# at the end and at their worst, the captures asked, done and failed, the profiles the
# workspace stored against those done, and, once both have stopped (SIGTERM), whether
# any BPF program either held is still loaded.
#
#   sudo bench/soak/run.sh                      an hour (figures in docs/scale.md)
#   SOAK_SECONDS=300 sudo bench/soak/run.sh     the short form (5 minutes), for CI if wanted
#
# Each capture's line goes to $SOAK_LOG (default: soak.tsv in the work directory, printed
# at the end). Exit status 1 when a capture failed, a stored profile is missing, or a
# program stayed loaded: the soak is a check as well as figures.
set -euo pipefail
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
SOAK_SECONDS=${SOAK_SECONDS:-3600}
CAPTURE_SECONDS=${CAPTURE_SECONDS:-3}
QUESTIONS=${QUESTIONS:-cpu wall locks memory threads}
[ "$(id -u)" = 0 ] || { echo "bench/soak: run as root (captures load BPF programs)" >&2; exit 1; }
for tool in curl jq gcc bpftool; do
	command -v "$tool" >/dev/null || { echo "bench/soak: $tool is missing (make deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench/soak: $SLIDEOPS is not built (make)" >&2; exit 1; }

work=$(mktemp -d /tmp/slideops-bench-soak.XXXXXX)
log=${SOAK_LOG:-$work/soak.tsv}
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	[ -n "${SOAK_LOG:-}" ] || cp "$log" /tmp/slideops-soak-last.tsv 2>/dev/null || true
	rm -rf "$work"
}
trap 'bench_report_failure $?; cleanup' EXIT

gcc -O2 -fomit-frame-pointer -pthread -o "$work/overlap" "$top/tests/workloads/overlap.c"
"$work/overlap" & pids+=("$!")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SLIDEOPS_DATA=$work/workspace "$SLIDEOPS" serve --listen "127.0.0.1:$port" \
	> "$work/serve.out" 2> "$work/serve.err" &
serve=$!
pids+=("$serve")
for _ in $(seq 100); do grep -q '^SlideOps is at' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
token=$(grep -o 'token=[^ ]*' "$work/serve.out" | head -1 | cut -d= -f2)
[ -n "$token" ] || { echo "bench/soak: serve did not start: $(cat "$work/serve.err")" >&2; exit 1; }
base=http://127.0.0.1:$port
api() { # METHOD PATH [curl args]: the body on stdout
	curl -sf -X "$1" -H "Authorization: Bearer $token" "${@:3}" "$base$2"
}

enrol=$(api POST /api/enrolments | jq -r .token)
"$SLIDEOPS" agent --workspace "$base" --name soak-agent --data "$work/agent" --enrol-token "$enrol" \
	> "$work/agent.out" 2> "$work/agent.err" &
agent=$!
pids+=("$agent")
sid=""
for _ in $(seq 150); do
	sid=$(api GET /api/servers | jq -r '.servers[] | select(.name == "soak-agent" and .status == "connected") | .id')
	[ -n "$sid" ] && break
	sleep 0.2
done
[ -n "$sid" ] || { echo "bench/soak: the agent did not connect: $(tail -3 "$work/agent.err")" >&2; exit 1; }

# Of process $1: "rss_kB fds programs maps".
footprint() {
	local rss fds progs maps
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status")
	fds=$(ls "/proc/$1/fd" | wc -l)
	progs=$({ cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '$1 == "prog_id:" { print $2 }' | sort -u | wc -l)
	maps=$({ cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '$1 == "map_id:" { print $2 }' | sort -u | wc -l)
	echo "$rss $fds $progs $maps"
}
held() { { cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '$1 == "prog_id:" { print $2 }'; }

# capture SERVER QUESTION: asks for it, waits for its end; prints done or failed.
capture() {
	local body phase
	if [ "$2" = threads ]; then body='{"question": "threads"}'
	else body="{\"question\": \"$2\", \"seconds\": $CAPTURE_SECONDS}"; fi
	api POST "/api/servers/$1/capture" -H 'Content-Type: application/json' -d "$body" >/dev/null ||
		{ echo "failed"; return; }
	for _ in $(seq 1800); do
		phase=$(api GET "/api/servers/$1/capture" | jq -r 'if .running then "" else .phase end')
		[ -n "$phase" ] && break
		sleep 0.1
	done
	[ "$phase" = "done" ] && echo "done" || echo "failed"
}

echo -e "n\tseconds\tserver\tquestion\toutcome\tserve_rss_kb\tserve_fds\tserve_progs\tserve_maps\tagent_rss_kb\tagent_fds\tagent_progs\tagent_maps" > "$log"
start=$(date +%s)
n=0
asked_local=0 asked_agent=0 failed=0
held_programs_seen=""
echo "soak: serve (pid $serve) and an agent (pid $agent), captures of $QUESTIONS of ${CAPTURE_SECONDS} s for ${SOAK_SECONDS} s"
while [ $(( $(date +%s) - start )) -lt "$SOAK_SECONDS" ]; do
	for q in $QUESTIONS; do
		for server in local "$sid"; do
			outcome=$(capture "$server" "$q")
			n=$((n + 1))
			if [ "$server" = local ]; then asked_local=$((asked_local + 1)); else asked_agent=$((asked_agent + 1)); fi
			[ "$outcome" = "done" ] || failed=$((failed + 1))
			held_programs_seen=$(printf '%s\n%s\n%s\n' "$held_programs_seen" "$(held "$serve")" "$(held "$agent")" | sort -u)
			printf '%d\t%d\t%s\t%s\t%s\t%s\t%s\n' "$n" $(( $(date +%s) - start )) \
				"$([ "$server" = local ] && echo serve || echo agent)" "$q" "$outcome" \
				"$(footprint "$serve" | tr ' ' '\t')" "$(footprint "$agent" | tr ' ' '\t')" >> "$log"
		done
	done
done

# Stored against done: the agent's arrive through its spool (give it a moment).
sleep 5
stored_local=$(api GET "/api/servers/local/profiles?limit=1" | jq -r .total)
stored_agent=$(api GET "/api/servers/$sid/profiles?limit=1" | jq -r .total)
done_local=$(awk -F'\t' '$3 == "serve" && $5 == "done"' "$log" | wc -l)
done_agent=$(awk -F'\t' '$3 == "agent" && $5 == "done"' "$log" | wc -l)
kill -TERM "$agent"; wait "$agent" || echo "bench/soak: the agent did not exit 0" >&2
kill -TERM "$serve"; wait "$serve" || echo "bench/soak: serve did not exit 0" >&2
left=""
for p in $held_programs_seen; do
	for _ in $(seq 100); do bpftool prog show id "$p" >/dev/null 2>&1 || continue 2; sleep 0.1; done
	left="$left $p"
done

awk -F'\t' -v asked_local="$asked_local" -v asked_agent="$asked_agent" -v failed="$failed" \
	-v stored_local="$stored_local" -v stored_agent="$stored_agent" -v left="${left:-none}" \
	-v done_local="$done_local" -v done_agent="$done_agent" '
	NR == 1 { next }
	{ last = $0; for (i = 6; i <= 13; i++) { v[i] = $i; if ($i > max[i]) max[i] = $i } }
	NR == 11 { for (i = 6; i <= 13; i++) ten[i] = $i }
	function mb(kb) { return sprintf("%.0f MB", kb / 1024) }
	END {
		n = NR - 1
		if (!(6 in ten)) for (i = 6; i <= 13; i++) ten[i] = v[i]
		printf "\n%d captures in %d s (%d of serve'\''s server, %d of the agent'\''s), %d failed\n", n, $2, asked_local, asked_agent, failed
		printf "%-22s %14s %14s %14s\n", "", "after 10", "at the end", "worst"
		printf "%-22s %14s %14s %14s\n", "serve RSS", mb(ten[6]), mb(v[6]), mb(max[6])
		printf "%-22s %14d %14d %14d\n", "serve descriptors", ten[7], v[7], max[7]
		printf "%-22s %14d %14d %14d\n", "serve BPF programs", ten[8], v[8], max[8]
		printf "%-22s %14d %14d %14d\n", "serve BPF maps", ten[9], v[9], max[9]
		printf "%-22s %14s %14s %14s\n", "agent RSS", mb(ten[10]), mb(v[10]), mb(max[10])
		printf "%-22s %14d %14d %14d\n", "agent descriptors", ten[11], v[11], max[11]
		printf "%-22s %14d %14d %14d\n", "agent BPF programs", ten[12], v[12], max[12]
		printf "%-22s %14d %14d %14d\n", "agent BPF maps", ten[13], v[13], max[13]
		printf "stored: %d of %d done on serve'\''s server, %d of %d on the agent'\''s\n", stored_local,
			done_local, stored_agent, done_agent
		printf "BPF programs still loaded after both stopped: %s\n", left
	}' "$log"
echo "each capture's line: $log$([ -n "${SOAK_LOG:-}" ] || echo " (kept as /tmp/slideops-soak-last.tsv)")"
[ "$failed" = 0 ] && [ "$stored_local" = "$done_local" ] && [ "$stored_agent" = "$done_agent" ] &&
	[ -z "$left" ] || { echo "bench/soak: FAILED (failed $failed, stored $stored_local/$done_local and $stored_agent/$done_agent, left loaded:${left:- none})" >&2; exit 1; }
