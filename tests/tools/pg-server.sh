#!/usr/bin/env bash
# A PostgreSQL 15 server of its own for a test: on a unix socket directory only (no TCP
# port to collide on), password authentication, run by an unprivileged user (nobody when
# the test runs as root, which PostgreSQL refuses to be).
#
#   pg-server.sh start DIR   makes DIR/data (initdb) and starts the server; DIR/pgpass is
#                            the password file for PGPASSFILE, DIR/url the URL base
#                            (postgresql://slideops@SOCKET:5432); exit 77 when
#                            PostgreSQL 15 is not installed
#   pg-server.sh stop DIR    stops it (fast, then immediate) and removes DIR
#   pg-server.sh createdb DIR NAME   a new empty database NAME
#   pg-server.sh halt DIR    stops the server, keeping DIR (a database gone away)
#   pg-server.sh resume DIR  starts it again
#
# PG_FSYNC=on keeps PostgreSQL's durability (bench/store); tests run without fsync.
set -eu
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|createdb DIR [NAME]" >&2; exit 2; }

as_owner() {
	if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

pg_start() {
	as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
		-o "-c listen_addresses= -c unix_socket_directories=$dir/sock -p 5432 \
		    -c fsync=${PG_FSYNC:-off} -c max_connections=100" start >/dev/null || {
		cat "$dir/data/server.log" >&2; exit 1; }
}

case $cmd in
start)
	if [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
		echo "PostgreSQL 15 is not installed ($bin/initdb): apt-get install postgresql-15" >&2
		exit 77
	fi
	mkdir -p "$dir"
	chmod 0711 "$dir"
	mkdir "$dir/data" "$dir/sock"
	password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
	printf '%s\n' "$password" > "$dir/pw"
	( umask 077; printf '*:*:*:slideops:%s\n' "$password" > "$dir/pgpass" )
	if [ "$(id -u)" = 0 ]; then chown nobody "$dir/data" "$dir/sock" "$dir/pw"; fi
	chmod 0700 "$dir/data"; chmod 0600 "$dir/pw"
	as_owner "$bin/initdb" -D "$dir/data" -U slideops --auth=scram-sha-256 \
		--pwfile="$dir/pw" -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2; exit 1; }
	rm -f "$dir/pw"
	pg_start
	sock=$(printf '%s' "$dir/sock" | sed 's|/|%2F|g')
	printf 'postgresql://slideops@%s:5432' "$sock" > "$dir/url"
	;;
stop)
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	;;
halt)
	as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
	;;
resume)
	pg_start
	;;
createdb)
	name=${3:?createdb needs a NAME}
	PGPASSFILE="$dir/pgpass" "$bin/psql" -X -q -v ON_ERROR_STOP=1 \
		"$(cat "$dir/url")/postgres" -c "CREATE DATABASE \"$name\"" >/dev/null
	;;
*)
	echo "usage: $0 start|stop|halt|resume|createdb DIR [NAME]" >&2; exit 2
	;;
esac
