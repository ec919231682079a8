#!/usr/bin/env bash
# Where serve may listen: a non-loopback address without TLS is refused with the reason
# (the token would cross the network in clear), unless --insecure-http says so out loud;
# with --tls-cert/--tls-key it serves HTTPS, and the cookie and Origin follow https; only
# TLS 1.2 and 1.3 with forward secrecy, HSTS on every response; a certificate or key it
# cannot use is said as such; idle connections do not hold the TLS listener.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed"
command -v openssl >/dev/null || skip "openssl is not installed"

rc=0
"$SLIDEOPS" serve --listen 0.0.0.0:0 >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || fail "a non-loopback address without TLS: exit $rc"
grep -q "^slideops: serve: 0.0.0.0:0 is not a loopback address, so the token would cross the network in clear; give --tls-cert FILE --tls-key FILE, or --insecure-http if the network is yours$" "$WORK/err" ||
	fail "the refusal said: $(cat "$WORK/err")"
rc=0
"$SLIDEOPS" serve --listen 127.0.0.1 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "is not ADDR:PORT" "$WORK/err" || fail "a listen without a port: exit $rc, $(cat "$WORK/err")"
rc=0
"$SLIDEOPS" serve --tls-cert x.pem 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "go together" "$WORK/err" || fail "a cert without a key: exit $rc, $(cat "$WORK/err")"

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
	-days 1 -subj /CN=127.0.0.1 >/dev/null 2>&1 || skip "openssl cannot make a certificate"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/other-key.pem" -out "$WORK/other.pem" \
	-days 1 -subj /CN=127.0.0.1 >/dev/null 2>&1 || skip "openssl cannot make a certificate"

# A certificate or key serve cannot use: said as such, not as a listening failure.
rc=0
"$SLIDEOPS" serve --listen 127.0.0.1:0 --tls-cert /etc/passwd --tls-key "$WORK/key.pem" \
	>/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "^slideops: serve: /etc/passwd is not a PEM certificate" "$WORK/err" ||
	fail "a certificate that is not one: exit $rc, $(cat "$WORK/err")"
rc=0
"$SLIDEOPS" serve --listen 127.0.0.1:0 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/cert.pem" \
	>/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "/cert.pem is not a PEM private key" "$WORK/err" ||
	fail "a certificate given as the key: exit $rc, $(cat "$WORK/err")"
rc=0
"$SLIDEOPS" serve --listen 127.0.0.1:0 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/other-key.pem" \
	>/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "cannot serve TLS with the certificate $WORK/cert.pem and the key $WORK/other-key.pem: " "$WORK/err" ||
	fail "a key that is not the certificate's: exit $rc, $(cat "$WORK/err")"
rc=0
"$SLIDEOPS" serve --listen 127.0.0.1:0 --tls-cert "$WORK/none.pem" --tls-key "$WORK/key.pem" \
	>/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "cannot read $WORK/none.pem: No such file or directory" "$WORK/err" ||
	fail "a missing certificate: exit $rc, $(cat "$WORK/err")"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SLIDEOPS" serve --listen "127.0.0.1:$port" --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" \
	>"$WORK/serve.out" 2>"$WORK/serve.err" &
pid=$!
defer "kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null"
for i in $(seq 100); do
	grep -q token= "$WORK/serve.out" 2>/dev/null && break
	sleep 0.1
done
grep -q "^SlideOps is at https://127.0.0.1:$port/?token=" "$WORK/serve.out" ||
	fail "serve with TLS printed: $(cat "$WORK/serve.out" "$WORK/serve.err")"
token=$(sed -n 's/.*token=//p' "$WORK/serve.out")
code=$(curl -sk -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $token" "https://127.0.0.1:$port/api/servers")
[ "$code" = 200 ] || fail "HTTPS with the token: HTTP $code"
code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
	-H "Origin: http://127.0.0.1:$port" -X DELETE "https://127.0.0.1:$port/api/symbols/000000000000")
[ "$code" = 403 ] || fail "an http:// Origin on an https server was let through (HTTP $code)"
code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
	-H "Origin: https://127.0.0.1:$port" -X DELETE "https://127.0.0.1:$port/api/symbols/000000000000")
[ "$code" = 404 ] || fail "this server's own https Origin was refused (HTTP $code)"
curl -sk -D "$WORK/headers" -o /dev/null "https://127.0.0.1:$port/?token=$token"
grep -i '^Set-Cookie:' "$WORK/headers" | has -i '; Secure' || fail "the cookie over TLS is not Secure"
for path in "/?token=$token" /api/servers /app.js /nothing.txt; do
	curl -sk -D "$WORK/headers" -o /dev/null -H "Authorization: Bearer $token" "https://127.0.0.1:$port$path"
	grep -qi '^Strict-Transport-Security: max-age=[1-9]' "$WORK/headers" || fail "$path over TLS has no HSTS"
done

# handshake VERSION CIPHERS: the cipher the server settles on with a client offering only
# those (any security level: the client must try what the server should refuse), or NONE.
handshake() {
	echo | timeout 10 openssl s_client -connect "127.0.0.1:$port" "$1" -cipher "$2:@SECLEVEL=0" \
		2>/dev/null | sed -n 's/^New, .*Cipher is \(.*\)/\1/p' | sed 's/^(NONE)$/NONE/;q'
}
[ "$(handshake -tls1_2 ECDHE-RSA-AES128-GCM-SHA256)" = ECDHE-RSA-AES128-GCM-SHA256 ] ||
	fail "TLS 1.2 with ECDHE was refused: the client cannot test this server"
[ "$(handshake -tls1 ALL)" = NONE ] || fail "TLS 1.0 was accepted: $(handshake -tls1 ALL)"
[ "$(handshake -tls1_1 ALL)" = NONE ] || fail "TLS 1.1 was accepted: $(handshake -tls1_1 ALL)"
for cipher in AES128-GCM-SHA256 AES256-GCM-SHA384 AES256-SHA DHE-RSA-AES128-GCM-SHA256 \
	ECDHE-RSA-AES256-SHA; do
	[ "$(handshake -tls1_2 "$cipher")" = NONE ] || fail "TLS 1.2 accepted $cipher"
done

# Idle connections (no handshake even) do not keep a request out.
python3 - "$port" "$WORK/held" <<'PY' &
import socket, sys, time
socks = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(200)]
open(sys.argv[2], "w").write("open\n")
time.sleep(60)
PY
defer "kill $! 2>/dev/null"
for _ in $(seq 300); do [ -e "$WORK/held" ] && break; sleep 0.1; done
[ -e "$WORK/held" ] || fail "could not open 200 connections to serve"
code=$(curl -sk -m 5 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
	"https://127.0.0.1:$port/api/servers" || true)
[ "$code" = 200 ] || fail "with 200 idle connections, an HTTPS request got no answer (HTTP $code)"

echo "ok"
