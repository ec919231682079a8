#!/usr/bin/env bash
# Issue 28, 11: libmicrohttpd's own error pages carry the headers the rest of serve sends
# (Content-Security-Policy, nosniff, no frames, no referrer). Requests it refuses before
# serve sees them: a request line without a path and a length that is not a number (400), a header past its buffer (431),
# a chunked body whose chunk size is not a number (400), an HTTP version it does not
# speak (505); and, beside them, one of serve's own refusals.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

start_serve
# page REQUEST: the response's status line and headers to REQUEST sent as it is.
page() {
	python3 - "$PORT" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
req = sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
if req.startswith(b"BIGHEADER"):
    req = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 65536 + b"\r\n\r\n"
try:
    s.sendall(req)
except OSError:
    pass
data = b""
try:
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
except OSError:
    pass
print(data.split(b"\r\n\r\n")[0].decode("latin-1"))
PY
}
check() { # check WHAT WANT-STATUS REQUEST
	local got
	got=$(page "$3")
	head -1 <<<"$got" | has " $2 " || fail "$1: not $2: $(head -1 <<<"$got")"
	for h in "Content-Security-Policy: default-src 'none'" "X-Content-Type-Options: nosniff" \
		"X-Frame-Options: DENY" "Referrer-Policy: no-referrer"; do
		has -F "$h" <<<"$got" || fail "$1 ($2) lacks $h: $got"
	done
	echo "  $1: $(head -1 <<<"$got"), with the headers"
}
check "a request line without a path" 400 'GET  HTTP/1.1\r\n\r\n'
check "a length that is not a number" 400 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n'
check "a header past libmicrohttpd's buffer" 431 BIGHEADER
check "a chunk size that is not a number" 400 'POST /agent/enrol HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n'
check "an HTTP version it does not speak" 505 'GET / HTTP/3.0\r\nHost: 127.0.0.1\r\n\r\n'
check "serve's own refusal" 401 'GET /api/servers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
stop_serve
echo ok
