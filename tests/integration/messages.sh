#!/usr/bin/env bash
# Messages say what happened and what to do, once: no "slideops: slideops:", no errno
# text standing for a reason ("File name too long", "Bad message"), no listing that
# creates the --data directory, and --json failures as {"error", "hint"} with a non-zero
# exit.
source "$(dirname "$0")/lib.sh"

expect_error() { # expect_error RC PATTERN ARGS...
	local want=$1 pattern=$2 rc=0
	shift 2
	"$SLIDEOPS" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = "$want" ] || fail "slideops $*: exit $rc, want $want ($(cat "$WORK/err"))"
	grep -q -- "$pattern" "$WORK/err" || fail "slideops $*: said '$(cat "$WORK/err")', want /$pattern/"
	grep -q "slideops: slideops:" "$WORK/err" && fail "slideops $*: 'slideops:' twice"
	return 0
}

expect_error 2 "--data is empty: give the workspace directory" --data '' profiles
expect_error 2 "'--data' needs a directory" profiles --data
expect_error 2 "needs two profile ids, ID_A and ID_B, and got only 'abc'" compare abc

# The main help lists every question capture takes, as capture's own help does.
"$SLIDEOPS" --help >"$WORK/help" || fail "slideops --help"
for q in cpu wall threads locks memory; do
	grep -Eq "^  $q +[A-Z]" <(sed -n '/^QUESTION:/,/^$/p' <("$SLIDEOPS" capture --help)) ||
		fail "capture --help does not list $q"
	grep -Eq "^ +$q +[A-Z]" "$WORK/help" || fail "slideops --help does not list the question $q"
done

# Listing creates nothing.
"$SLIDEOPS" --data "$WORK/not-there" profiles >/dev/null || fail "profiles in a new directory"
"$SLIDEOPS" --data "$WORK/not-there" symbols list >/dev/null || fail "symbols list in a new directory"
"$SLIDEOPS" --data "$WORK/not-there" services list >/dev/null || fail "services list in a new directory"
[ ! -e "$WORK/not-there" ] || fail "a listing created the --data directory"

# A damaged index: said as such, with what to do.
mkdir -m 700 "$WORK/damaged"
head -c 4096 /dev/urandom >"$WORK/damaged/workspace.db"
chmod 600 "$WORK/damaged/workspace.db"
expect_error 1 "index of the workspace .* is damaged; restore it from a backup" --data "$WORK/damaged" profiles

# A missing profile file: not "not a whole profile".
"$SLIDEOPS" services add keep --unit keep.service >/dev/null
sqlite3 "$SLIDEOPS_DATA/workspace.db" "INSERT INTO profiles VALUES ('20261202-150405-cpu-dead', 'cpu', 'h', 1, 1, '', '20261202-150405-cpu-dead.pb.gz', 1)"
expect_error 1 "is listed, but its file is gone" show 20261202-150405-cpu-dead
rc=0
"$SLIDEOPS" --json show 20261202-150405-cpu-dead >"$WORK/out.json" 2>/dev/null || rc=$?
[ $rc = 1 ] || fail "show --json of a missing file: exit $rc"
json 'd["error"]' <"$WORK/out.json" | has "its file is gone" || fail "--json error: $(cat "$WORK/out.json")"
"$SLIDEOPS" profiles delete 20261202-150405-cpu-dead >/dev/null || fail "profiles delete of a damaged profile"
expect_error 1 "no profile has the id" show 20261202-150405-cpu-dead

# services add says when nothing matches now.
out=$("$SLIDEOPS" services add ghost --unit no-such-unit-here) || fail "services add"
grep -q "has no unit no-such-unit-here running" <<<"$out" || fail "services add said: $out"
echo pass
