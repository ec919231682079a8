#!/usr/bin/env bash
# The profiler stays installed in `slideops serve`: the first capture loads it and its
# progress says so, the next finds the same programs loaded and says nothing; between
# captures the programs stay loaded but nothing of them is attached (no link, no perf
# event: nothing samples); Remove the profiler unloads them, deletes DATA/profiler and
# says so, and the next capture installs it again; a program rebuilt in place between
# captures (the same inode and size, its modification time put back) is named as the new
# build, not from what the profiler remembers of the old; serve killed with SIGKILL while it
# samples leaves nothing loaded or attached, and a new serve starts clean. The same build
# stripped, then unstripped, is named by the unstripped one's own table.
# Other engineers' profilers run on this machine too: everything here is this serve's
# (its pid's descriptors, its programs' ids), never the machine's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
command -v bpftool >/dev/null || skip "bpftool is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"

workload spin_resident_spin spin
cg=$(make_cgroup "system.slice/serve-resident.service")
start_in_cgroup "$cg" "$WORK/spin" >/dev/null
start_serve

# capture SECONDS [QUESTION]: starts a capture (cpu by default); its first progress
# document is in $WORK/first.
capture() {
	expect 202 POST /api/servers/local/capture -H 'Content-Type: application/json' \
		-d "{\"question\": \"${2:-cpu}\", \"seconds\": $1}"
	cp "$WORK/body" "$WORK/first"
}
# wait_done: until the capture has ended; it must have ended done. Its last progress
# document stays in $WORK/body, and $WORK/progress holds every one seen.
wait_done() {
	: > "$WORK/progress"
	for _ in $(seq 600); do
		expect 200 GET /api/servers/local/capture
		jq -c . "$WORK/body" >> "$WORK/progress"
		[ "$(jq -r .running "$WORK/body")" = false ] && break
		sleep 0.2
	done
	jq -e '.phase == "done" and (.profile_id | length) > 0' "$WORK/body" >/dev/null ||
		fail "the capture ended as $(cat "$WORK/body")"
}
# The spinning function is named in the profile just captured: its stacks were whole.
assert_named() {
	expect 200 GET "/api/profiles/$(jq -r .profile_id "$WORK/body")"
	jq -e '[.functions[].name] | index("resident_spin") != null' "$WORK/body" >/dev/null ||
		fail "$1: resident_spin is not among $(jq -c '[.functions[].name][:12]' "$WORK/body")"
}
# Descriptors of serve that attach something: BPF links, perf events.
attached_fds() {
	ls -l /proc/"$SERVE_PID"/fd 2>/dev/null | grep -cE 'bpf_link|perf_event' || true
}
# Links anywhere on the machine that run one of the programs $1 (ids, one a line).
links_of() {
	bpftool link list --json | jq -r --argjson ids "[$(paste -sd, <<<"$1")]" \
		'.[] | select(.prog_id as $p | $ids | index($p)) | .id'
}

# ---- the first capture installs the profiler, and says so ----
capture 2
jq -e '.installing == true and (.note | test("installing the profiler"))' "$WORK/first" \
	>/dev/null || fail "the first capture's progress does not say it installs: $(cat "$WORK/first")"
wait_done
grep -q '"installing":true' "$WORK/progress" || fail "the first capture never said it installs"
assert_named "the first capture"

# ---- between captures: loaded, attached to nothing ----
progs=$(held_programs "$SERVE_PID")
[ -n "$progs" ] || fail "serve holds no BPF program after a capture: the profiler was not kept"
[ "$(attached_fds)" = 0 ] || fail "serve holds links or perf events between captures: $(ls -l /proc/"$SERVE_PID"/fd | grep -E 'bpf_link|perf_event')"
[ -z "$(links_of "$progs")" ] || fail "links run serve's programs between captures: $(links_of "$progs")"
for p in $progs; do
	bpftool -f prog show id "$p" --json | jq -e '(.pinned // []) | length == 0' >/dev/null ||
		fail "serve's program $p is pinned: it would outlive serve"
done

# ---- the second capture finds it installed: the same programs, nothing said ----
capture 2
jq -e '.installing == false and .note == null' "$WORK/first" >/dev/null ||
	fail "the second capture's progress says it installs: $(cat "$WORK/first")"
wait_attached "$SERVE_PID" || fail "the second capture never attached"
[ "$(held_programs "$SERVE_PID")" = "$progs" ] ||
	fail "the second capture loaded other programs: $(held_programs "$SERVE_PID" | paste -sd' ') (were: $(paste -sd' ' <<<"$progs"))"
wait_done
! grep -q '"installing":true' "$WORK/progress" || fail "the second capture said it installs"
assert_named "the second capture (tables kept in the maps)"
[ "$(attached_fds)" = 0 ] || fail "serve holds links or perf events after the second capture"

