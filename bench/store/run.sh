#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The workspace store on its two backends, side by side in one run, on the same work
# (bench_store.c, through the store's interface as every workspace process calls it):
#
#   - saves per second of a real capture (this machine's, 2 s of cpu), each whole
#     (SQLite: file fsync'd, renamed, indexed with synchronous=FULL; PostgreSQL: one
#     transaction, fsync on, as a server keeps it);
#   - the profile list with NPROFILES profiles (100k by default) from NSERVERS servers
#     (1,000): p50/p99 of the first page, and p99 over first pages, a server's, a
#     question's and page 50 by cursor, each on its own open as a request;
#   - one profile's flame graph (load, name, analyse, write);
#   - an upload of debug symbols for a build every profile holds, and the first profile
#     shown after it (named at read time: the upload itself touches no profile);
#   - the workspace's bytes on disk and the process's peak RSS.
#
#   bench/store/run.sh     (root: it takes one capture; PostgreSQL 15 from make deps)
#   NPROFILES=10000 NSAVES=100 bench/store/run.sh
#   CAPTURE_SECONDS=30 NPROFILES=2000 bench/store/run.sh   (saves of a 30 s capture)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
NPROFILES=${NPROFILES:-100000}
NSERVERS=${NSERVERS:-1000}
NSAVES=${NSAVES:-200}
CAPTURE_SECONDS=${CAPTURE_SECONDS:-2}
work=$(mktemp -d /tmp/slideops-bench-store.XXXXXX)
pg=$(mktemp -d /tmp/slideops-pg.XXXXXX)
trap '"$top/tests/tools/pg-server.sh" stop "$pg"; rm -rf "$work"' EXIT

make -s -C "$top" "$top/build/libslideops.a" "$top/build/slideops" >/dev/null
gcc -O2 -std=c11 -D_GNU_SOURCE -I"$top/src" -I"$top/build/gen" -I"$(pg_config --includedir)" \
	-o "$work/bench_store" "$top/bench/store/bench_store.c" "$top/build/libslideops.a" \
	-lbpf -lelf -ldw -lz -llz4 -lsqlite3 -ljansson -lprotobuf-c -liberty -lmicrohttpd -lpq \
	-lpthread -lm

# The template: one real capture of this machine.
SLIDEOPS_DATA=$work/template "$SLIDEOPS" capture cpu -d "$CAPTURE_SECONDS" >/dev/null
id=$(SLIDEOPS_DATA=$work/template "$SLIDEOPS" profiles --json | jq -r '.profiles[0].id')
blob=$(stat -c %s "$work/template/profiles/$id.pb.gz")

PG_FSYNC=on "$top/tests/tools/pg-server.sh" start "$pg"
"$top/tests/tools/pg-server.sh" createdb "$pg" bench
export PGPASSFILE=$pg/pgpass

echo "bench/store: $NPROFILES profiles from $NSERVERS servers, $NSAVES saves of a" \
	"$((blob / 1024)) KB capture; $(nproc) cores"
"$work/bench_store" "$work/template" "$id" "$work/sqlite" "$NPROFILES" "$NSERVERS" "$NSAVES" \
	> "$work/sqlite.out"
"$work/bench_store" "$work/template" "$id" "$(cat "$pg/url")/bench" "$NPROFILES" "$NSERVERS" \
	"$NSAVES" > "$work/pg.out"
python3 - "$work/sqlite.out" "$work/pg.out" <<'PY'
import sys
def read(p):
    return {k: float(v) for k, v in (kv.split("=") for kv in open(p).read().split())}
a, b = read(sys.argv[1]), read(sys.argv[2])
rows = [("saves_per_s", "saves per second"), ("list_first_p50_ms", "list, first page p50 ms"),
        ("list_first_p99_ms", "list, first page p99 ms"), ("list_p99_ms", "list, all pages p99 ms"),
        ("flamegraph_p50_ms", "one flame graph p50 ms"), ("upload_ms", "upload naming all, ms"),
        ("shown_after_upload_ms", "first profile shown after, ms"),
        ("bytes", "workspace MB on disk"), ("rss_kb", "peak RSS MB")]
print(f"{'':34} {'SQLite':>10} {'PostgreSQL':>11} {'PG/SQLite':>10}")
for k, label in rows:
    x, y = a[k], b[k]
    if k in ("bytes",):
        x, y = x / 1e6, y / 1e6
    if k == "rss_kb":
        x, y = x / 1024, y / 1024
    print(f"{label:34} {x:10.2f} {y:11.2f} {y / x if x else float('nan'):10.2f}")
PY
