# Shared by the integration tests. Each test is a bash script run as root with
# SLIDEOPS (the binary) and SLIDEOPS_DATA (a fresh workspace) set; exit 0 pass, 77 skip.
set -euo pipefail

: "${SLIDEOPS:?set SLIDEOPS to the slideops binary}"
: "${SLIDEOPS_DATA:=$(mktemp -d /tmp/slideops-data.XXXXXX)}"
export SLIDEOPS_DATA
CGROUP2=${CGROUP2:-$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)}
WORK=$(mktemp -d /tmp/slideops-it.XXXXXX)
# Clean-up steps go to a file, so that helpers called inside $(...) can register theirs.
CLEANUP_FILE="$WORK/.cleanup"
: > "$CLEANUP_FILE"

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
at_exit() {
	local step
	while IFS= read -r step; do eval "$step" || true; done < <(tac "$CLEANUP_FILE")
	rm -rf "$WORK"
}
trap at_exit EXIT
defer() { printf '%s\n' "$*" >> "$CLEANUP_FILE"; }
# check_json: `slideops check --json`. The kernel matrix's guests ran it before their
# tests and keep it ($KT_CHECK_JSON): under emulation each check takes some 20 s, and it
# says the same for every test there (a test forcing features off runs its own).
check_json() {
	if [ -n "${KT_CHECK_JSON:-}" ] && [ -z "${SLIDEOPS_KERNEL_LACKS:-}" ]; then
		cat "$KT_CHECK_JSON"
	else
		"$SLIDEOPS" check --json 2>/dev/null
	fi
}
# can_answer Q: skips the test unless check says this server answers question Q.
can_answer() {
	local doc
	doc=$(check_json)
	jq -e --arg q "$1" '.questions[$q] == true' <<<"$doc" >/dev/null ||
		skip "this server cannot answer $1: $(jq -r --arg q "$1" '.question_details[$q] // .' <<<"$doc")"
}
# in_guest: true inside the kernel matrix's guests (tests/kernels/guest.sh), whose CPUs are
# emulated, many times slower than this machine's: a test sizes its workloads to them.
in_guest() { [ -n "${KT_REPO:-}" ]; }

# workload NAME [AS]: tests/workloads/NAME.c as the Makefile built it (`make` builds
# build/tests/workloads/, beside the binary; $WORKLOADS elsewhere), copied to $WORK/AS
# (default NAME): the process's name and executable are the test's own, as its
# assertions expect.
WORKLOADS=${WORKLOADS:-$(dirname "$SLIDEOPS")/tests/workloads}
workload() {
	local name=$1 as=${2:-$1}
	[ -f "$WORKLOADS/$name" ] ||
		fail "no workload $WORKLOADS/$name: make builds it from tests/workloads/$name.c"
	cp "$WORKLOADS/$name" "$WORK/$as"
}

# make_cgroup PATH: a real cgroup on the cgroup2 mount, removed at exit (its
# processes are killed first).
make_cgroup() {
	[ -n "$CGROUP2" ] || skip "no cgroup2 mount"
	local dir="$CGROUP2/$1"
	mkdir -p "$dir"
	defer "cg_kill '$dir'; rmdir '$dir' 2>/dev/null; rmdir \"\$(dirname '$dir')\" 2>/dev/null"
	echo "$dir"
}
# cmd | has [GREP-OPTIONS] PATTERN: grep -q that reads all of its input first. Under
# pipefail, grep -q's early exit makes a writer still writing die of SIGPIPE, and the
# whole pipe fail although the pattern matched.
has() { local input; input=$(cat); grep -q "$@" <<<"$input"; }
# A capture's parts for a workload started in unit slideops-test-NAME.service (a test may
# define its own): label NAME, its group's label; group NAME, its group in $doc (the
# capture's JSON); stacks NAME, its folded stacks in $WORK/folded, FRAME;...;LEAF VALUE
# (group and comm taken off); share_of PATTERN < stacks, the share of the value of the
# lines matching the extended regex.
label() { echo "Unit slideops-test-$1.service"; }
group() { jq -c --arg l "$(label "$1")" '.groups[] | select(.label == $l)' "$doc"; }
stacks() { grep -F "$(label "$1");" "$WORK/folded" | cut -d';' -f3- || true; }
share_of() {
	awk -v re="$1" '{ v = $NF; all += v; if ($0 ~ re) hit += v }
		END { if (all == 0) print 0; else printf "%.3f\n", hit / all }'
}
# start_pg: a PostgreSQL 15 of the test's own (tests/tools/pg-server.sh) in $PG, stopped
# at exit, holding a database "workspace" (its URL: $(cat "$PG/url")/workspace), with
# PGPASSFILE set. Returns 77 where PostgreSQL is not installed: the caller says what then.
start_pg() {
	local rc=0
	PG_TOOL="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)/pg-server.sh"
	# Not under $WORK: the server's user (nobody) must reach it, and a socket path is short.
	PG=$(mktemp -d /tmp/slideops-pg.XXXXXX)
	"$PG_TOOL" start "$PG" || rc=$?
	defer "'$PG_TOOL' stop '$PG'"
	[ "$rc" = 77 ] && return 77
	[ "$rc" = 0 ] || fail "PostgreSQL did not start"
	"$PG_TOOL" createdb "$PG" workspace || fail "cannot create the workspace database"
	export PGPASSFILE="$PG/pgpass"
}
# cg_kill DIR: kills every process of the cgroup and waits (up to 10 s) until it is empty,
# so that the next test's cgroup of the same name starts empty: on a loaded machine a
# process of 64 threads was seen still exiting 0.2 s after its SIGKILL.
cg_kill() {
	local p i
	[ -w "$1/cgroup.kill" ] && echo 1 > "$1/cgroup.kill" 2>/dev/null
	for p in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
	for i in $(seq 200); do
		[ -z "$(cat "$1/cgroup.procs" 2>/dev/null)" ] && return 0
		sleep 0.05
	done
}

