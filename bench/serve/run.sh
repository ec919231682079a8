#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The workspace server, side by side with a peer in one run:
#
#   1. wrk against the profile list's first page (NPROFILES stored, 10k by default, each
#      with its file) and one profile, beside python3's http.server serving the very same
#      documents as static files (the floor for "a JSON document over HTTP" on this
#      machine): requests per second, p99 latency, and serve's peak RSS; with
#      BASELINE=OLDER/slideops, the same against that build in the same run, as ratios;
#   2. a 1 GB upload of debug symbols (a debug file padded to 1 GB) through the API:
#      wall time and serve's peak RSS, beside `cp` of the same file (the disk's floor);
#   3. slow clients: wrk against the list's first page with the token, alone, then while
#      500 idle and 100 trickling connections (a byte a second, never a whole header) are
#      held from the same address, reopened as serve drops them: requests per second and
#      p99 of both, as a ratio, and serve's RSS under both;
#   4. the hostile mix (bench/serve/hostile.sh, issue 28): the UI while 1,000 slow
#      connections and 200 fast pollers run, beside it alone, and serve's peak RSS under
#      each attack on the agent endpoints against its cap (docs/security.md).
#
# Targets (issue 12): upload peak RSS <= 64 MB.
#
#   bench/serve/run.sh            (make bench-deps first; root: it takes one capture)
#   BASELINE=/path/to/old/slideops bench/serve/run.sh
set -euo pipefail
# A failure says what failed (bench/lib.sh).
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
NPROFILES=${NPROFILES:-10000}
SECONDS_EACH=${SECONDS_EACH:-5}
work=$(mktemp -d /tmp/slideops-bench-serve.XXXXXX)
data=$work/data
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap 'bench_report_failure $?; cleanup' EXIT
command -v wrk >/dev/null || { echo "bench/serve: wrk is missing: make bench-deps" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---- a workspace with NPROFILES profiles: one capture, its index row and its file copied
# (hard links: as many files in profiles/ as a real workspace of that size has) ----
SLIDEOPS_DATA=$data "$SLIDEOPS" capture cpu -d 2 >/dev/null
id=$(SLIDEOPS_DATA=$data "$SLIDEOPS" profiles --json | jq -r '.profiles[0].id')
sqlite3 "$data/workspace.db" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $NPROFILES - 1)
INSERT INTO profiles (id, question, server, started_at_ns, duration_ns, answer, blob, saved_at_ns)
SELECT id || '-' || i, question, server, started_at_ns - i * 1000000000, duration_ns, answer,
       id || '-' || i || '.pb.gz', saved_at_ns FROM profiles, n WHERE profiles.id = '$id';
SQL
python3 - "$data/profiles" "$id" "$NPROFILES" <<'PY'
import os, sys
d, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(1, n):
    os.link(f"{d}/{pid}.pb.gz", f"{d}/{pid}-{i}.pb.gz")
PY

# serve_start BINARY: serve on a free port with the workspace; sets serve, base, token.
serve_start() {
	local port
	port=$(free_port)
	SLIDEOPS_DATA=$data "$1" serve --listen "127.0.0.1:$port" > "$work/serve.out" 2>&1 &
	serve=$!
	pids+=("$serve")
	for _ in $(seq 100); do grep -q token= "$work/serve.out" && break; sleep 0.1; done
	grep -q token= "$work/serve.out" || { echo "serve did not start" >&2; exit 1; }
	token=$(sed -n 's/.*token=//p' "$work/serve.out")
	base=http://127.0.0.1:$port
}
serve_stop() { kill "$serve"; wait "$serve" 2>/dev/null || true; }

# bench URL [header]: "rps p99_ms"
bench() {
	local out
	out=$(wrk -t2 -c8 -d"${SECONDS_EACH}s" --latency ${2:+-H "$2"} "$1")
	local rps p99
	rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
	p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 }
		else if (v ~ /ms$/) sub(/ms$/, "", v); else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
		print v }' <<<"$out")
	echo "$rps $p99"
}

# measure BINARY LABEL: the list's first page and one profile under wrk, then serve's
# peak RSS; one line each into $work/LABEL.
measure() {
	serve_start "$1"
	: > "$work/$2"
	for doc in "list:/api/profiles" "one profile:/api/profiles/$id"; do
		IFS=: read -r name path <<<"$doc"
		bytes=$(curl -s -H "Authorization: Bearer $token" "$base$path" | wc -c)
		read -r rps p99 < <(bench "$base$path" "Authorization: Bearer $token")
		echo "$name|$bytes|$rps|$p99" >> "$work/$2"
	done
	echo "rss|$(( $(awk '/^VmHWM:/ { print $2 }' /proc/$serve/status) / 1024 ))" >> "$work/$2"
	serve_stop
}

