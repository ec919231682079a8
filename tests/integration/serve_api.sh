#!/usr/bin/env bash
# slideops serve, through its API as a script or the UI meets it: no token no answer; the
# printed URL signs in with an HttpOnly SameSite=Strict cookie; a change from another
# site is refused; every response has the strict CSP; every document is the one the CLI
# prints with --json; errors are the CLI's messages.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"

# Two profiles to serve, taken with the command line, of a busy program with a few
# frames of its own (a quiet machine alone may give a capture one sample).
workload busy_leaf_under_middle busy
cg=$(make_cgroup system.slice/slideops-serve-busy.service)
start_in_cgroup "$cg" "$WORK/busy" >/dev/null
for i in 1 2; do
	"$SLIDEOPS" capture cpu -d 1 --json > "$WORK/cap$i.json" 2>"$WORK/err" ||
		fail "capture: $(cat "$WORK/err")"
done
A=$(jq -r .id "$WORK/cap1.json")
B=$(jq -r .id "$WORK/cap2.json")
start_serve

# ---- the token ----
code=$(curl -s -D "$WORK/h" -o "$WORK/body" -w '%{http_code}' "$BASE/api/servers")
[ "$code" = 401 ] || fail "no token: HTTP $code, want 401"
grep -qi '^WWW-Authenticate: Bearer' "$WORK/h" || fail "a 401 does not say to send a Bearer token"
jq -e '.error | test("workspace token")' "$WORK/body" >/dev/null || fail "no token said $(cat "$WORK/body")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/")
[ "$code" = 401 ] || fail "the page without a token: HTTP $code, want 401"
# The token with its last digit changed (a token ending in 0 gets a 1).
[ "${TOKEN: -1}" = 0 ] && WRONG=${TOKEN%?}1 || WRONG=${TOKEN%?}0
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $WRONG" "$BASE/api/servers")
[ "$code" = 401 ] || fail "a wrong token: HTTP $code, want 401"
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/?token=$WRONG")
[ "$code" = 401 ] || fail "the URL with a wrong token: HTTP $code, want 401"
[ "$(stat -c %a "$SLIDEOPS_DATA/serve-token")" = 600 ] || fail "the token file is not 0600"

# The printed URL: a cookie, and a redirect that takes the token out of the address bar.
curl -s -D "$WORK/headers" -o /dev/null -c "$WORK/jar" "$BASE/?token=$TOKEN"
grep -qi '^HTTP/1.1 303' "$WORK/headers" || fail "the URL did not redirect: $(head -1 "$WORK/headers")"
grep -qi '^Location: /\s*$' "$WORK/headers" || fail "the URL redirects elsewhere than /"
grep -i '^Set-Cookie:' "$WORK/headers" | has -i 'HttpOnly' || fail "the cookie is not HttpOnly"
grep -i '^Set-Cookie:' "$WORK/headers" | has -i 'SameSite=Strict' || fail "the cookie is not SameSite=Strict"
code=$(curl -s -o "$WORK/page" -w '%{http_code}' -b "$WORK/jar" "$BASE/")
[ "$code" = 200 ] && grep -q '<script type="module" src="/app.js">' "$WORK/page" ||
	fail "the cookie does not open the page (HTTP $code)"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$WORK/jar" "$BASE/api/servers")
[ "$code" = 200 ] || fail "the cookie does not open the API (HTTP $code)"

# ---- headers: strict CSP everywhere, no inline script in the page ----
for path in / /app.js /app.css /flame.js /flame_model.js /profile.js /api/servers /api/questions \
	/api/nothing; do
	curl -s -D "$WORK/h" -o /dev/null -b "$WORK/jar" "$BASE$path"
	grep -qi "^Content-Security-Policy: default-src 'none'; script-src 'self';" "$WORK/h" ||
		fail "$path has no strict CSP: $(grep -i content-security "$WORK/h")"
	grep -qi '^X-Content-Type-Options: nosniff' "$WORK/h" || fail "$path lacks nosniff"
done
! grep -q '<script>' "$WORK/page" || fail "the page has an inline script"
! grep -Eqi "(src|href)=\"(https?:)?//" "$WORK/page" || fail "the page fetches from elsewhere"

# ---- Origin: a change from another site is refused ----
code=$(curl -s -o "$WORK/body" -w '%{http_code}' -b "$WORK/jar" -X POST "$BASE/api/servers/local/remove")
[ "$code" = 403 ] || fail "a change with the cookie and no Origin: HTTP $code, want 403"
code=$(curl -s -o "$WORK/body" -w '%{http_code}' -b "$WORK/jar" -H 'Origin: http://evil.example' \
	-X POST "$BASE/api/servers/local/remove")
