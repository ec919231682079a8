#!/usr/bin/env bash
# Files a capture looks up by path, on a file system whose server stopped answering
# (tests/tools/hung_fs.c with "every": each lookup in it waits while a flag is set), each
# mounted in a mount namespace of its own so the machine's own are untouched:
# - the installed debug files' directory (/usr/lib/debug), as where debug files are shared
#   over NFS: a capture there ends, keeps its profile, names a program from its own
#   tables, and says the installed debug files were not looked for and why; so does a
#   resident serve, capture after capture;
# - dpkg's lists (/var/lib/dpkg), read for whether a sampled binary is a package's: a
#   capture there ends and names the program.
# Nothing is looked up there: a lookup would wait in the kernel until the mount answers.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
[ -d /usr/lib/debug ] || skip "no /usr/lib/debug to mount over (make deps installs libc6-dbg)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload spin_hung_spin debug-root-worker
echo "no debug file" > "$WORK/README"
FLAG=$WORK/server-away
mount_hung_fs "$WORK/README" every
cg=$(make_cgroup "system.slice/hung-debug-root.service")
start_in_cgroup "$cg" "$WORK/debug-root-worker" >/dev/null
# The server goes away: from now on every lookup under the mount waits.
touch "$FLAG"

# "${in_namespace[@]}" COMMAND...: COMMAND where the hung mount is /usr/lib/debug.
in_namespace=(unshare -m --propagation private bash -c
	'mount --bind "$0" /usr/lib/debug && exec "$@"' "$WORK/mnt")

# That a lookup there does wait (else this test proves nothing): a stat of a build id's
# directory is still waiting 2 s on; it ends when the flag goes (at exit).
"${in_namespace[@]}" stat /usr/lib/debug/.build-id > "$WORK/stat.out" 2>&1 &
stat_pid=$!
sleep 2
kill -0 "$stat_pid" 2>/dev/null || fail "a lookup in the hung mount did not wait: $(cat "$WORK/stat.out")"

echo "== a capture of 3 s where /usr/lib/debug does not answer"
start=$(date +%s%N)
rc=0
timeout -s KILL 60 "${in_namespace[@]}" "$SLIDEOPS" --json capture cpu -d 3 > "$WORK/cpu.json" 2> "$WORK/cpu.err" || rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" != 137 ] || fail "the capture was still running after 60 s: it waited on /usr/lib/debug"
[ "$rc" = 0 ] || fail "the capture failed ($rc): $(tail -5 "$WORK/cpu.err")"
echo "the capture took ${elapsed_ms} ms in all"
jq -e '[.not_read[] | select(.path == "/usr/lib/debug" and (.reason | test("not looked for: a fuse[.a-z_]* file system, which may not answer")))] | length == 1' \
	"$WORK/cpu.json" >/dev/null || fail "the profile does not say why the debug files were not read: $(jq -c .not_read "$WORK/cpu.json")"
jq -e '[.functions[].name] | index("hung_spin") != null' "$WORK/cpu.json" >/dev/null ||
	fail "the worker's function is not named from its own tables: $(jq -c '[.functions[].name][:10]' "$WORK/cpu.json")"
[ -e "$FLAG" ] || fail "the flag went away: the mount answered during the capture"
kill -0 "$stat_pid" 2>/dev/null || fail "the stat ended: the mount answered during the capture"
"$SLIDEOPS" show "$(jq -r .id "$WORK/cpu.json")" > "$WORK/cpu.txt" || fail "the profile was not kept"
has "not looked for" < "$WORK/cpu.txt" || fail "show does not say it: $(tail -20 "$WORK/cpu.txt")"

echo "== a resident serve there: two captures, the second with what the first kept"
real_slideops=$SLIDEOPS
printf '#!/usr/bin/env bash\nexec %q -m --propagation private bash -c %q %q %q "$@"\n' \
	unshare 'mount --bind "$0" /usr/lib/debug && exec "$@"' "$WORK/mnt" "$real_slideops" \
	> "$WORK/slideops-in-namespace"
chmod +x "$WORK/slideops-in-namespace"
SLIDEOPS=$WORK/slideops-in-namespace start_serve
grep -q " /usr/lib/debug .* - fuse" "/proc/$SERVE_PID/mountinfo" ||
	fail "serve is not where the hung mount is /usr/lib/debug"
for n in 1 2; do
	serve_capture cpu 2
	serve_capture_done
	jq -e '[.not_read[] | select(.path == "/usr/lib/debug")] | length == 1' "$WORK/body" >/dev/null ||
		fail "serve's capture $n does not say the debug files were not read: $(jq -c .not_read "$WORK/body")"
	jq -e '[.functions[].name] | index("hung_spin") != null' "$WORK/body" >/dev/null ||
		fail "serve's capture $n does not name the worker's function: $(jq -c '[.functions[].name][:10]' "$WORK/body")"
done
stop_serve

echo "== a capture where dpkg's lists do not answer"
# A program at a path only dpkg's lists can tell about (not /usr/local, /home, /tmp...),
# started inside the namespace, in the test's cgroup.
in_dpkg_namespace=(unshare -m --propagation private bash -c '
	mount --bind "$0" /var/lib/dpkg && mount -t tmpfs tmpfs /opt &&
	cp "$1" /opt/dpkg-worker && (echo $BASHPID > "$2/cgroup.procs" && exec /opt/dpkg-worker) &
	shift 2 && sleep 0.5 && exec "$@"' "$WORK/mnt" "$WORK/debug-root-worker" "$cg")
unshare -m --propagation private bash -c 'mount --bind "$0" /var/lib/dpkg && exec stat /var/lib/dpkg/info' \
	"$WORK/mnt" > "$WORK/stat-dpkg.out" 2>&1 &
stat_dpkg_pid=$!
sleep 2
kill -0 "$stat_dpkg_pid" 2>/dev/null || fail "a lookup of dpkg's lists did not wait: $(cat "$WORK/stat-dpkg.out")"
rc=0
timeout -s KILL 60 "${in_dpkg_namespace[@]}" "$SLIDEOPS" --json capture cpu -d 2 > "$WORK/dpkg.json" 2> "$WORK/dpkg.err" || rc=$?
[ "$rc" != 137 ] || fail "the capture was still running after 60 s: it waited on dpkg's lists"
[ "$rc" = 0 ] || fail "the capture failed ($rc): $(tail -5 "$WORK/dpkg.err")"
jq -e '[.groups[].processes[] | select(.comm == "dpkg-worker")] | length > 0' "$WORK/dpkg.json" >/dev/null ||
	fail "the program at /opt is not among the processes: $(jq -c '[.groups[].processes[].comm]' "$WORK/dpkg.json")"
jq -e '[.functions[].name] | index("hung_spin") != null' "$WORK/dpkg.json" >/dev/null ||
	fail "the program's function is not named: $(jq -c '[.functions[].name][:10]' "$WORK/dpkg.json")"

# Where the debug files answer, the same capture says nothing of them.
rm -f "$FLAG"
wait "$stat_pid" "$stat_dpkg_pid" 2>/dev/null || true # stat says there is no such directory
"$SLIDEOPS" --json capture cpu -d 1 > "$WORK/own.json" 2> "$WORK/own.err" || fail "the capture failed: $(tail -5 "$WORK/own.err")"
jq -e '[.not_read[] | select(.path == "/usr/lib/debug")] | length == 0' "$WORK/own.json" >/dev/null ||
	fail "the machine's own /usr/lib/debug is said not read: $(jq -c .not_read "$WORK/own.json")"
echo "ok"
