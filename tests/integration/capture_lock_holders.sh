#!/usr/bin/env bash
# Who holds the lock: `slideops capture locks` on the real kernel names the function that
# released a contended mutex while others waited on it. A C program in a cgroup named as
# systemd names a unit's:
#   billing  three threads in read_balance take the ledger mutex for a moment; one thread
#            in apply_batch holds it for 20 ms stretches, so the readers wait on it
# The profile's lock must list apply_batch first among its holders (with the waiting its
# releases ended, in its process), the waiters in read_balance, and the answer say that
# read_balance waited for apply_batch. Built with frame pointers and without them (the
# unwind tables' walk), in turn.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.locks' >/dev/null ||
	skip "this server cannot answer locks: $("$SLIDEOPS" check 2>&1 | grep locks)"

SECONDS_CAPTURE=4

run_case() { # NAME WORKLOAD
	local name=$1 doc lock holder answer re
	workload "$2" "$name"
	local cg
	cg=$(make_cgroup "system.slice/slideops-test-$name.service")
	local pid
	pid=$(start_in_cgroup "$cg" "$WORK/$name")
	sleep 0.5
	doc="$WORK/$name.json"
	"$SLIDEOPS" capture locks -d "$SECONDS_CAPTURE" --json > "$doc" 2> "$WORK/$name.err" ||
		fail "$name: capture locks failed: $(cat "$WORK/$name.err")"
	kill "$pid" 2>/dev/null || true

	# The process's lock waited on most: the ledger.
	lock=$(jq -c --argjson pid "$pid" '[.locks[] | select(.pid == $pid)] | .[0] // empty' "$doc")
	[ -n "$lock" ] || fail "$name: no lock of pid $pid: $(jq -c '[.locks[] | {address, pid}]' "$doc")"
	jq -e '.functions[0].name == "read_balance"' <<<"$lock" >/dev/null ||
		fail "$name: the ledger's waiters are not read_balance: $lock"
	holder=$(jq -c '.holders[0] // empty' <<<"$lock")
	[ -n "$holder" ] || fail "$name: the ledger has no holders: $lock"
	jq -e --argjson pid "$pid" --arg comm "$name" \
		'.function == "apply_batch" and .process == $comm and .pid == $pid and .ns > 0' \
		<<<"$holder" >/dev/null || fail "$name: the ledger's first holder is not apply_batch: $lock"
	# The releases ended waiting that happened: no more than the readers waited in all.
	jq -e '.holders[0].ns <= .wait_ns and .holders[0].ns * 2 >= .held_ns' <<<"$lock" \
		>/dev/null || fail "$name: apply_batch's share of the releases: $lock"

	# The answer names the holder when the process's group leads (a shared machine may
	# have a longer wait elsewhere: then the lock named is that one's).
	answer=$(jq -r .answer "$doc")
	if [ "$(jq -r '.groups[0].label' "$doc")" = "Unit slideops-test-$name.service" ] &&
		[ "$(jq -r '.locks[0].pid' "$doc")" = "$pid" ]; then
		re=", most of it in read_balance, waiting for apply_batch to release the lock\."
		[[ $answer =~ $re ]] || fail "$name: the answer does not name the holder: $answer"
	fi

	# The text report lists the holder beneath the lock.
	"$SLIDEOPS" show "$(jq -r .id "$doc")" > "$WORK/$name.txt" || fail "$name: show failed"
	grep -q "held by apply_batch in $name \[$pid\]" "$WORK/$name.txt" ||
		fail "$name: show does not list the holder: $(grep -A6 'Locks by address' "$WORK/$name.txt")"
	echo "$name: $answer"
}

run_case billing-fp ledger_holder_and_readers
run_case billing-nofp ledger_holder_and_readers_nofp
echo "ok"
