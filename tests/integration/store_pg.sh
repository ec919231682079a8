#!/usr/bin/env bash
# A workspace in PostgreSQL behind two workspace servers (`slideops --store URL serve`),
# each with a data directory of its own as two machines would have, through the API: both
# ask the same workspace token; a capture saved through one is listed and opened by the
# other; a debug-symbols upload through one names the profile the other shows; neither
# data directory keeps anything of the workspace. Then bad input at the command line: a
# URL with a password, a database that cannot be reached, one of another program, one
# made by a newer slideops: each said, nothing changed; a database gone away and back:
# said, then served again. PostgreSQL 15 is the test's own
# (tests/tools/pg-server.sh), skipped only where it is not installed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 ||
	skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"
start_pg || skip "PostgreSQL 15 is not installed (apt-get install postgresql-15)"
export SLIDEOPS_STORE="$(cat "$PG/url")/workspace"
psql_ws() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$SLIDEOPS_STORE" -c "$1"; }

# A stripped worker whose debug file the test keeps, busy in price_orders.
workload price_orders_with_lines worker
objcopy --only-keep-debug "$WORK/worker" "$WORK/worker.debug"
strip "$WORK/worker"
mkdir -p "$WORK/bin" && mv "$WORK/worker" "$WORK/bin/ledger-worker"
cg=$(make_cgroup system.slice/slideops-test-pgstore.service)
start_in_cgroup "$cg" "$WORK/bin/ledger-worker" >/dev/null

# start_named NAME: serve with the data directory $WORK/NAME; sets BASE_NAME, TOKEN_NAME.
start_named() {
	local name=$1 port url pid i
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	"$SLIDEOPS" --data "$WORK/$name" serve --listen "127.0.0.1:$port" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	defer "kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null"
	for i in $(seq 100); do
		url=$(grep -o 'http://[^ ]*' "$WORK/$name.out" 2>/dev/null || true)
		[ -n "$url" ] && break
		kill -0 "$pid" 2>/dev/null || fail "serve $name exited: $(cat "$WORK/$name.err")"
		sleep 0.1
	done
	[ -n "$url" ] || fail "serve $name printed no URL: $(cat "$WORK/$name.err")"
	printf -v "PID_$name" '%s' "$pid"
	printf -v "BASE_$name" '%s' "http://127.0.0.1:$port"
	printf -v "TOKEN_$name" '%s' "${url##*token=}"
}
# on NAME: the next api/expect calls go to that server.
on() { local b="BASE_$1" t="TOKEN_$1"; BASE=${!b}; TOKEN=${!t}; }

start_named one
start_named two
[ "$TOKEN_one" = "$TOKEN_two" ] || fail "the two servers of one workspace ask different tokens"

# ---- a capture through one, listed and opened by the other ----
on one
serve_capture cpu 3
serve_capture_done
id=$(jq -r .id "$WORK/body")
on two
expect 200 GET /api/profiles
jq -e --arg i "$id" 'any(.profiles[]; .id == $i) and .total >= 1' "$WORK/body" >/dev/null ||
	fail "two does not list the profile one saved: $(head -c 600 "$WORK/body")"
expect 200 GET "/api/profiles/$id"
jq -e '.question == "cpu" and (.answer | length) > 0' "$WORK/body" >/dev/null ||
	fail "two cannot open the profile one saved: $(head -c 600 "$WORK/body")"
jq -e 'any(.functions[]; .name | startswith("ledger-worker+0x"))' "$WORK/body" >/dev/null ||
	fail "the stripped worker is not among the functions: $(jq -c '[.functions[].name]' "$WORK/body")"

# ---- an upload through two names the profile one shows ----
code=$(api POST "/api/symbols?name=worker.debug" -H 'Content-Type: application/octet-stream' \
	--data-binary "@$WORK/worker.debug")
[ "$code" = 200 ] || fail "the upload through two: HTTP $code $(cat "$WORK/body")"
on one
expect 200 GET /api/symbols
jq -e 'any(.uploads[]; .file_name == "worker.debug")' "$WORK/body" >/dev/null ||
	fail "one does not list two's upload: $(cat "$WORK/body")"
expect 200 GET "/api/profiles/$id"
jq -e 'any(.functions[]; .name == "price_orders")' "$WORK/body" >/dev/null ||
	fail "one does not name price_orders after two's upload:" \
		"$(jq -c '[.functions[].name]' "$WORK/body")"
jq -e 'all(.functions[]; .name | startswith("ledger-worker+0x") | not)' "$WORK/body" >/dev/null ||
	fail "the worker is still unnamed on one: $(jq -c '[.functions[].name]' "$WORK/body")"