echo "== serve: $NPROFILES profiles stored; wrk -t2 -c8 ${SECONDS_EACH}s each"
# BASELINE=an older build/slideops: the same requests to it in the same run, as ratios.
if [ -n "${BASELINE:-}" ]; then
	measure "$BASELINE" before
	measure "$SLIDEOPS" after
	printf '%-14s %10s %10s %10s   %s\n' "document" "bytes" "req/s" "p99 ms" "vs BASELINE"
	paste -d'|' <(grep -v ^rss "$work/after") <(grep -v ^rss "$work/before") |
	while IFS='|' read -r name bytes rps p99 _ bbytes brps bp99; do
		printf '%-14s %10s %10s %10s   baseline %s B, %s req/s, p99 %s ms: %.1fx the rate, %.2fx the p99\n' \
			"$name" "$bytes" "$rps" "$p99" "$bbytes" "$brps" "$bp99" \
			"$(echo "$rps / $brps" | bc -l)" "$(echo "$p99 / $bp99" | bc -l)"
	done
	a=$(sed -n 's/^rss|//p' "$work/after"); b=$(sed -n 's/^rss|//p' "$work/before")
	printf 'serve peak RSS after wrk: %d MB, baseline %d MB (%.2fx)\n' "$a" "$b" "$(echo "$a / $b" | bc -l)"
fi

serve_start "$SLIDEOPS"
# The peer: the same documents as files.
mkdir -p "$work/static"
curl -s -H "Authorization: Bearer $token" "$base/api/profiles" > "$work/static/list.json"
curl -s -H "Authorization: Bearer $token" "$base/api/profiles/$id" > "$work/static/one.json"
[ "$(jq '.total' "$work/static/list.json")" = "$NPROFILES" ] || { echo "the list does not hold $NPROFILES" >&2; exit 1; }
pport=$(free_port)
(cd "$work/static" && exec python3 -m http.server --bind 127.0.0.1 "$pport" >/dev/null 2>&1) &
pids+=("$!")
sleep 0.5
printf '%-28s %10s %10s   %s\n' "document" "req/s" "p99 ms" "vs python3 http.server (same bytes)"
for doc in "list, first page:/api/profiles:list.json" "one profile:/api/profiles/$id:one.json"; do
	IFS=: read -r name path file <<<"$doc"
	read -r rps p99 < <(bench "$base$path" "Authorization: Bearer $token")
	read -r prps pp99 < <(bench "http://127.0.0.1:$pport/$file")
	printf '%-28s %10s %10s   peer %s req/s, p99 %s ms: %.2fx the peer'"'"'s rate\n' \
		"$name ($(stat -c %s "$work/static/$file") B)" "$rps" "$p99" "$prps" "$pp99" \
		"$(echo "$rps / $prps" | bc -l)"
done
echo "serve peak RSS after wrk: $(( $(awk '/^VmHWM:/ { print $2 }' /proc/$serve/status) / 1024 )) MB"

# ---- 1 GB upload ----
cat > "$work/app.c" <<'C'
int f(int x) { return x * 3; }
int main(int argc, char **argv) { (void)argv; return f(argc); }
C
gcc -g -Wl,--build-id -o "$work/app" "$work/app.c"
objcopy --only-keep-debug "$work/app" "$work/app.debug"
size=$(stat -c %s "$work/app.debug")
{ cat "$work/app.debug"; head -c $(( (1 << 30) - size )) /dev/zero; } > "$work/app-1g.debug"
sync
# The upload's own peak: VmHWM starts again from the current RSS.
echo 5 > "/proc/$serve/clear_refs"
rss_before=$(( $(awk '/^VmRSS:/ { print $2 }' /proc/$serve/status) / 1024 ))
t0=$(date +%s.%N)
cp "$work/app-1g.debug" "$work/copy.debug"; sync
t1=$(date +%s.%N)
rm -f "$work/copy.debug"
code=$(curl -s -o "$work/up.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
	-H 'Content-Type: application/octet-stream' -X POST -T "$work/app-1g.debug" \
	"$base/api/symbols?name=app-1g.debug")
