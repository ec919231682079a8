#!/usr/bin/env bash
# Owner groups on the real kernel: busy C programs moved into real cgroups named as
# docker, kubernetes (containerd), podman, systemd units and session scopes name
# theirs, plus processes placed only by the process tree; `slideops top --json` must
# put each in its group. Then Services: add/list/remove round trip, and a declared
# Service wins over its unit, its container and any group of its program.
#
# Container names are read from a fake runtime tree: SLIDEOPS_CONTAINER_ROOT points
# the resolver at it instead of /.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to create cgroups"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"

ID_DOCKER=5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592
ID_CRI=7d793037a0760186574b0282f2f435e77d793037a0760186574b0282f2f435e7
ID_PODMAN=9e107d9d372bb6826bd81d3542a419d69e107d9d372bb6826bd81d3542a419d6
POD=kubepods-burstable-pod0a1b2c3d_4e5f_6a7b_8c9d_0e1f2a3b4c5d

workload spin_duty spin
# One copy per group, so each process has its own name (comm).
for n in slo-web slo-redis slo-pod slo-podman slo-scope slo-shell slo-other; do
	cp "$WORK/spin" "$WORK/$n"
done

# The cgroups, each level deferred so the cleanup removes them deepest first.
cgroup() {
	local path=$1 part="" c
	IFS=/ read -ra parts <<<"$path"
	for c in "${parts[@]}"; do
		part=${part:+$part/}$c
		[ -d "$CGROUP2/$part" ] && continue
		make_cgroup "$part" >/dev/null
	done
}
# start DIR PROG ARGS...: PROG with its pid put in cgroup DIR before it runs.
start() {
	local dir=$CGROUP2/$1; shift
	bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@" >/dev/null 2>&1 &
	disown $! # killed at the end: not worth a "Killed" line
}
pid_in() {
	local i pid
	for i in $(seq 50); do
		pid=$(head -1 "$CGROUP2/$1/cgroup.procs" 2>/dev/null || true)
		[ -n "$pid" ] && { echo "$pid"; return; }
		sleep 0.1
	done
	fail "nothing started in cgroup $1"
}

CG_WEB=system.slice/slideops-test-web.service
CG_REDIS=system.slice/docker-$ID_DOCKER.scope
CG_POD=kubepods.slice/kubepods-burstable.slice/$POD.slice/cri-containerd-$ID_CRI.scope
CG_PODMAN=machine.slice/libpod-$ID_PODMAN.scope
CG_SCOPE=user.slice/user-0.slice/session-9999.scope
# Cgroups that say nothing: there the process tree decides.
CG_SHELL=slideops-test-shell
CG_OTHER=slideops-test-other

for cg in $CG_WEB $CG_REDIS $CG_POD $CG_PODMAN $CG_SCOPE $CG_SHELL $CG_OTHER; do
	cgroup "$cg"
done
start $CG_WEB "$WORK/slo-web" 10
start $CG_REDIS "$WORK/slo-redis" 10
start $CG_POD "$WORK/slo-pod" 10
start $CG_PODMAN "$WORK/slo-podman" 10
start $CG_SCOPE "$WORK/slo-scope" 10
# Started by this script (a shell): a signed-in session's, by the process tree.
start $CG_SHELL "$WORK/slo-shell" 10
# Orphaned at once (its parent exits, init adopts it) and with no terminal: nobody's.
( start $CG_OTHER setsid "$WORK/slo-other" 10 )

declare -A PID
PID[web]=$(pid_in $CG_WEB)
PID[redis]=$(pid_in $CG_REDIS)
PID[pod]=$(pid_in $CG_POD)
PID[podman]=$(pid_in $CG_PODMAN)
PID[scope]=$(pid_in $CG_SCOPE)
PID[shell]=$(pid_in $CG_SHELL)
PID[other]=$(pid_in $CG_OTHER)
for k in "${!PID[@]}"; do defer "kill -9 ${PID[$k]} 2>/dev/null"; done
[ "$(awk '{ print $4 }' "/proc/${PID[other]}/stat")" != "$$" ] ||
	fail "the orphan is still this script's child"

# The runtimes' metadata, where docker and podman keep it.
CROOT=$WORK/container-root
mkdir -p "$CROOT/var/lib/docker/containers/$ID_DOCKER" \
	"$CROOT/var/lib/containers/storage/overlay-containers"
echo '{"ID":"'$ID_DOCKER'","Name":"/slideops-redis","Config":{"Image":"redis:7"}}' \
	>"$CROOT/var/lib/docker/containers/$ID_DOCKER/config.v2.json"
echo '[{"id":"'$ID_PODMAN'","names":["slideops-podman"],"image":"x"}]' \
	>"$CROOT/var/lib/containers/storage/overlay-containers/containers.json"
export SLIDEOPS_CONTAINER_ROOT=$CROOT