[ "$code" = 403 ] || fail "a change from another site: HTTP $code, want 403"
[ "$(jq -r .error "$WORK/body")" = "refused: this request came from another site (http://evil.example)" ] ||
	fail "the Origin refusal said $(cat "$WORK/body")"
expect 403 DELETE "/api/profiles/$A" -H 'Origin: http://127.0.0.1:1'
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$WORK/jar" -H "Origin: $BASE" \
	-X DELETE "$BASE/api/symbols/000000000000")
[ "$code" = 404 ] || fail "a change from this page was not let through (HTTP $code)"

# ---- every document is the CLI's ----
expect 200 GET /api/servers
jq -e --arg h "$(hostname)" '.servers | length == 1 and .[0].id == "local" and .[0].this_server
	and .[0].name == "this server" and .[0].hostname == $h' "$WORK/body" >/dev/null ||
	fail "the servers list is $(cat "$WORK/body")"
# The questions, from the one table the CLI answers with: the UI's titles and views.
expect 200 GET /api/questions
cp "$WORK/body" "$WORK/questions"
jq -e '[.questions[].id] == ["cpu", "wall", "threads", "locks", "memory"] and
	all(.questions[]; (.title | length > 10) and (.views | index("flamegraph") != null)) and
	([.questions[] | select(.has_duration | not) | .id] == ["threads"]) and
	([.questions[] | select(.share_of_server) | .id] == ["cpu"]) and
	(.questions[] | select(.id == "locks") | .views | index("locks") != null) and
	(.questions[] | select(.id == "threads") | .views | index("thread_sets") != null)' \
	"$WORK/questions" >/dev/null || fail "the questions are $(cat "$WORK/questions")"
expect 200 GET "/api/profiles/$A/flamegraph"
[ "$(jq -r .title "$WORK/body")" = "$(jq -r '.questions[] | select(.id == "cpu") | .title' \
	"$WORK/questions")" ] || fail "the questions' title of cpu is not its profiles' title"
expect 405 POST /api/questions
expect 200 GET /api/servers/local/check
jq -e --slurpfile q "$WORK/questions" '(.questions | keys | sort) ==
	($q[0].questions | map(.id) | sort)' "$WORK/body" >/dev/null ||
	fail "check's questions are not the questions the API lists"
"$SLIDEOPS" check --json > "$WORK/cli" || true
jq 'del(.requirements)' "$WORK/body" > "$WORK/api.j"; jq 'del(.requirements)' "$WORK/cli" > "$WORK/cli.j"
same_json "$WORK/api.j" "$WORK/cli.j"
jq -e '.requirements | length > 0' "$WORK/body" >/dev/null || fail "check lists no requirements"
expect 200 GET '/api/servers/local/top?n=5'
jq -e '.processes | length == 5 and all(.[]; has("pid") and has("comm") and has("cpu_percent") and has("group"))' \
	"$WORK/body" >/dev/null || fail "top is $(cat "$WORK/body")"
expect 400 GET '/api/servers/local/top?n=zero'
expect 404 GET /api/servers/elsewhere/check
[ "$(jq -r .error "$WORK/body")" = "there is no server 'elsewhere' in this workspace" ] ||
	fail "an unknown server said $(cat "$WORK/body")"

expect 200 GET /api/profiles
"$SLIDEOPS" profiles --json > "$WORK/cli"
same_json "$WORK/body" "$WORK/cli"
expect 200 GET /api/servers/local/profiles
same_json "$WORK/body" "$WORK/cli"
expect 200 GET '/api/profiles?question=wall'
jq -e '.profiles == [] and .total == 0 and .next_offset == null' "$WORK/body" >/dev/null ||
	fail "the question filter kept $(cat "$WORK/body")"
expect 400 GET '/api/profiles?question=nothing'

# ---- the list a page at a time: 250 more profiles in the index ----
sqlite3 "$SLIDEOPS_DATA/workspace.db" <<SQL || fail "could not add index rows"
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
INSERT INTO profiles (id, question, server, started_at_ns, duration_ns, answer, blob, saved_at_ns)
SELECT id || '-p' || i, CASE WHEN i % 5 = 0 THEN 'wall' ELSE question END, server,
       started_at_ns - i * 1000000000, duration_ns, answer, blob, saved_at_ns
FROM profiles, n WHERE profiles.id = '$A';
SQL
expect 200 GET /api/profiles
jq -e '(.profiles | length) == 100 and .total == 252 and .offset == 0 and .next_offset == 100' 	"$WORK/body" >/dev/null || fail "the first page is $(jq -c '{n: (.profiles | length), total, offset, next_offset}' "$WORK/body")"
seen=$(jq -r '.profiles[].id' "$WORK/body")
off=100
while [ "$off" != null ]; do
	expect 200 GET "/api/profiles?limit=70&offset=$off"
	seen+=$'\n'$(jq -r '.profiles[].id' "$WORK/body")
	off=$(jq -r .next_offset "$WORK/body")
