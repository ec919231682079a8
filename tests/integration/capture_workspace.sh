#!/usr/bin/env bash
# A capture from the web UI's API is the command line's capture: it keeps the workspace's
# unwind tables (the installed profiler, DATA/profiler/unwind), so that "Remove the
# profiler" then finds it and removes it. Both refuse, before sampling, a workspace they
# could not keep the profile in: a read-only one and a full one (real tmpfs mounts), the
# command line with its message and nothing captured, the API with 507 and the same
# message, and no capture started (the progress document still says none ran).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

[ "$(id -u)" = 0 ] || skip "needs root (mounts)"
command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload spin_in_main spin
cg=$(make_cgroup "system.slice/workspace-spin.service")
start_in_cgroup "$cg" "$WORK/spin" >/dev/null

# mount_tmpfs DIR SIZE: a tmpfs of SIZE at DIR, unmounted at exit.
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0700" tmpfs "$1" || skip "cannot mount a tmpfs"
	defer "umount '$1' 2>/dev/null || umount -l '$1'"
}

# wait_done: polls the progress document until the capture is no longer running.
wait_done() {
	local i
	for i in $(seq 600); do
		expect 200 GET /api/servers/local/capture
		[ "$(jq -r .running "$WORK/body")" = false ] && return 0
		sleep 0.2
	done
	fail "the capture never ended: $(cat "$WORK/body")"
}

# no_capture_ran: the server's progress document says no capture has run since it started.
no_capture_ran() {
	expect 200 GET /api/servers/local/capture
	jq -e '.running == false and .phase == null' "$WORK/body" >/dev/null ||
		fail "$1: a capture ran: $(cat "$WORK/body")"
}

# --- A capture from the API installs the profiler; Remove removes it.
start_serve
expect 202 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": 3}'
wait_done
jq -e '.phase == "done" and (.profile_id | length) > 0' "$WORK/body" >/dev/null ||
	fail "the API's capture ended as $(cat "$WORK/body")"
tables=$(find "$SLIDEOPS_DATA/profiler/unwind" -type f 2>/dev/null | wc -l)
[ "$tables" -gt 0 ] || fail "the API's capture kept no unwind table in $SLIDEOPS_DATA/profiler/unwind"
expect 200 POST /api/servers/local/remove
jq -e --arg p "$SLIDEOPS_DATA/profiler" 'any(.removed[]; .path == $p and .files > 0)' \
	"$WORK/body" >/dev/null || fail "Remove after the API's capture said $(cat "$WORK/body")"
[ ! -e "$SLIDEOPS_DATA/profiler" ] || fail "Remove left $SLIDEOPS_DATA/profiler"
stop_serve

# --- A read-only workspace: refused before sampling.
ro=$WORK/ro
mount_tmpfs "$ro" 64m
export SLIDEOPS_DATA=$ro/ws
start_serve
mount -o remount,ro "$ro" || fail "cannot make $ro read-only"
read_only="the workspace in $ro/ws cannot be written (Read-only file system); nothing was captured"
rc=0
timeout 600 "$SLIDEOPS" capture cpu -d 3600 > "$WORK/cli.out" 2> "$WORK/cli.err" || rc=$?
[ $rc = 1 ] || fail "a capture into a read-only workspace exited $rc: $(cat "$WORK/cli.err")"
grep -qF "slideops: $read_only" "$WORK/cli.err" ||
	fail "a capture into a read-only workspace said: $(cat "$WORK/cli.err")"
expect 507 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": 3600}'
jq -e --arg m "$read_only" '.error | startswith($m)' "$WORK/body" >/dev/null ||
	fail "the API's capture into a read-only workspace said $(cat "$WORK/body")"
no_capture_ran "a read-only workspace"
stop_serve

# --- A full workspace: refused before sampling.
full=$WORK/full
mount_tmpfs "$full" 16m
export SLIDEOPS_DATA=$full/ws
start_serve
dd if=/dev/zero of="$full/filler" bs=1M 2>/dev/null || true
full_msg="free, and a capture needs at least 4 MB; nothing was captured"
rc=0
timeout 600 "$SLIDEOPS" capture cpu -d 3600 > "$WORK/cli.out" 2> "$WORK/cli.err" || rc=$?
[ $rc = 1 ] || fail "a capture into a full workspace exited $rc: $(cat "$WORK/cli.err")"
grep -q "^slideops: the workspace in $full/ws has .* $full_msg" "$WORK/cli.err" ||
	fail "a capture into a full workspace said: $(cat "$WORK/cli.err")"
expect 507 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": 3600}'
jq -e --arg d "$full/ws" --arg m "$full_msg" \
	'(.error | startswith("the workspace in " + $d + " has ")) and (.error | contains($m))' \
	"$WORK/body" >/dev/null ||
	fail "the API's capture into a full workspace said $(cat "$WORK/body")"
no_capture_ran "a full workspace"
# Room again: the same server captures.
rm -f "$full/filler"
expect 202 POST /api/servers/local/capture -d '{"question": "cpu", "seconds": 1}'
wait_done
jq -e '.phase == "done"' "$WORK/body" >/dev/null ||
	fail "with room again, the capture ended as $(cat "$WORK/body")"
stop_serve
echo pass
