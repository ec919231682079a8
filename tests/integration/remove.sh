#!/usr/bin/env bash
# `slideops remove`: takes the installed profiler and the capture files off the server,
# keeps the workspace (its index, profiles, Services), never follows a link out of the
# data directory, deletes only the unfinished saves its index lists, and refuses a
# directory that is not a workspace.
source "$(dirname "$0")/lib.sh"

D=$SLIDEOPS_DATA
"$SLIDEOPS" services add billing --unit billing >/dev/null || fail "services add"
[ -f "$D/workspace.db" ] || fail "no workspace.db in $D after services add"

mkdir -p "$D/profiler/bin" "$D/captures/pending" "$D/profiles"
head -c 5000 /dev/urandom >"$D/profiler/bin/slideops"
echo conf >"$D/profiler/config"
echo x >"$D/captures/1.pb.gz"
echo y >"$D/captures/pending/2.pb.gz"
echo precious >"$WORK/outside"
mkdir -p "$WORK/outside-dir" && echo precious >"$WORK/outside-dir/file"
ln -s "$WORK/outside" "$D/captures/link"
ln -s "$WORK/outside-dir" "$D/captures/dirlink"
echo half >"$D/profiles/20261202-150405-cpu-1a2b.pb.gz.tmp-0badf00d"
sqlite3 "$D/workspace.db" "INSERT INTO pending (blob, tmp, started_at_ns) VALUES
	('20261202-150405-cpu-1a2b.pb.gz', '20261202-150405-cpu-1a2b.pb.gz.tmp-0badf00d', 1)"
echo kept >"$D/profiles/20261202-150405-cpu-9c9c.pb.gz"
# Named like a temporary file, but not one the index says this workspace made.
echo mine >"$D/profiles/notes.tmp-0123456789abcdef"
echo mine >"$D/report.tmp-0123456789abcdef"

"$SLIDEOPS" --json remove >"$WORK/removed.json" || fail "slideops remove failed"
python3 - "$WORK/removed.json" "$D" <<'EOF' || fail "remove --json: $(cat "$WORK/removed.json")"
import json, sys
doc, d = json.load(open(sys.argv[1])), sys.argv[2]
got = {r["path"]: (r["files"], r["bytes"]) for r in doc["removed"]}
assert set(got) == {d + "/profiler", d + "/captures",
                    d + "/profiles/20261202-150405-cpu-1a2b.pb.gz.tmp-0badf00d"}, got
assert got[d + "/profiler"] == (2, 5005), got
assert got[d + "/captures"][0] == 4, got  # two files and two links
assert doc["kept"] == d
EOF
[ ! -e "$D/profiler" ] || fail "profiler/ is still there"
[ ! -e "$D/captures" ] || fail "captures/ is still there"
[ ! -e "$D/profiles/20261202-150405-cpu-1a2b.pb.gz.tmp-0badf00d" ] || fail "the temporary file is still there"
[ -f "$WORK/outside" ] && [ -f "$WORK/outside-dir/file" ] || fail "remove followed a link out of the data directory"
[ -f "$D/profiles/20261202-150405-cpu-9c9c.pb.gz" ] || fail "remove deleted a profile"
[ -f "$D/profiles/notes.tmp-0123456789abcdef" ] && [ -f "$D/report.tmp-0123456789abcdef" ] ||
	fail "remove deleted files the workspace's index does not name"
[ -f "$D/workspace.db" ] || fail "remove deleted the workspace index"
"$SLIDEOPS" services list --json | json '[s["name"] for s in d["services"]]' | has -x "\['billing'\]" ||
	fail "remove lost the Services"

# Again: nothing left to remove, and it says so.
out=$("$SLIDEOPS" remove) || fail "a second slideops remove failed"
grep -q "nothing to remove" <<<"$out" || fail "second remove said: $out"
n=$("$SLIDEOPS" remove --json | json 'len(d["removed"])')
[ "$n" = 0 ] || fail "a second remove --json removed $n things"

"$SLIDEOPS" remove --help | has "DATA/profiler/" || fail "remove --help does not say what it removes"
set +e
"$SLIDEOPS" remove now >/dev/null 2>&1; rc=$?
set -e
[ $rc = 2 ] || fail "remove with an argument: exit $rc, want 2"
# A directory that is not a workspace: nothing in it is touched, whatever it holds.
N=$WORK/not-a-workspace
mkdir -p "$N/captures" "$N/profiler" "$N/profiles"
echo data >"$N/captures/keep" && echo data >"$N/profiler/keep" && echo data >"$N/x.tmp-0123456789abcdef"
set +e
"$SLIDEOPS" --data "$N" remove >"$WORK/out" 2>&1; rc=$?
set -e
[ $rc = 2 ] || fail "remove in a non-workspace: exit $rc, want 2: $(cat "$WORK/out")"
grep -q "not a SlideOps workspace" "$WORK/out" || fail "remove in a non-workspace said: $(cat "$WORK/out")"
[ -f "$N/captures/keep" ] && [ -f "$N/profiler/keep" ] && [ -f "$N/x.tmp-0123456789abcdef" ] ||
	fail "remove deleted files in a directory that is not a workspace"
echo "pass"
