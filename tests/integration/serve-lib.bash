# Shared by the serve_*.sh tests (not a test itself: tests/run.sh runs *.sh): a real
# `slideops serve` on loopback, and curl.
# Sourced after lib.sh.

# start_serve: starts serve on a free loopback port with the test's workspace (and
# $SERVE_ARGS); sets SERVE_PID, PORT, BASE (http://127.0.0.1:PORT), TOKEN. Stopped at exit.
start_serve() {
	local port url i
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$SLIDEOPS" serve --listen "127.0.0.1:$port" ${SERVE_ARGS:-} >"$WORK/serve.out" 2>"$WORK/serve.err" &
	SERVE_PID=$!
	defer "kill -TERM $SERVE_PID 2>/dev/null; wait $SERVE_PID 2>/dev/null"
	for i in $(seq 100); do
		url=$(grep -o 'http://[^ ]*' "$WORK/serve.out" 2>/dev/null || true)
		[ -n "$url" ] && break
		kill -0 "$SERVE_PID" 2>/dev/null || fail "serve exited: $(cat "$WORK/serve.err")"
		sleep 0.1
	done
	[ -n "$url" ] || fail "serve printed no URL: $(cat "$WORK/serve.out" "$WORK/serve.err")"
	grep -q "^SlideOps is at http://127.0.0.1:$port/?token=" "$WORK/serve.out" ||
		fail "serve's first line is not the URL to open: $(head -1 "$WORK/serve.out")"
	PORT=$port
	BASE="http://127.0.0.1:$port"
	TOKEN=${url##*token=}
}

# api METHOD PATH [curl args...]: with the token; the body goes to $WORK/body, the
# status is printed.
api() {
	local method=$1 path=$2; shift 2
	curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" \
		-H "Authorization: Bearer $TOKEN" "$@" "$BASE$path"
}

# expect STATUS METHOD PATH [curl args...]: that status, or fail with the body.
expect() {
	local want=$1 got rc=0; shift
	got=$(api "$@") || rc=$?
	[ "$rc" = 0 ] || fail "$1 $2: no answer (curl exit $rc; serve: $(tail -3 "$WORK/serve.err"))"
	[ "$got" = "$want" ] || fail "$1 $2: HTTP $got, want $want: $(head -c 600 "$WORK/body")"
}

# same_json A B: the two files hold the same JSON document.
same_json() {
	python3 - "$1" "$2" <<'PY' || fail "the API's document differs from the CLI's ($1 vs $2)"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a != b:
    print("api:", json.dumps(a)[:800], "\ncli:", json.dumps(b)[:800], file=sys.stderr)
    sys.exit(1)
PY
}

# serve_capture QUESTION SECONDS: asks serve for a capture of this server.
serve_capture() {
	expect 202 POST /api/servers/local/capture -H 'Content-Type: application/json' \
		-d "{\"question\": \"$1\", \"seconds\": $2}"
}

# serve_capture_done: waits for serve's capture to end, done, with a profile; the profile
# document in $WORK/body.
serve_capture_done() {
	for _ in $(seq 600); do
		expect 200 GET /api/servers/local/capture
		[ "$(jq -r .running "$WORK/body")" = false ] && break
		sleep 0.2
	done
	jq -e '.phase == "done" and (.profile_id | length) > 0' "$WORK/body" >/dev/null ||
		fail "the capture ended as $(cat "$WORK/body")"
	expect 200 GET "/api/profiles/$(jq -r .profile_id "$WORK/body")"
}

# rss_peak_kb PID: the process's peak resident set (VmHWM), in kB.
rss_peak_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# stop_serve: SIGTERM, as Ctrl-C; serve must exit 0 and, under a sanitizer build
# (SLIDEOPS=build/asan/slideops), have reported nothing.
stop_serve() {
	local rc=0
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID" || rc=$?
	[ "$rc" = 0 ] || fail "serve exited $rc on SIGTERM: $(tail -20 "$WORK/serve.err")"
	! grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error' "$WORK/serve.err" ||
		fail "serve's sanitizers reported: $(head -40 "$WORK/serve.err")"
	grep -q '^SlideOps stopped.$' "$WORK/serve.out" || fail "serve did not say it stopped"
}