# mount_hung_fs FILE [every]: tests/tools/hung_fs.c serving FILE's copy at $WORK/mnt, a
# FUSE file system whose requests wait while the file $FLAG exists (set FLAG first). At
# exit the server answers again, the daemon goes and the mount with it: every waiting
# request ends. Skips where FUSE is not to be had.
mount_hung_fs() {
	local served=$WORK/mnt/${1##*/} pid
	pkg-config --exists fuse3 || skip "libfuse3-dev is not installed (make deps installs it)"
	[ -c /dev/fuse ] || skip "no /dev/fuse: FUSE is not available here"
	# shellcheck disable=SC2046 # pkg-config's flags are words
	gcc -O1 -o "$WORK/hung_fs" "$(dirname "${BASH_SOURCE[0]}")/../tools/hung_fs.c" \
		$(pkg-config --cflags --libs fuse3)
	mkdir -p "$WORK/mnt"
	"$WORK/hung_fs" "$1" "$WORK/mnt" "$FLAG" ${2:+"$2"} 2> "$WORK/hung_fs.err" &
	pid=$!
	defer "rm -f '$FLAG'; kill -9 $pid 2>/dev/null; umount -l '$WORK/mnt' 2>/dev/null"
	for _ in $(seq 200); do
		[ -f "$served" ] && return 0
		sleep 0.05
	done
	fail "the FUSE file system did not mount: $(cat "$WORK/hung_fs.err")"
}

# start_in_cgroup DIR CMD...: starts CMD with its pid already in DIR; prints the pid.
start_in_cgroup() {
	local dir=$1; shift
	bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@" >/dev/null 2>&1 &
	local pid=$!
	disown "$pid" 2>/dev/null || true
	defer "kill -9 $pid 2>/dev/null"
	echo "$pid"
}

# json EXPR < doc: a Python expression over the document d (jq works too: make deps has it).
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

# The BPF programs process $1 holds, from its descriptors' fdinfo (a descriptor it closes
# while they are read is not an error: its programs' stay open).
held_programs() {
	{ cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '$1 == "prog_id:" { print $2 }' |
		sort -u
}
# Waits until the cpu capture $1 samples: it holds a BPF link for exec, for exit, and for
# each CPU's perf event.
wait_attached() {
	local ncpus
	ncpus=$(getconf _NPROCESSORS_ONLN)
	for _ in $(seq 200); do
		[ "$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'bpf_link')" -ge $((ncpus + 2)) ] &&
			return 0
		sleep 0.05
	done
	return 1
}
# Fails unless every BPF program of the list $2 (held_programs of a profiler) is gone:
# nothing of the profiler stays loaded or attached once it has ended ($1 says how). The
# kernel may free a program a moment after its last holder ends (work it defers): each
# is given up to 10 s, so a loaded machine is not a failure and a program kept still is.
assert_unloaded() {
	local p
	for p in $2; do
		for _ in $(seq 100); do
			bpftool prog show id "$p" >/dev/null 2>&1 || continue 2
			sleep 0.1
		done
		fail "BPF program $p is still loaded after $1"
	done
	return 0
}
