#!/usr/bin/env bash
# Whole stacks of blocked threads, from `slideops capture threads` (the task iterator) and
# from the end of `slideops capture wall` (its sweep of threads still waiting), for code
# without frame pointers and for Python. Real programs in cgroups named as systemd units':
#   nofp      built -O2 -fomit-frame-pointer: main blocked in read() called from
#             wait_for_input (woken once a second), a thread blocked in pthread_cond_wait
#             from idle_worker
#   py311, debian311 (and every other pyenv CPython 3.8-3.13 installed)
#             a thread blocked in time.sleep inside wait_here, called from outer
# Each blocked thread's set must carry its whole chain: wait_for_input then main, idle_worker
# then start_thread, with no [truncated] frame; the Python thread's set carries time.sleep's
# C function (time_sleep, where the binary names it), then wait_here, then outer. Frame
# pointers alone gave one or two frames for nofp and none of Python.
source "$(dirname "$0")/lib.sh"
[ -n "${KEEP_WORK:-}" ] && defer "cp -r $WORK /tmp/threads-stacks-kept"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer threads

PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions

workload wait_for_input_nofp nofp

cat > "$WORK/blocked.py" <<'PY'
import threading
import time


def wait_here():
    while True:
        time.sleep(1000)


def outer():
    wait_here()


threading.Thread(target=outer, daemon=True).start()
while True:
    time.sleep(1000)
PY

# start NAME NTHREADS CMD...: CMD in the cgroup of unit slideops-test-NAME.service, a
# process that blocks with NTHREADS threads (its pid and NTHREADS kept in $started).
started=()
start() {
	local name=$1 n=$2; shift 2
	local cg
	cg=$(make_cgroup "system.slice/slideops-test-$name.service")
	started+=("$(start_in_cgroup "$cg" "$@"):$n")
}
# blocked PID N: the process has N threads and every one of them is asleep.
blocked() {
	local t st n=0
	for t in /proc/"$1"/task/*; do
		read -r _ _ st _ < "$t/stat" 2>/dev/null && [ "$st" = S ] || return 1
		n=$((n + 1))
	done
	[ "$n" = "$2" ]
}

start nofp 3 "$WORK/nofp"
pythons=()
for v in 8 9 10 11 12 13; do
	py=$(ls -d "$PYENV"/3."$v".*/bin/python3."$v" 2>/dev/null | head -1 || true)
	if [ -z "$py" ]; then
		echo "skipped: CPython 3.$v is not installed under $PYENV"
		continue
	fi
	start "py3$v" 2 "$py" "$WORK/blocked.py"
	pythons+=("py3$v")
done
if [ -x /usr/bin/python3.11 ]; then
	start debian311 2 /usr/bin/python3.11 "$WORK/blocked.py"
	pythons+=(debian311)
else
	echo "skipped: Debian's /usr/bin/python3.11 is not installed"
fi
# Until every one is where it blocks, every thread made: under emulation on a busy host
# seven interpreters took a minute and a half to start. A bound on a hung start only.
for p in "${started[@]}"; do
	for _ in $(seq 3000); do
		blocked "${p%:*}" "${p#*:}" && continue 2
		sleep 0.1
	done
	fail "process ${p%:*} did not block with its ${p#*:} threads: $(cat /proc/"${p%:*}"/cmdline | tr '\0' ' ')"
done

# A kernel that cannot pass a task to a BPF function (before 6.8) walks Python only for
# threads on a CPU, and says so: a blocked Python thread keeps its interpreter's C frames.
python_blocked=yes
details=$(check_json | jq -r '.question_details.threads // ""')
if [[ $details == *"Python frames only for threads on a CPU"* ]]; then
	python_blocked=
	echo "this kernel: $details: the blocked Python threads' chains are not asked for"
fi