# ---- a binary rebuilt in place between captures: the new build's names ----
# The names of the functions in the profile just captured, one a line.
profile_functions() {
	expect 200 GET "/api/profiles/$(jq -r .profile_id "$WORK/body")"
	jq -r '.functions[].name' "$WORK/body"
}
# Two builds of one layout (names of one length) whose function names differ: what the profiler
# keeps of a file (its ELF facts, by identity and change times) must not name the second
# build with the first's build id, whose names the workspace keeps.
workload spin_rebuilt rebuilt
workload spin_rebuilt_new rebuilt-new
pid=$(start_in_cgroup "$cg" "$WORK/rebuilt")
capture 2
wait_done
profile_functions > "$WORK/names"
grep -qx rebuilt_spin_old "$WORK/names" ||
	fail "the first build is not named: $(head -12 "$WORK/names" | paste -sd' ')"
kill -9 "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
ino=$(stat -c %i "$WORK/rebuilt")
touch -r "$WORK/rebuilt" "$WORK/mtime"
cat "$WORK/rebuilt-new" > "$WORK/rebuilt"
touch -r "$WORK/mtime" "$WORK/rebuilt"
[ "$(stat -c %i "$WORK/rebuilt")" = "$ino" ] || fail "the rebuild made another inode"
start_in_cgroup "$cg" "$WORK/rebuilt" >/dev/null
capture 2
wait_done
profile_functions > "$WORK/names"
grep -qx rebuilt_spin_new "$WORK/names" ||
	fail "the rebuilt program is not named as the new build: $(head -12 "$WORK/names" | paste -sd' ')"
! grep -qx rebuilt_spin_old "$WORK/names" ||
	fail "the rebuilt program is named from the old build"

# One build stripped, then the same build unstripped (one build id): what serve kept of
# the stripped one (its .dynsym, no function of ours) does not hide the unstripped one's
# .symtab.
workload spin_same_build same-build
cp "$WORK/same-build" "$WORK/same-build-stripped" && strip "$WORK/same-build-stripped"
pid=$(start_in_cgroup "$cg" "$WORK/same-build-stripped")
capture 2
wait_done
! profile_functions | has -x same_build_spin || fail "a stripped binary was named"
kill -9 "$pid"
pid=$(start_in_cgroup "$cg" "$WORK/same-build")
capture 2
wait_done
profile_functions > "$WORK/names"
grep -qx same_build_spin "$WORK/names" ||
	fail "the unstripped build is named from the stripped one's kept table: $(head -12 "$WORK/names" | paste -sd' ')"
kill -9 "$pid"

# ---- Remove the profiler: unloaded, deleted, said; the next capture installs again ----
[ -d "$SLIDEOPS_DATA/profiler" ] || fail "no DATA/profiler after two captures"
expect 200 POST /api/servers/local/remove
jq -e --arg d "$SLIDEOPS_DATA" '.removed | map(.path) | index($d + "/profiler") != null' \
	"$WORK/body" >/dev/null || fail "Remove did not say it removed DATA/profiler: $(cat "$WORK/body")"
[ ! -e "$SLIDEOPS_DATA/profiler" ] || fail "DATA/profiler is still there after Remove"
assert_unloaded "Remove the profiler" "$progs"
[ -z "$(held_programs "$SERVE_PID")" ] || fail "serve still holds programs after Remove"
capture 1
jq -e '.installing == true' "$WORK/first" >/dev/null ||
	fail "the capture after Remove does not say it installs: $(cat "$WORK/first")"
wait_done
assert_named "the capture after Remove"

# ---- another question: one question's programs are kept at a time ----
progs=$(held_programs "$SERVE_PID")
capture 1 wall
wait_done
# What cpu's capture loaded and serve still holds: the kernel-symbol program and the JVM
# memory reader, kept by every question, at most.
still=$(comm -12 <(sort <<<"$progs") <(held_programs "$SERVE_PID" | sort))
[ "$(grep -c . <<<"$still")" -le 2 ] ||
	fail "serve still holds cpu's programs after a wall capture: $(paste -sd' ' <<<"$still")"
[ -n "$(held_programs "$SERVE_PID")" ] || fail "serve keeps no program after the wall capture"
capture 1
jq -e '.installing == true' "$WORK/first" >/dev/null ||
	fail "a cpu capture after a wall one does not say it installs: $(cat "$WORK/first")"
wait_done
assert_named "a cpu capture after a wall one"

# ---- SIGKILL while sampling: nothing stays; the next serve starts clean ----
capture 60
wait_attached "$SERVE_PID" || fail "the capture to be killed never attached"
progs=$(held_programs "$SERVE_PID")
kill -KILL "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
assert_unloaded "serve was killed with SIGKILL" "$progs"
[ -z "$(links_of "$progs")" ] || fail "links of the killed serve remain: $(links_of "$progs")"
start_serve
expect 200 GET /api/servers/local/capture
[ -z "$(held_programs "$SERVE_PID")" ] && [ "$(attached_fds)" = 0 ] ||
	fail "a new serve holds programs or links before any capture"
capture 1
jq -e '.installing == true' "$WORK/first" >/dev/null ||
	fail "the first capture of the new serve does not say it installs: $(cat "$WORK/first")"
wait_done
stop_serve
echo "ok"