TOP=$WORK/top.json
top_json() { "$SLIDEOPS" top -n 100000 --json >"$TOP" || fail "slideops top --json failed"; }
group_of() {
	python3 - "$TOP" "$1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
hits = [p["group"] for p in doc["processes"] if p["pid"] == int(sys.argv[2])]
print(hits[0] if hits else "(not listed)")
EOF
}
expect_group() {
	local what=$1 pid=$2 want=$3 got
	got=$(group_of "$pid")
	[ "$got" = "$want" ] || fail "$what (pid $pid, cgroup $(grep '^0::' /proc/$pid/cgroup)): group '$got', want '$want'"
	echo "ok: $what -> $got"
}

top_json
expect_group "systemd unit" "${PID[web]}" "Unit slideops-test-web.service"
expect_group "docker container (name from config.v2.json)" "${PID[redis]}" "Container slideops-redis"
expect_group "kubernetes containerd container (short id)" "${PID[pod]}" "Container ${ID_CRI:0:12}"
expect_group "podman container (name from containers/storage)" "${PID[podman]}" "Container slideops-podman"
expect_group "session scope" "${PID[scope]}" "Signed-in sessions"
expect_group "started from a shell" "${PID[shell]}" "Signed-in sessions"
expect_group "orphan without a terminal" "${PID[other]}" "Other processes"
expect_group "init" 1 "System"
expect_group "kthreadd" 2 "System"
python3 - "$TOP" <<'EOF' || fail "a process in top --json lacks a field or has the wrong type"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["processes"], "no processes"
for p in doc["processes"]:
    assert isinstance(p["pid"], int) and isinstance(p["comm"], str)
    assert isinstance(p["cpu_percent"], (int, float)) and p["cpu_percent"] >= 0
    assert p["group"] in ("Signed-in sessions", "System", "Other processes") or \
        p["group"].split(" ", 1)[0] in ("Service", "Container", "Unit"), p
EOF

# Without the runtime's metadata, a container is named by its short id.
SLIDEOPS_CONTAINER_ROOT=$WORK/empty top_json
expect_group "docker container without metadata" "${PID[redis]}" "Container ${ID_DOCKER:0:12}"
top_json

# ---- Services ----
S() { "$SLIDEOPS" services "$@"; }
S list --json | json 'len(d["services"])' | has -x 0 || fail "a fresh workspace has Services"
S add web --unit slideops-test-web >/dev/null || fail "services add --unit"
S add cache --container slideops-redis >/dev/null || fail "services add --container"
S add pods --container "${ID_CRI:0:16}" >/dev/null || fail "services add --container ID"
S add batch --exe "$WORK/slo-other" >/dev/null || fail "services add --exe"
S add scoped --unit session-9999.scope >/dev/null || fail "services add --unit (a scope)"

set +e
S add web --unit other >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "adding a taken name: exit $rc, want 2"
S add nomatch >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "add without --unit/--container/--exe: exit $rc, want 2"
S add two --unit a --exe /b >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "add with two matches: exit $rc, want 2"
S remove nosuch >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "removing an unknown Service: exit $rc, want 2"
set -e

S list --json >"$WORK/services.json"
python3 - "$WORK/services.json" "$WORK/slo-other" "${ID_CRI:0:16}" <<'EOF' || fail "services list --json: $(cat "$WORK/services.json")"
import json, sys
got = {s["name"]: (s["match"], s["value"]) for s in json.load(open(sys.argv[1]))["services"]}
want = {"web": ("unit", "slideops-test-web"), "cache": ("container", "slideops-redis"),
        "pods": ("container", sys.argv[3]), "batch": ("exe", sys.argv[2]),
        "scoped": ("unit", "session-9999.scope")}
assert got == want, got
EOF
S list | has "slideops-test-web" || fail "services list does not show the unit"

top_json
expect_group "a Service over its unit" "${PID[web]}" "Service web"
expect_group "a Service over its container (by name)" "${PID[redis]}" "Service cache"
expect_group "a Service over its container (by id)" "${PID[pod]}" "Service pods"
expect_group "a Service over the process tree (by exe)" "${PID[other]}" "Service batch"
expect_group "a Service over a session scope" "${PID[scope]}" "Service scoped"
expect_group "an undeclared container" "${PID[podman]}" "Container slideops-podman"
"$SLIDEOPS" top -n 100000 > "$WORK/top.txt"
grep -Eq "^ *${PID[web]}  slo-web [0-9<]+% CPU  Service web$" "$WORK/top.txt" ||
	fail "top's text does not say 'slo-web N% CPU  Service web': $(grep -a slo-web "$WORK/top.txt")"

S remove web >/dev/null || fail "services remove"
S --json remove cache | json 'd["removed"]["name"]' | has -x cache || fail "services remove --json"
top_json
expect_group "its unit again once the Service is removed" "${PID[web]}" "Unit slideops-test-web.service"
expect_group "its container again once the Service is removed" "${PID[redis]}" "Container slideops-redis"
S list --json | json 'sorted(s["name"] for s in d["services"])' |
	grep -qx "\['batch', 'pods', 'scoped'\]" || fail "services list after removals"
echo "pass"