# ---- the data directories keep nothing of the workspace ----
for name in one two; do
	[ ! -e "$WORK/$name/workspace.db" ] && [ ! -e "$WORK/$name/profiles" ] &&
		[ ! -e "$WORK/$name/serve-token" ] ||
		fail "the data directory of $name keeps the workspace: $(ls -A "$WORK/$name")"
done
[ "$(psql_ws "SELECT count(*) FROM profiles p JOIN profile_blobs b USING (id)
	WHERE p.id = '$id'")" = 1 ] ||
	fail "the profile and its blob are not both in the database"

# ---- the database gone away: said as such; back again: served again ----
"$PG_TOOL" halt "$PG"
on one
expect 503 GET /api/profiles
jq -e '.error | startswith("cannot use the workspace database postgresql://")' "$WORK/body" \
	>/dev/null || fail "with the database down, one said $(cat "$WORK/body")"
"$PG_TOOL" resume "$PG"
expect 200 GET /api/profiles
jq -e --arg i "$id" 'any(.profiles[]; .id == $i)' "$WORK/body" >/dev/null ||
	fail "with the database back, one lists $(head -c 300 "$WORK/body")"

# ---- both stop cleanly (and, under a sanitizer build, report nothing) ----
for name in one two; do
	pid_var="PID_$name" rc=0
	kill -TERM "${!pid_var}"
	wait "${!pid_var}" || rc=$?
	[ "$rc" = 0 ] || fail "serve $name exited $rc on SIGTERM: $(tail -20 "$WORK/$name.err")"
	! grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error' "$WORK/$name.err" ||
		fail "serve $name's sanitizers reported: $(head -40 "$WORK/$name.err")"
done
start_named two

# ---- retention: prune through the shared workspace, seen by both servers ----
"$SLIDEOPS" --data "$WORK/one" --json profiles prune --older-than 3650d > "$WORK/prune.json"
jq -e '.deleted == 0' "$WORK/prune.json" >/dev/null ||
	fail "a prune of nothing said $(cat "$WORK/prune.json")"
sleep 1
"$SLIDEOPS" --data "$WORK/one" --json profiles prune --older-than 1s > "$WORK/prune.json"
jq -e '.deleted >= 1' "$WORK/prune.json" >/dev/null || fail "prune said $(cat "$WORK/prune.json")"
on two
expect 200 GET /api/profiles
jq -e '.total == 0' "$WORK/body" >/dev/null ||
	fail "two still lists pruned profiles: $(cat "$WORK/body")"
expect 404 GET "/api/profiles/$id"

# ---- bad input: said, nothing changed ----
expect_refusal() { # expect_refusal RC PATTERN ARGS...
	local want=$1 pattern=$2 rc=0
	shift 2
	"$SLIDEOPS" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = "$want" ] || fail "slideops $*: exit $rc, want $want ($(cat "$WORK/err"))"
	grep -q -- "$pattern" "$WORK/err" || fail "slideops $*: said '$(cat "$WORK/err")', want /$pattern/"
}
before=$(psql_ws "SELECT count(*) FROM profiles")
expect_refusal 2 "carries a password" \
	--store "postgresql://slideops:hunter2@localhost/workspace" profiles
grep -q hunter2 "$WORK/err" && fail "the password was printed: $(cat "$WORK/err")"
expect_refusal 2 "is not a PostgreSQL URL" --store "mysql://localhost/workspace" profiles
expect_refusal 1 "cannot open the workspace database .*check that PostgreSQL runs there" \
	--store "postgresql://slideops@%2Fnonexistent:5432/workspace" profiles
"$PG_TOOL" createdb "$PG" billing
psql -X -q "$(cat "$PG/url")/billing" -c "CREATE TABLE invoices (id int PRIMARY KEY)"
expect_refusal 1 "holds tables of another program" --store "$(cat "$PG/url")/billing" profiles
[ "$(psql -X -A -t "$(cat "$PG/url")/billing" \
	-c "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")" = 1 ] ||
	fail "the other program's database was changed"
psql_ws "UPDATE slideops_meta SET value = '99' WHERE key = 'schema_version'"
expect_refusal 1 "made by a newer slideops" profiles
expect_refusal 1 "made by a newer slideops" capture cpu -d 1
[ "$(psql_ws "SELECT value FROM slideops_meta WHERE key = 'schema_version'")" = 99 ] &&
	[ "$(psql_ws "SELECT count(*) FROM profiles")" = "$before" ] ||
	fail "a database newer than slideops was changed"
echo ok