done
"$SLIDEOPS" profiles --json | jq -r '.profiles[].id' > "$WORK/cli-ids"
[ "$seen" = "$(cat "$WORK/cli-ids")" ] || fail "the pages together are not the whole list, newest first"
expect 200 GET '/api/profiles?question=wall&limit=20&offset=40'
jq -e '(.profiles | length) == 10 and .total == 50 and .next_offset == null and
	all(.profiles[]; .question == "wall")' "$WORK/body" >/dev/null ||
	fail "a filtered page is $(jq -c '{n: (.profiles | length), total, next_offset}' "$WORK/body")"
expect 200 GET "/api/servers/local/profiles?limit=1"
jq -e '(.profiles | length) == 1 and .next_offset == 1' "$WORK/body" >/dev/null ||
	fail "the server's profiles are not paged: $(head -c 300 "$WORK/body")"
# By cursor: every profile once, newest first, though one is added during the walk.
expect 200 GET '/api/profiles?limit=100'
walked=$(jq -r '.profiles[].id' "$WORK/body")
next=$(jq -r .next "$WORK/body")
sqlite3 "$SLIDEOPS_DATA/workspace.db" "INSERT INTO profiles (id, question, server,
	started_at_ns, duration_ns, answer, blob, saved_at_ns) SELECT id || '-pnew', question,
	server, started_at_ns + 1000000000, duration_ns, answer, blob, saved_at_ns FROM profiles
	WHERE id = '$A'" || fail "could not add a row during the walk"
while [ "$next" != null ]; do
	expect 200 GET "/api/profiles?limit=100&after=$next"
	jq -e '.next_offset == null and .total == 253' "$WORK/body" >/dev/null ||
		fail "a page after a cursor is $(jq -c '{total, next_offset}' "$WORK/body")"
	walked+=$'\n'$(jq -r '.profiles[].id' "$WORK/body")
	next=$(jq -r .next "$WORK/body")
done
[ "$walked" = "$(cat "$WORK/cli-ids")" ] || fail "the walk by cursor is not the list, each once"
expect 400 GET '/api/profiles?after=nonsense'
expect 400 GET "/api/profiles?after=1.2.x&offset=3"
expect 400 GET '/api/profiles?limit=0'
expect 400 GET '/api/profiles?limit=1001'
expect 400 GET '/api/profiles?offset=-1'
sqlite3 "$SLIDEOPS_DATA/workspace.db" "DELETE FROM profiles WHERE id LIKE '%-p%'"

# ---- HEAD: the headers of GET, no body ----
for path in /api/servers "/api/profiles/$A" "/api/profiles?limit=1" /api/symbols; do
	curl -s -D "$WORK/get.h" -o "$WORK/get.body" -H "Authorization: Bearer $TOKEN" "$BASE$path"
	# On the wire, as it is: everything until the server closes, after the headers.
	got=$(python3 - "${BASE#http://}" "$path" "$TOKEN" "$WORK/head.h" <<'PY'
import socket, sys
hostport, path, token, out = sys.argv[1:5]
host, port = hostport.rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(f"HEAD {path} HTTP/1.1\r\nHost: {hostport}\r\nAuthorization: Bearer {token}\r\n"
          f"Connection: close\r\n\r\n".encode())
data = b""
while chunk := s.recv(65536):
    data += chunk
head, _, body = data.partition(b"\r\n\r\n")
open(out, "wb").write(head.replace(b"\r\n", b"\n") + b"\n")
print(len(body))
PY
)
	[ "$got" = 0 ] || fail "HEAD $path sent a body of $got bytes"
	grep -q '^HTTP/1.1 200' "$WORK/head.h" || fail "HEAD $path: $(head -1 "$WORK/head.h")"
	for h in Content-Type Content-Security-Policy Cache-Control; do
		[ "$(grep -i "^$h:" "$WORK/head.h")" = "$(grep -i "^$h:" "$WORK/get.h" | tr -d '\r')" ] ||
			fail "HEAD $path: $h differs from GET's"
	done
	len=$(grep -i '^Content-Length:' "$WORK/head.h" | tr -dc 0-9)
	[ "$len" = "$(stat -c %s "$WORK/get.body")" ] || fail "HEAD $path: Content-Length $len, GET sent $(stat -c %s "$WORK/get.body")"
done
code=$(curl -s -I -o /dev/null -w '%{http_code}' "$BASE/api/servers")
[ "$code" = 401 ] || fail "HEAD without the token: HTTP $code"