# set_stack DOC GROUP FRAME: the stack (leaf first, ";"-joined) of the group's set
# holding FRAME.
set_stack() {
	jq -r --arg g "$(label "$2")" --arg f "$3" '[.thread_sets[] | select(.group == $g and
		(.stack | index($f)))][0].stack // [] | join(";")' "$1"
}
# check DOC WHAT: every blocked thread's whole chain in DOC.
check() {
	local doc=$1 what=$2 s name
	s=$(set_stack "$doc" nofp wait_for_input)
	[[ ";$s;" == *";wait_for_input;main;"* ]] ||
		fail "$what: main's set does not go from wait_for_input to main: $s"
	[[ ";$s;" != *"[truncated]"* ]] || fail "$what: main's stack is cut short: $s"
	[[ ";$s" == *";read"* || ";$s" == *";__libc_read"* ]] ||
		fail "$what: main's stack does not start in read: $s"
	s=$(set_stack "$doc" nofp idle_worker)
	[[ ";$s;" == *";pthread_cond_wait"*";idle_worker;"* ]] ||
		fail "$what: the worker's set does not go from pthread_cond_wait to idle_worker: $s"
	[[ ";$s;" == *";idle_worker;start_thread;"* ]] ||
		fail "$what: the worker's stack does not reach start_thread: $s"
	[[ ";$s;" != *"[truncated]"* ]] || fail "$what: the worker's stack is cut short: $s"
	[ -n "$python_blocked" ] || return 0
	for name in "${pythons[@]}"; do
		s=$(set_stack "$doc" "$name" wait_here)
		# The interpreter's own C frames may sit between them, as in CPU profiles;
		# time.sleep's (time_sleep) is above wait_here, where the binary names it.
		[[ ";$s;" == *";wait_here;"* ]] && [[ ";${s#*;wait_here;};" == *";outer;"* ]] ||
			fail "$what: $name's blocked thread has no chain wait_here, outer: $s"
		[[ $name == debian311 || ";${s%%;wait_here;*};" == *";time_sleep;"* ]] ||
			fail "$what: $name's wait_here does not call time.sleep: $s"
	done
}

"$SLIDEOPS" capture threads --json > "$WORK/threads.json" 2> "$WORK/threads.err" ||
	fail "capture threads failed: $(cat "$WORK/threads.err")"
check "$WORK/threads.json" "threads"

# wall: main wakes once a second, and the end of the capture finds it waiting again: its
# stacks are taken when it blocks, and by the sweep where it still waits, with the tables
# loaded for the processes the capture met.
"$SLIDEOPS" capture wall -d 2 --json > "$WORK/wall.json" 2> "$WORK/wall.err" ||
	fail "capture wall failed: $(cat "$WORK/wall.err")"
"$SLIDEOPS" show "$(jq -r .id "$WORK/wall.json")" --export folded "$WORK/wall.folded" >/dev/null ||
	fail "no folded export of the wall capture"
grep -q "^$(label nofp);nofp;.*main;wait_for_input;" "$WORK/wall.folded" ||
	fail "wall: no stack of nofp from main to wait_for_input: $(grep nofp "$WORK/wall.folded" |
		head -3)"

# wall on a starved CPU (as in the kernel matrix's emulated guests, whose vCPUs the host
# takes away): the capture shares its CPU with six busy loops that outrank it, so the
# tables of the processes met in the window are built after it ends. The sweep waits for
# them (within its bound, times the factor the guests set), and still finds main's whole
# chain; the window stays 2 s. Not inside a guest: under emulation the loops would take
# the test's time, and the guest's own threads_stacks run is this case.
if ! in_guest; then
	hogs=()
	for _ in 1 2 3 4 5 6; do
		taskset -c 0 nice -n -20 sh -c 'while :; do :; done' &
		hogs+=($!)
		defer "kill ${hogs[-1]} 2>/dev/null"
	done
	# Its own data directory: the tables the captures above built are not in its cache.
	mkdir "$WORK/starved"
	SLIDEOPS_DATA=$WORK/starved SLIDEOPS_READ_TIME_FACTOR=32 SLIDEOPS_VERIFY_SECONDS=120 \
		SLIDEOPS_DEBUG=1 taskset -c 0 "$SLIDEOPS" capture wall -d 2 --json \
		> "$WORK/starved.json" 2> "$WORK/starved.err" ||
		fail "capture wall on a starved CPU failed: $(tail -3 "$WORK/starved.err")"
	kill "${hogs[@]}" 2>/dev/null
	grep -q "refused the full stack walker" "$WORK/starved.err" &&
		fail "wall on a starved CPU: $(grep "refused" "$WORK/starved.err")"
	SLIDEOPS_DATA=$WORK/starved "$SLIDEOPS" show "$(jq -r .id "$WORK/starved.json")" \
		--export folded "$WORK/starved.folded" >/dev/null || fail "no folded export of the starved wall capture"
	grep -q "^$(label nofp);nofp;.*main;wait_for_input;" "$WORK/starved.folded" ||
		fail "wall on a starved CPU: no stack of nofp from main to wait_for_input ($(grep "sweep" \
			"$WORK/starved.err")): $(grep nofp "$WORK/starved.folded" | head -3)"
	# The wait is not part of the window: main (one thread) waited at most its 2 s.
	waited=$(grep "^$(label nofp);nofp;.*main;wait_for_input;" "$WORK/starved.folded" |
		awk '{ s += $NF } END { printf "%.0f", s }')
	[ "$waited" -le 2100000000 ] ||
		fail "wall on a starved CPU: main waited $waited ns in a 2 s window"
	grep "sweep" "$WORK/starved.err" || true
fi
echo "ok"
