#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Ingest: N simulated agents (ingest.c) delivering stored captures to one workspace
# (`slideops serve`), on each store backend, side by side in one run. The captures are
# real: CAPTURES `slideops capture cpu` of this machine first, whose stored gzip'd pprof
# blobs every agent then sends in turn as Batches (each new: its own boot id, the next
# sequence), each waiting for its reply as `slideops agent` does. Each agent is enrolled
# for real (POST /api/enrolments, /agent/enrol: a credential of its own). For each
# backend (SQLite data directory; PostgreSQL 15 as tests/tools/pg-server.sh runs one,
# fsync on) and each N in AGENTS, ROUNDS times, interleaved, a fresh workspace for
# SECONDS:
#
#   captures stored per second; the workspace process's CPU (user + system from
#   /proc/PID/stat) and CPU per capture; its peak RSS (VmHWM); p50/p99 of
#   GET /api/profiles?limit=50, asked every 100 ms meanwhile.
#
# N = 0 is the peer of the list's latency: the same workspace, nobody ingesting.
# Then the medians over rounds.
#
#   bench/agent/ingest.sh                     3 rounds of 15 s (root: it captures)
#   AGENTS="1 10" ROUNDS=1 SECONDS_EACH=10 BACKENDS=sqlite bench/agent/ingest.sh
#   RESULTS=bench/agent/ingest.tsv bench/agent/ingest.sh     also appends the medians
#
# Not a test: the figures move with whatever else the machine runs (the load average
# is printed with them). Run it on a quiet one.
set -euo pipefail
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
AGENTS=${AGENTS:-0 1 10 50}
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${SECONDS_EACH:-15}
CAPTURES=${CAPTURES:-3}
BACKENDS=${BACKENDS:-sqlite postgresql}
RESULTS=${RESULTS:-}

[ "$(id -u)" = 0 ] || { echo "bench/agent: run as root (it captures)" >&2; exit 1; }
[ -x "$SLIDEOPS" ] || { echo "bench/agent: $SLIDEOPS is not built (make)" >&2; exit 1; }

work=$(mktemp -d /tmp/slideops-bench-ingest.XXXXXX)
pg=$(mktemp -d /tmp/slideops-pg.XXXXXX)   # nobody runs PostgreSQL: not under $work
serve_pid=""
stop_serve() {
	[ -z "$serve_pid" ] || { kill -TERM "$serve_pid"; wait "$serve_pid"; } 2>/dev/null || true
	serve_pid=""
}
cleanup() {
	stop_serve
	"$top/tests/tools/pg-server.sh" stop "$pg" >/dev/null 2>&1 || rm -rf "$pg"
	rm -rf "$work"
}
trap 'bench_report_failure $?; cleanup' EXIT

gcc -O2 -std=c11 -D_GNU_SOURCE -pthread -I"$top/build/gen" -o "$work/ingest" \
	"$top/bench/agent/ingest.c" "$top/build/gen/agent.pb-c.c" -lcurl -ljansson -lprotobuf-c

# The captures: real profiles of this machine, as a workspace stores them.
for _ in $(seq "$CAPTURES"); do
	SLIDEOPS_DATA=$work/template "$SLIDEOPS" capture cpu -d 2 >/dev/null
