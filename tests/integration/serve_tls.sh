#!/usr/bin/env bash
# Where serve may listen: a non-loopback address without TLS is refused with the reason
# (the token would cross the network in clear), unless --insecure-http says so out loud;
# with --tls-cert/--tls-key it serves HTTPS, and the cookie and Origin follow https.
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
grep -i '^Set-Cookie:' "$WORK/headers" | grep -qi '; Secure' || fail "the cookie over TLS is not Secure"

echo "ok"
