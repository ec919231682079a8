#!/usr/bin/env bash
# slideops serve against clients that mean harm, before the token is even asked for:
# hundreds of idle or trickling connections do not keep an authenticated request out;
# a URL is acted on whole or refused (never cut at %00 nor at a length); a request whose
# length is said two ways is refused, and what it smuggled is never run; an export
# works on a read-only workspace and on a full one; 32 clients reading a locks profile's
# page at once do not grow serve past 64 MB; and the smaller refusals are said.
#
# SERVE_CLIENTS_CASES="idle url" runs those cases alone (all by default).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
CASES=${SERVE_CLIENTS_CASES:-idle trickle url framing export small uploads memory host}
RSS_MAX_KB=$((64 * 1024))

# One profile to serve, taken with the command line.
workload busy_leaf busy
cg=$(make_cgroup system.slice/slideops-serve-clients.service)
start_in_cgroup "$cg" "$WORK/busy" >/dev/null
"$SLIDEOPS" capture cpu -d 1 --json > "$WORK/cap.json" 2>"$WORK/err" || fail "capture: $(cat "$WORK/err")"
ID=$(jq -r .id "$WORK/cap.json")
start_serve

# hold N: N connections to serve held open in the background, sending nothing, until the
# test ends. Waits until all are open.
hold() {
	python3 - "$PORT" "$1" "$WORK/held.$1" <<'PY' &
import resource, socket, sys, time
port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
open(ready, "w").write("open\n")
time.sleep(600)
PY
	defer "kill $! 2>/dev/null"
	for _ in $(seq 300); do [ -e "$WORK/held.$1" ] && return 0; sleep 0.1; done
	fail "could not open $1 connections to serve"
}

# answered WHAT: an authenticated request is answered within 5 s (the failure deadline
# of a server that holds none of its connections for it, not a measure of speed).
answered() {
	local code
	code=$(curl -s -m 5 -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
		"$BASE/api/servers" || true)
	[ "$code" = 200 ] || fail "with $1 held, an authenticated request got no answer (HTTP $code)"
}

case_idle() {
	# 200 idle connections from this address, then a request from it.
	hold 200
	answered "200 idle connections"
	# Past what one address may hold idle: the newest displace the oldest, the request
	# still gets in.
	hold 1100
	answered "1300 idle connections"
}

case_trickle() {
	# A byte a second never makes a header: the connection is dropped all the same.
	python3 - "$PORT" <<'PY' || fail "a connection trickling a header byte by byte was never dropped"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(1)
for _ in range(120):
    try:
        s.send(b"G")
        if s.recv(1) == b"":
            sys.exit(0)
    except socket.timeout:
        continue
    except OSError:
        sys.exit(0)
sys.exit(1)
PY
	answered "a trickling connection"
}

case_url() {
	# %00 ends the path in the HTTP layer: refused, never acted on as the path before it.
	expect 400 DELETE "/api/profiles/$ID%00/flamegraph"
	jq -e '.error | test("NUL")' "$WORK/body" >/dev/null || fail "a %00 in the path said $(cat "$WORK/body")"
	expect 400 GET "/api/profiles/$ID/export?format=folded%00.svg"
	# Longer than the router once held: the whole path, and here no such path.
	local slashes
	slashes=$(printf '/%.0s' $(seq 1100))
	code=$(api DELETE "/api/profiles/$ID${slashes}export")
	[ "$code" = 404 ] || fail "a path of 1100 slashes: HTTP $code, want 404: $(cat "$WORK/body")"
	expect 404 DELETE "/api/profiles/$ID/"
	expect 414 GET "/api/profiles/$ID?pad=$(head -c 5000 /dev/zero | tr '\0' x)"
	# An id holding an encoded '/' is one id, not two parts of a path.
	expect 404 GET "/api/profiles/$ID%2Fflamegraph"
	expect 200 GET "/api/profiles/$ID"
}

# raw REQUEST: sent as it is on one connection; prints every status line answered.
raw() {
	python3 - "$PORT" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
data = b""
try:
    while chunk := s.recv(65536):
        data += chunk
except socket.timeout:
    pass
for line in data.split(b"\r\n"):
    if line.startswith(b"HTTP/1."):
        print(line.decode())
PY
}