expect 200 GET "/api/profiles/$A"
"$SLIDEOPS" show "$A" --json > "$WORK/cli"
same_json "$WORK/body" "$WORK/cli"
expect 200 GET "/api/profiles/$A?top=3"
"$SLIDEOPS" show "$A" --top 3 --json > "$WORK/cli"
same_json "$WORK/body" "$WORK/cli"
expect 404 GET /api/profiles/no-such-profile
[ "$(jq -r .error "$WORK/body")" = "no profile has the id 'no-such-profile'; 'slideops profiles' lists them" ] ||
	fail "a missing profile said $(cat "$WORK/body")"

expect 200 GET "/api/compare?a=$A&b=$B"
"$SLIDEOPS" compare "$A" "$B" --json > "$WORK/cli"
same_json "$WORK/body" "$WORK/cli"

# The flame graph tree: as many nodes in each array, the root holding everything.
expect 200 GET "/api/profiles/$A/flamegraph"
jq -e '(.depth | length) > 3 and (.depth | length) == (.value | length) and
	(.name | length) == (.lang | length) and .depth[0] == 0 and .value[0] == .total and
	.samples > 0 and .share_of > 0 and (.system | length) == (.depth | length) and
	any(.system[]; . == 1)' "$WORK/body" >/dev/null ||
	fail "the flame graph tree is not whole: $(head -c 300 "$WORK/body")"

# Exports: the same bytes the CLI writes.
code=$(curl -s -o "$WORK/a.folded" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	"$BASE/api/profiles/$A/export?format=folded")
[ "$code" = 200 ] || fail "folded export: HTTP $code"
"$SLIDEOPS" show "$A" --export folded "$WORK/cli.folded" >/dev/null
cmp -s "$WORK/a.folded" "$WORK/cli.folded" || fail "the folded export differs from the CLI's"
code=$(curl -s -o "$WORK/a.pb.gz" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	"$BASE/api/profiles/$A/export?format=pprof")
[ "$code" = 200 ] && gzip -t "$WORK/a.pb.gz" || fail "the pprof export is not gzip (HTTP $code)"
expect 400 GET "/api/profiles/$A/export?format=svg"

# ---- deleting a profile ----
expect 200 DELETE "/api/profiles/$B"
jq -e --arg b "$B" '.deleted == $b' "$WORK/body" >/dev/null || fail "delete said $(cat "$WORK/body")"
expect 404 GET "/api/profiles/$B"
"$SLIDEOPS" profiles --json | jq -e --arg b "$B" 'all(.profiles[]; .id != $b)' >/dev/null ||
	fail "the deleted profile is still listed"

# ---- remove the profiler: capture files go, the workspace stays ----
mkdir -p "$SLIDEOPS_DATA/captures/x" "$SLIDEOPS_DATA/profiler"
head -c 1000 /dev/zero > "$SLIDEOPS_DATA/captures/x/c.raw"
expect 200 POST /api/servers/local/remove
jq -e --arg d "$SLIDEOPS_DATA" '.kept == $d and (.removed | map(.path) | index($d + "/captures") != null)' \
	"$WORK/body" >/dev/null || fail "remove said $(cat "$WORK/body")"
[ ! -e "$SLIDEOPS_DATA/captures" ] && [ ! -e "$SLIDEOPS_DATA/profiler" ] || fail "remove left capture files"
expect 200 GET "/api/profiles/$A"

# ---- not found, wrong method (405 says what the path allows) ----
expect 404 GET /api/nothing/here
allow() { curl -s -D "$WORK/h" -o "$WORK/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $TOKEN" "$BASE$2"; }
[ "$(allow PUT /api/profiles)" = 405 ] || fail "PUT /api/profiles is not 405"
grep -qi '^Allow: GET, HEAD' "$WORK/h" || fail "405 without Allow: $(grep -i allow "$WORK/h")"
[ "$(jq -r .error "$WORK/body")" = "PUT is not allowed on /api/profiles" ] || fail "405 said $(cat "$WORK/body")"
[ "$(allow POST "/api/profiles/$A")" = 405 ] || fail "POST on a profile is not 405"
grep -qi '^Allow: GET, HEAD, DELETE' "$WORK/h" || fail "a profile allows $(grep -i '^allow' "$WORK/h")"
[ "$(allow DELETE /api/servers/local/capture)" = 405 ] || fail "DELETE on the capture is not 405"
grep -qi '^Allow: GET, HEAD, POST' "$WORK/h" || fail "the capture allows $(grep -i '^allow' "$WORK/h")"
[ "$(allow POST /app.js)" = 405 ] || fail "POST on a UI file is not 405"
grep -qi '^Allow: GET, HEAD' "$WORK/h" || fail "a UI file allows $(grep -i '^allow' "$WORK/h")"
! grep -qi '^Allow:' <(curl -s -D - -o /dev/null -H "Authorization: Bearer $TOKEN" "$BASE/api/nothing") ||
	fail "a 404 carries Allow"
stop_serve
echo "ok"
