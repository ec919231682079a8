#!/usr/bin/env bash
# A program run from a file system whose server stopped answering (tests/tools/hung_fs.c,
# a FUSE mount whose every request about its file waits while a flag is set, as an NFS
# hard mount or an sshfs whose host went away): a capture beside it ends, keeps its
# profile, names the program by its process name with its frames by address, and says
# the file could not be read because its file system did not answer within 2 s. Only a
# reader process of the capture's (`slideops __read-guard`) is stuck; the capture never
# waits for it. A resident serve keeps answering, captures other questions and removes
# the profiler while the read is stuck, starts no second read of the file meanwhile, and
# reads the file once its server answers again.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload spin_hung_spin hung-worker
mkdir "$WORK/served"
mv "$WORK/hung-worker" "$WORK/served/hung-worker"
FLAG=$WORK/server-away
mount_hung_fs "$WORK/served/hung-worker"
cg=$(make_cgroup "system.slice/hung-mount.service")
worker=$(start_in_cgroup "$cg" "$WORK/mnt/hung-worker")
for _ in $(seq 200); do
	[ "$(cat "/proc/$worker/comm" 2>/dev/null)" = hung-worker ] && break
	sleep 0.05
done
[ "$(cat "/proc/$worker/comm" 2>/dev/null)" = hung-worker ] || fail "hung-worker did not start"
# The server goes away: from now on an open, a stat or a read of the file waits.
touch "$FLAG"

# readers: the capture's reader processes alive under process $1, one pid a line.
readers() { pgrep -P "$1" -f "__read-guard" || true; }
# The profile document $1 lists the file as not read because its file system did not
# answer, and keeps hung-worker by its process name with a frame by address.
assert_hung_profile() {
	jq -e --arg p "$WORK/mnt/hung-worker" \
		'[.not_read[] | select(.path == $p and (.reason | test("its file system did not answer within 2 s")))] | length == 1' \
		"$1" >/dev/null || fail "$2: the file is not listed as not read for its file system: $(jq -c .not_read "$1")"
	jq -e '[.groups[].processes[] | select(.comm == "hung-worker")] | length > 0' "$1" >/dev/null ||
		fail "$2: hung-worker is not among the processes: $(jq -c '[.groups[].processes[].comm]' "$1")"
	jq -e '[.functions[].name | select(startswith("hung-worker+0x"))] | length > 0' "$1" >/dev/null ||
		fail "$2: no frame of hung-worker by address: $(jq -c '[.functions[].name][:10]' "$1")"
}

echo "== the command line: a capture of 3 s ends and keeps its profile"
start=$(date +%s%N)
rc=0
timeout -s KILL 60 "$SLIDEOPS" --json capture cpu -d 3 > "$WORK/cli.json" 2> "$WORK/cli.err" || rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" != 137 ] || fail "the capture was still running after 60 s beside the hung mount"
[ "$rc" = 0 ] || fail "the capture failed ($rc): $(tail -5 "$WORK/cli.err")"
echo "the 3 s capture took ${elapsed_ms} ms in all beside the hung mount"
assert_hung_profile "$WORK/cli.json" "the command line's capture"
[ -e "$FLAG" ] || fail "the flag went away: the mount answered during the capture"
"$SLIDEOPS" show "$(jq -r .id "$WORK/cli.json")" > "$WORK/cli.txt" ||
	fail "the profile was not kept"
has "did not answer within 2 s" < "$WORK/cli.txt" || fail "show does not say why: $(tail -20 "$WORK/cli.txt")"

echo "== a resident serve: the read stuck, everything else answers"
start_serve
serve_capture cpu 3
serve_capture_done
assert_hung_profile "$WORK/body" "serve's cpu capture"
stuck=$(readers "$SERVE_PID")
[ "$(grep -c . <<<"$stuck")" = 1 ] || fail "serve has $(grep -c . <<<"$stuck") readers after the first capture, want the 1 stuck"
grep -q '^D' <(awk '{ print $3 }' "/proc/$stuck/stat") ||
	fail "the reader is not waiting in the kernel: $(cat "/proc/$stuck/stat")"

# Another question while the read is stuck: it answers at once from what is known, and
# starts no second reader of the file.
serve_capture wall 2
expect 200 GET /api/servers
expect 200 GET /api/servers/local/top
serve_capture_done
jq -e --arg p "$WORK/mnt/hung-worker" \
	'[.not_read[] | select(.path == $p and (.reason | test("did not answer within 2 s")))] | length == 1' \
	"$WORK/body" >/dev/null || fail "the wall capture does not list the file: $(jq -c .not_read "$WORK/body")"
[ "$(readers "$SERVE_PID")" = "$stuck" ] ||
	fail "a second read of the file was started while the first is stuck: readers $(readers "$SERVE_PID" | paste -sd' '), were $stuck"

# Remove the profiler while the read is stuck.
progs=$(held_programs "$SERVE_PID")
expect 200 POST /api/servers/local/remove
assert_unloaded "Remove the profiler with a read stuck" "$progs"
[ -z "$(held_programs "$stuck")" ] || fail "the stuck reader holds BPF programs: $(held_programs "$stuck")"
# Its socket and its copy, and /dev/null for its standard streams: nothing of serve's
# (a listening socket, a BPF link, serve's output, which a reader of it would wait on).
fds=$(ls "/proc/$stuck/fd" | sort -n | paste -sd' ')
[ "$fds" = "0 1 2 3 4" ] || fail "the reader holds descriptors $fds: $(ls -l "/proc/$stuck/fd")"
[ "$(readlink "/proc/$stuck/fd/1")" = /dev/null ] || fail "the reader's output is serve's: $(readlink "/proc/$stuck/fd/1")"

# The server answers again: the stuck reader ends, and the next capture reads the file.
rm -f "$FLAG"
for _ in $(seq 200); do
	[ -e "/proc/$stuck" ] && [ "$(awk '{ print $3 }' "/proc/$stuck/stat" 2>/dev/null)" != Z ] || break
	sleep 0.05
done
serve_capture cpu 2
serve_capture_done
jq -e '[.functions[].name] | index("hung_spin") != null' "$WORK/body" >/dev/null ||
	fail "the file was not read once its server answered: $(jq -c '[.functions[].name][:10]' "$WORK/body") not read: $(jq -c .not_read "$WORK/body")"
[ -z "$(readers "$SERVE_PID")" ] || fail "readers stay after the file was read: $(readers "$SERVE_PID" | paste -sd' ')"
stop_serve
echo "ok"