case_framing() {
	local smuggled="DELETE /api/profiles/$ID HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $TOKEN\r\nContent-Length: 0\r\n\r\n"
	local n=${#smuggled} head="GET /api/servers HTTP/1.1\r\nHost: 127.0.0.1:$PORT\r\nAuthorization: Bearer $TOKEN\r\n"
	got=$(raw "${head}Content-Length: 0\r\nContent-Length: $n\r\n\r\n$smuggled")
	[ "$got" = "HTTP/1.1 400 Bad Request" ] || fail "two Content-Lengths were answered: $got"
	got=$(raw "${head}Content-Length: $n\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n$smuggled")
	[ "$got" = "HTTP/1.1 400 Bad Request" ] || fail "Content-Length beside Transfer-Encoding was answered: $got"
	got=$(raw "${head}Content-Length: 0\r\nContent-Length: 0\r\n\r\n")
	[ "$got" = "HTTP/1.1 400 Bad Request" ] || fail "a repeated Content-Length was answered: $got"
	expect 200 GET "/api/profiles/$ID"
}

# Exports from a workspace that cannot be written: read-only, then full. The workspace is
# copied to a small tmpfs of its own, served from there.
case_export() {
	local mnt=$WORK/ws saved=$SLIDEOPS_DATA fmt
	mkdir "$mnt"
	mount -t tmpfs -o size=32m,mode=700 tmpfs "$mnt" || skip "cannot mount a tmpfs"
	defer "umount -l '$mnt' 2>/dev/null"
	cp -a "$SLIDEOPS_DATA/." "$mnt/"
	"$SLIDEOPS" show "$ID" --export folded "$WORK/cli.folded" >/dev/null
	SLIDEOPS_DATA=$mnt
	start_serve
	mount -o remount,ro "$mnt"
	for fmt in folded pprof; do
		code=$(api GET "/api/profiles/$ID/export?format=$fmt")
		[ "$code" = 200 ] || fail "$fmt export on a read-only workspace: HTTP $code: $(cat "$WORK/body")"
	done
	gzip -t "$WORK/body" || fail "the pprof export on a read-only workspace is not gzip"
	mount -o remount,rw "$mnt"
	dd if=/dev/zero of="$mnt/fill" bs=1M 2>/dev/null || true
	[ "$(df --output=avail "$mnt" | tail -1)" -lt 64 ] || fail "could not fill the workspace"
	code=$(api GET "/api/profiles/$ID/export?format=folded")
	[ "$code" = 200 ] || fail "folded export on a full workspace: HTTP $code: $(cat "$WORK/body")"
	cmp -s "$WORK/body" "$WORK/cli.folded" || fail "the export on a full workspace differs from the CLI's"
	stop_serve
	SLIDEOPS_DATA=$saved
	start_serve
}

case_small() {
	expect 400 GET "/api/profiles/$ID/flamegraph?colour=purple"
	[ "$(jq -r .error "$WORK/body")" = "'purple' is not a colouring; use colour=language or colour=group" ] ||
		fail "a bad colour said $(cat "$WORK/body")"
	expect 400 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": "ten"}'
	[ "$(jq -r .error "$WORK/body")" = "'\"ten\"' is not a whole number from 1 to 3600 for seconds" ] ||
		fail "a bad number said $(cat "$WORK/body")"
	expect 400 POST /api/servers/local/capture -d '{"question": "cpu", "hz": 5000}'
	jq -e '.error | startswith("'"'"'5000'"'"' is not")' "$WORK/body" >/dev/null ||
		fail "a bad hz said $(cat "$WORK/body")"
	# The scheme of Authorization in any case.
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: bearer $TOKEN" "$BASE/api/servers")
	[ "$code" = 200 ] || fail "'bearer' in lower case: HTTP $code"
	# Signing in on a page's URL comes back to that page, the token gone.
	curl -s -D "$WORK/h" -o /dev/null "$BASE/profiles/$ID?token=$TOKEN&tab=flame"
	grep -qi "^Location: /profiles/$ID?tab=flame"$'\r'"\?$" "$WORK/h" ||
		fail "signing in at a profile's page sends to $(grep -i '^location' "$WORK/h")"
	curl -s -D "$WORK/h" -o /dev/null "$BASE//evil.example/?token=$TOKEN"
	grep -qi '^Location: /\s*$' "$WORK/h" || fail "signing in redirects off the server: $(grep -i '^location' "$WORK/h")"
}

case_uploads() {
	printf '\x7fELF' > "$WORK/x.debug"
	# An upload named as a directory is refused, never kept with an empty name.
	code=$(api POST '/api/symbols?name=/' --data-binary @"$WORK/x.debug")
	[ "$code" = 400 ] && [ "$(jq -r .error "$WORK/body")" = "'/' names no file; give the upload's file name (?name=app.debug)" ] ||
		fail "an upload named / : HTTP $code $(cat "$WORK/body")"
	# Uploads being read at once hold 2 GB of disk at most: of three said to be 1 GB each,
	# sent at once, one is refused before a byte of it is kept (which one: whichever serve
	# reads last), the two others wait for their bodies.
	python3 - "$PORT" "$TOKEN" <<'PY' || fail "a third 1 GB upload at once was not refused"
import select, socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
def start():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"POST /api/symbols?name=a.debug HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              f"Authorization: Bearer {token}\r\nContent-Length: {1 << 30}\r\n\r\n\x7fELF".encode())
    return s
uploads = [start(), start(), start()]
answers = {}
end = time.time() + 10
while len(answers) < 2 and time.time() < end:
    ready, _, _ = select.select([u for u in uploads if u not in answers], [], [], 1)
    for u in ready:
        answers[u] = u.recv(4096).decode(errors="replace")
    if answers:
        time.sleep(1)  # time for a second answer, which must not come
print([a.splitlines()[0] if a else "closed" for a in answers.values()], file=sys.stderr)
sys.exit(0 if len(answers) == 1 and all(a.startswith("HTTP/1.1 503") and "other uploads" in a
                                        for a in answers.values()) else 1)
PY
	# Once they end, their share is given back (as soon as serve sees them closed).
	for _ in $(seq 50); do
		code=$(api POST '/api/symbols?name=x.debug' -H "Content-Length: $((1 << 30))" \
			--data-binary @"$WORK/x.debug" -m 2 || true)
		[ "$code" != 503 ] && break
		sleep 0.1
	done
	[ "$code" != 503 ] || fail "the upload budget was not given back when its uploads ended"
}

# A locks profile of this machine (every futex wait in it), its page's two documents asked
# for by 32 clients at once, three times: each profile read is tens of MB for a moment.
case_memory() {
	local lid clients
	if ! "$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.locks' >/dev/null; then
		echo "memory: this server cannot capture locks; not tried"
		return 0
	fi
	# A sanitizer's shadow memory and quarantine are most of what it would measure.
	if grep -q libasan "/proc/$SERVE_PID/maps"; then
		echo "memory: serve runs under AddressSanitizer; not measured"
		return 0
	fi
	"$SLIDEOPS" capture locks -d 3 --json > "$WORK/locks.json" 2>"$WORK/err" ||
		fail "capture locks: $(cat "$WORK/err")"
	lid=$(jq -r .id "$WORK/locks.json")
	echo 5 > "/proc/$SERVE_PID/clear_refs"
	: > "$WORK/codes"
	for _ in 1 2 3; do
		clients=()
		for _ in $(seq 32); do
			curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
				"$BASE/api/profiles/$lid" >> "$WORK/codes" &
			clients+=($!)
			curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
				"$BASE/api/profiles/$lid/flamegraph" >> "$WORK/codes" &
			clients+=($!)
		done
		wait "${clients[@]}"
	done
	[ "$(grep -c '^200$' "$WORK/codes")" = 192 ] ||
		fail "32 clients at once were not all answered: $(sort "$WORK/codes" | uniq -c | tr '\n' ' ')"
	peak=$(rss_peak_kb "$SERVE_PID")
	echo "serve peak RSS through 32 clients reading a locks profile's page: $((peak / 1024)) MB"
	[ "$peak" -le "$RSS_MAX_KB" ] || fail "serve's peak RSS was ${peak} kB, over $RSS_MAX_KB kB"
}

case_host() {
	code=$(curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
		-H "Host: rebound.example:$PORT" "$BASE/api/servers")
	[ "$code" = 421 ] || fail "a foreign Host name: HTTP $code"
	for host in "localhost:$PORT" "127.0.0.1:$PORT" "[::1]:$PORT" "$(hostname):$PORT"; do
		code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
			-H "Host: $host" "$BASE/api/servers")
		[ "$code" = 200 ] || fail "Host $host: HTTP $code"
	done
	got=$(raw "GET /api/servers HTTP/1.1\r\nAuthorization: Bearer $TOKEN\r\n\r\n")
	[ "$got" = "HTTP/1.1 400 Bad Request" ] || fail "HTTP/1.1 without Host was answered: $got"
	got=$(raw "GET /api/servers HTTP/1.0\r\nAuthorization: Bearer $TOKEN\r\n\r\n")
	[ "$got" = "HTTP/1.1 200 OK" ] || fail "HTTP/1.0 without Host was refused: $got"
	stop_serve
	SERVE_ARGS="--allow-host profiler.example" start_serve
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
		-H "Host: Profiler.Example:$PORT" "$BASE/api/servers")
	[ "$code" = 200 ] || fail "a name given with --allow-host: HTTP $code"
	rc=0
	"$SLIDEOPS" serve --allow-host 'bad name' >/dev/null 2>"$WORK/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "is not a host name for --allow-host" "$WORK/err" ||
		fail "a bad --allow-host: exit $rc, $(cat "$WORK/err")"
}

for c in $CASES; do
	"case_$c"
	echo "ok $c"
done
kill -0 "$SERVE_PID" || fail "serve died"
stop_serve
echo "ok"
