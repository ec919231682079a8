#!/usr/bin/env bash
# Debug files installed on the server name functions with nothing uploaded: with
# libc6-dbg, libc's internal (not exported) functions have their names in a capture.
source "$(dirname "$0")/lib.sh"

# The capture's binary-reading phase reads them through symtab__read_binary.
# (grep reads a copy: with pipefail, nm killed by an early grep -q would read as absent.)
symbols=$(nm "$SLIDEOPS" 2>/dev/null || true)
grep -q ' T symtab__read_binary$' <<<"$symbols" ||
	skip "the capture does not call symtab__read_binary yet, so installed debug files are not read"
libc=$(ldd /bin/true | awk '/libc.so.6/ { print $3 }')
bid=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
[ -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] ||
	skip "libc6-dbg is not installed for this libc (make deps installs it)"

# Time inside malloc and free, whose work is in libc's internal _int_malloc/_int_free.
workload churn_malloc_free churn
cg=$(make_cgroup system.slice/slideops-test-churn.service)
start_in_cgroup "$cg" "$WORK/churn" >/dev/null
"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/capture.json" || fail "capture failed"
jq -e '[.functions[].name] | index("_int_malloc") != null or index("_int_free") != null' \
	"$WORK/capture.json" >/dev/null ||
	fail "libc's internal functions are not named: $(jq -c '[.functions[:15][].name]' "$WORK/capture.json")"

# Every thread a program starts begins in libc's clone3, hand-written assembly whose one
# symbol spans three .eh_frame entries: the whole function is named, in every question.
# And names read as a person writes them: pthread_mutex_lock, never
# pthread_mutex_lock@@GLIBC_2.2.5 (the debug file's .symtab has the versions).
workload contend_ledger_mutex waiters
cg=$(make_cgroup system.slice/slideops-test-waiters.service)
pid=$(start_in_cgroup "$cg" "$WORK/waiters")
"$SLIDEOPS" capture wall -d 3 --json > "$WORK/wall.json" || fail "wall capture failed"
id=$(jq -r .id "$WORK/wall.json")
"$SLIDEOPS" show "$id" --export folded "$WORK/wall.folded" >/dev/null || fail "export failed"
# The waiters' threads: folded stacks run from the root; start_thread sits on clone3.
grep -a '^[^;]*;waiters;' "$WORK/wall.folded" | grep -a 'start_thread;worker' \
	> "$WORK/threads.folded" ||
	fail "no stack of the waiters' threads in the wall profile"
if grep -aqv ';clone3;start_thread;\|^[^;]*clone3;start_thread;' "$WORK/threads.folded"; then
	fail "a thread's root is not clone3: $(grep -av 'clone3;start_thread' "$WORK/threads.folded" |
		head -3 | cut -c1-200)"
fi
jq -r '.functions[].name' "$WORK/wall.json" > "$WORK/names"
cut -d' ' -f1 "$WORK/wall.folded" | tr ';' '\n' | sort -u >> "$WORK/names"
if grep -aE '@@?[A-Za-z_][A-Za-z0-9_.]*$' "$WORK/names" | grep -av '@plt$' > "$WORK/versioned"; then
	fail "names carry their symbol version: $(head -5 "$WORK/versioned" | tr '\n' ' ')"
fi
grep -aqx 'pthread_mutex_lock\|__lll_lock_wait\|clock_nanosleep' "$WORK/names" ||
	fail "the waiters' libc functions are not named: $(grep -a GLIBC "$WORK/names" | head -3)"
echo "installed debug files: ok"