t2=$(date +%s.%N)
[ "$code" = 200 ] || { echo "the 1 GB upload failed: $code $(cat "$work/up.json")" >&2; exit 1; }
up=$(echo "$t2 - $t1" | bc -l)
cpt=$(echo "$t1 - $t0" | bc -l)
printf '== upload of 1 GB through the API: %.2f s, serve peak RSS %d MB during it (%d MB before; target <= 64); cp of the same file: %.2f s (%.2fx)\n' \
	"$up" "$(( $(awk '/^VmHWM:/ { print $2 }' /proc/$serve/status) / 1024 ))" "$rss_before" "$cpt" "$(echo "$up / $cpt" | bc -l)"
# CPU per request, which a busy shared machine changes less than the rate.
t=$(awk '{ print $14 + $15 }' /proc/$serve/stat)
for _ in $(seq 10); do curl -s -o /dev/null -H "Authorization: Bearer $token" "$base/api/profiles"; done
printf '== serve CPU per first page of the profile list of %d: %d ms\n' "$NPROFILES" \
	$(( ($(awk '{ print $14 + $15 }' /proc/$serve/stat) - t) * 1000 / $(getconf CLK_TCK) / 10 ))

# ---- slow clients: 500 idle and 100 trickling connections held, beside none ----
cat > "$work/hold.py" <<'PY'
# hold.py PORT IDLE TRICKLING SECONDS READY: keeps that many connections open to serve,
# the trickling ones sending a byte a second, each reopened when serve drops it; writes
# READY once all are open; prints how many serve dropped.
import resource, socket, sys, time
port, idle, trickling, seconds = (int(a) for a in sys.argv[1:5])
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def conn():
    try:
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        return s
    except OSError:
        return None
socks = [[conn(), i >= idle] for i in range(idle + trickling)]
open(sys.argv[5], "w").write("open\n")
dropped, end = 0, time.time() + seconds
while time.time() < end:
    for pair in socks:
        s, trickle = pair
        alive = s is not None
        if alive:
            try:
                alive = s.recv(4096) != b""
            except BlockingIOError:
                pass
            except OSError:
                alive = False
        if alive and trickle:
            try:
                s.send(b"G")
            except OSError:
                alive = False
        if not alive:
            if s is not None:
                s.close()
                dropped += 1
            pair[0] = conn()
    time.sleep(1)
print(dropped)
PY
rss_mb() { echo $(( $(awk "/^$2:/ { print \$2 }" /proc/$1/status) / 1024 )); }
port=${base##*:}
echo 5 > "/proc/$serve/clear_refs"
read -r rps p99 < <(bench "$base/api/profiles" "Authorization: Bearer $token")
alone="$rps $p99 $(rss_mb "$serve" VmRSS) $(rss_mb "$serve" VmHWM)"
python3 "$work/hold.py" "$port" 500 100 $(( SECONDS_EACH + 30 )) "$work/held" > "$work/dropped" &
holder=$!
pids+=("$holder")
for _ in $(seq 300); do [ -e "$work/held" ] && break; sleep 0.1; done
echo 5 > "/proc/$serve/clear_refs"
# serve's descriptors: the held connections and its own few.
fds=$(ls /proc/$serve/fd | wc -l)
read -r hrps hp99 < <(bench "$base/api/profiles" "Authorization: Bearer $token")
under="$hrps $hp99 $(rss_mb "$serve" VmRSS) $(rss_mb "$serve" VmHWM)"
held="$fds-$(ls /proc/$serve/fd | wc -l)"
wait "$holder" || true
read -r rps p99 rss hwm <<<"$alone"
read -r hrps hp99 hrss hhwm <<<"$under"
printf '== slow clients, wrk -t2 -c8 %ss on the list'"'"'s first page with the token:\n' "$SECONDS_EACH"
printf '   alone:                               %8s req/s, p99 %7s ms; serve RSS %d MB (peak %d MB)\n' \
	"$rps" "$p99" "$rss" "$hwm"
printf '   500 idle + 100 trickling held (%s fds): %8s req/s, p99 %7s ms; serve RSS %d MB (peak %d MB)\n' \
	"$held" "$hrps" "$hp99" "$hrss" "$hhwm"
printf '   %.2fx the rate, %.2fx the p99 under them; serve dropped %d of them (10 s without a header)\n' \
	"$(echo "$hrps / $rps" | bc -l)" "$(echo "$hp99 / $p99" | bc -l)" "$(cat "$work/dropped")"

# ---- the hostile mix (issue 28) ----
serve_stop
SLIDEOPS=$SLIDEOPS BASELINE=${BASELINE:-} SECONDS_EACH=$SECONDS_EACH "$top/bench/serve/hostile.sh"