done
blobs=("$work"/template/profiles/*.pb.gz)
echo "bench/agent ingest: ${#blobs[@]} captures of $(du -cb "${blobs[@]}" | tail -1 |
	awk -v n=${#blobs[@]} '{ printf "%.0f", $1 / n / 1024 }') KB each (gzip'd)," \
	"$SECONDS_EACH s a run, $ROUNDS rounds; $(nproc) cores"

if [[ " $BACKENDS " == *" postgresql "* ]]; then
	rc=0
	PG_FSYNC=on "$top/tests/tools/pg-server.sh" start "$pg" >/dev/null || rc=$?
	if [ "$rc" = 77 ]; then
		echo "  (PostgreSQL 15 is not installed: SQLite only)"
		BACKENDS=${BACKENDS/postgresql/}
	elif [ "$rc" != 0 ]; then
		echo "bench/agent: PostgreSQL did not start" >&2; exit 1
	fi
	export PGPASSFILE=$pg/pgpass
fi

# start_serve BACKEND NAME: a fresh workspace; sets base, token, serve_pid.
start_serve() {
	local args=() port
	case $1 in
	sqlite) ;;
	postgresql)
		"$top/tests/tools/pg-server.sh" createdb "$pg" "$2"
		args=(--store "$(cat "$pg/url")/$2") ;;
	esac
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	SLIDEOPS_DATA=$work/data-$2 "$SLIDEOPS" serve --listen "127.0.0.1:$port" "${args[@]}" \
		>"$work/serve.out" 2>"$work/serve.err" &
	serve_pid=$!
	for _ in $(seq 100); do grep -q token= "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
	token=$(grep -o 'token=[0-9a-f]*' "$work/serve.out" | cut -d= -f2)
	[ -n "$token" ] ||
		{ echo "bench/agent: serve did not start: $(cat "$work/serve.err")" >&2; exit 1; }
	base=http://127.0.0.1:$port
}

run=0
for round in $(seq "$ROUNDS"); do
	echo "round $round (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	for backend in $BACKENDS; do
		for n in $AGENTS; do
			run=$((run + 1))
			start_serve "$backend" "w$run"
			out=$("$work/ingest" "$base" "$token" "$serve_pid" "$n" "$SECONDS_EACH" \
				"${blobs[@]}")
			stop_serve
			echo "$backend $out load=$(cut -d' ' -f1 /proc/loadavg)" >> "$work/results"
			printf '  %-10s %s\n' "$backend" "$out"
		done
	done
done

echo
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo -)
python3 - "$work/results" "$RESULTS" "$rev" <<'PY'
import statistics, sys, time
rows = {}
for line in open(sys.argv[1]):
    backend, *kv = line.split()
    d = {k: float(v) for k, v in (x.split("=") for x in kv)}
    rows.setdefault((backend, int(d["agents"])), []).append(d)
cols = [("captures_per_s", "captures/s", "%.1f"), ("cpu_s", "cpu s", "%.2f"),
        ("cpu_ms_per_capture", "cpu ms/capture", "%.1f"), ("rss_kb", "peak RSS MB", "%.1f"),
        ("list_p50_ms", "list p50 ms", "%.1f"), ("list_p99_ms", "list p99 ms", "%.1f"),
        ("failed", "failed", "%.0f"), ("load", "load", "%.2f")]
print("medians over rounds; list p99 vs N=0 (nobody ingesting) on the same backend")
print("%-10s %6s" % ("backend", "agents") + "".join(" %14s" % c[1] for c in cols)
      + " %12s" % "p99 vs N=0")
out = open(sys.argv[2], "a") if sys.argv[2] else None
for (backend, n), ds in sorted(rows.items()):
    med = {k: statistics.median(d[k] for d in ds) for k, _, _ in cols}
    med["rss_kb"] /= 1024
    idle = rows.get((backend, 0))
    base = statistics.median(d["list_p99_ms"] for d in idle) if idle else 0
    ratio = med["list_p99_ms"] / base if base else float("nan")
    print("%-10s %6d" % (backend, n) + "".join(" %14s" % (f % med[k]) for k, _, f in cols)
          + " %11.2fx" % ratio)
    if out:
        if out.tell() == 0:
            out.write("date\tcommit\tbackend\tagents\t" +
                      "\t".join(k.replace("rss_kb", "peak_rss_mb") for k, _, _ in cols
                                if k != "failed") + "\n")
        out.write("%s\t%s\t%s\t%d\t" % (time.strftime("%Y-%m-%d"), sys.argv[3], backend, n)
                  + "\t".join(f % med[k] for k, _, f in cols if k != "failed") + "\n")
PY
