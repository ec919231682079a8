# SPDX-License-Identifier: MIT
# Shared by the questions' benchmarks (bench/QUESTION/run.sh): BPF statistics on while a
# benchmark runs, the programs a profiler holds with their run time, and the loop every
# profiler benchmark runs: rounds of modes, interleaved, each a profiler started in the
# background around a workload and its cost read back.

# bench_catch_failures: from here on, the last command that failed outside a test (if,
# ||, &&), in functions too, is kept: under set -e, the one that ends the benchmark.
# bench_report_failure STATUS, in the exit trap, says it: a benchmark that fails says
# what failed (the command, its file and line, its status), never just exit 1.
# bench_python: the CPython the Python benchmarks run, PYTHON or else pyenv's 3.12 (it has
# the perf trampoline); nothing when neither is there.
bench_python() {
	if [ -n "${PYTHON:-}" ]; then
		echo "$PYTHON"
	else
		ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12.*/bin/python3.12 2>/dev/null |
			head -1 || true
	fi
}

bench_catch_failures() {
	set -E
	bench_failed=""
	trap 'bench_failed="$BASH_COMMAND (${BASH_SOURCE[0]##*/}:$LINENO, exit $?)"' ERR
}
bench_report_failure() {
	[ "$1" = 0 ] || echo "bench: failed: ${bench_failed:-exit $1}" >&2
}

# bench_init NAME: a work directory, root, kernel.bpf_stats_enabled on until exit; a
# failure says what failed (bench_catch_failures).
bench_init() {
	[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
	dir=$(mktemp -d "/tmp/slideops-bench-$1.XXXXXX")
	stats_before=$(sysctl -n kernel.bpf_stats_enabled)
	bench_catch_failures
	# A profiler still running (the benchmark failed) is stopped first.
	trap 'bench_rc=$?
		bench_report_failure "$bench_rc"
		[ -z "${bench_child:-}" ] || { kill -INT "$bench_child"; wait "$bench_pid"; } 2>/dev/null
		[ "$bench_rc" = 0 ] || [ ! -s "$dir/profiler.out" ] ||
			echo "bench: the last profiler said: $(tail -3 "$dir/profiler.out")" >&2
		sysctl -q -w kernel.bpf_stats_enabled="$stats_before" || true; rm -rf "$dir"' EXIT
	sysctl -q -w kernel.bpf_stats_enabled=1
	export SLIDEOPS_DATA="$dir/data"
}

# prog_stats PID: "name type run_time_ns run_cnt" of each BPF program PID holds.
prog_stats() {
	local ids
	# A descriptor the profiler closes between the glob and cat is no failure (cat would
	# fail the pipe, and under set -e the benchmark).
	ids=$( { cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } |
		awk '$1 == "prog_id:" { print $2 }' | sort -u | paste -sd, -)
	[ -n "$ids" ] || return 0
	bpftool prog show -j | jq -r --argjson ids "[$ids]" '
		.[] | select(.id as $i | $ids | index($i))
		| "\(.name) \(.type) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# wait_prog PID NAME: until PID holds a program NAME (then a moment to settle); for a
# profiler started otherwise than by bench_start.
wait_prog() {
	for _ in $(seq 600); do
		prog_stats "$1" | grep "^$2 " >/dev/null && sleep 0.3 && return 0
		sleep 0.05
	done
	echo "bench: the profiler did not attach $2" >&2
	return 1
}

# ---- The profiler-run loop of the benchmarks: ROUNDS rounds, every mode once a round,
# the order rotating, each run a profiler started, the workload run under it, the
# profiler's cost read back. A benchmark's run function looks like
#
#	run() {	# MODE ROUND
#		case $1 in
#		slideops) bench_start links "$SLIDEOPS" capture cpu -d 86400 -F 99 ;;
#		perf) bench_start perf perf record -a -g -F 99 -o "$dir/perf.data" ;;
#		esac	# (mode none: no profiler)
#		units=$(workload)
#		bench_stop
#		echo "$2 $1 $units $bench_cpu $bench_rss $bench_bpf" >> "$dir/results"
#	}
#	bench_rounds run none slideops perf

# bench_rounds FUNCTION MODE...: FUNCTION MODE ROUND for each of ROUNDS rounds and each
# mode, the first mode of round r being the r-th (so none, the reference, moves too).
bench_rounds() {
	local fn=$1 r i; shift
	local modes=("$@")
	for r in $(seq "$ROUNDS"); do
		echo "round $r"
		for i in "${!modes[@]}"; do
			"$fn" "${modes[$(( (i + r - 1) % ${#modes[@]} ))]}" "$r"
		done
	done
}

# bench_start READY CMD...: CMD, a profiler, in the background under /usr/bin/time -v
# (its CPU time and peak RSS, the whole command), its standard output and error in
# $dir/profiler.out; returns once it samples, as READY tells:
#   links           it holds a BPF link per CPU and two more (slideops capture)
#   perf            it holds a perf event (perf record, perf lock record)
#   prog:NAME       it holds the BPF program NAME
#   says:TEXT       its output says TEXT (bpftrace: Attaching)
# Sets bench_pid (time's) and bench_child (the profiler's).
bench_start() {
	local ready=$1 i ncpus
	shift
	rm -f "$dir/time.txt" "$dir/stats.txt"
	/usr/bin/time -v -o "$dir/time.txt" "$@" >"$dir/profiler.out" 2>&1 &
	bench_pid=$! bench_child=""
	for _ in $(seq 200); do
		# (|| true: no child yet is no error under set -e and pipefail)
		bench_child=$(pgrep -P "$bench_pid" | head -1 || true)
		[ -n "$bench_child" ] && break
		sleep 0.02
	done
	[ -n "$bench_child" ] || { echo "bench: $1 did not start" >&2; return 1; }
	ncpus=$(getconf _NPROCESSORS_ONLN)
	for i in $(seq 600); do
		case $ready in
		links) [ "$(ls -l /proc/"$bench_child"/fd 2>/dev/null | grep -c bpf_link)" -ge \
			$((ncpus + 2)) ] && return 0 ;;
		# (grep reads to the end: an early exit would fail the pipe under pipefail)
		perf) ls -l /proc/"$bench_child"/fd 2>/dev/null | grep perf_event >/dev/null &&
			sleep 0.2 && return 0 ;;
		prog:*) prog_stats "$bench_child" | grep "^${ready#prog:} " >/dev/null &&
			sleep 0.3 && return 0 ;;
		says:*) grep -q "${ready#says:}" "$dir/profiler.out" 2>/dev/null && sleep 0.2 &&
			return 0 ;;
		esac
		sleep 0.05
	done
	echo "bench: $1 did not start sampling: $(tail -2 "$dir/profiler.out")" >&2
	return 1
}

# bench_stop: the programs the profiler holds into $dir/stats.txt (prog_stats), then it
# is interrupted and waited for. Sets bench_bpf ("ns runs" of its perf_event programs),
# bench_cpu (user + system seconds) and bench_rss (peak kB). Without a profiler started
# (mode none): "0 0", 0 and 0.
bench_stop() {
	bench_bpf="0 0" bench_cpu=0 bench_rss=0
	[ -n "${bench_pid:-}" ] || return 0
	prog_stats "$bench_child" > "$dir/stats.txt"
	bench_bpf=$(awk '$2 == "perf_event" { ns += $3; n += $4 } END { print ns + 0, n + 0 }' \
		"$dir/stats.txt")
	kill -INT "$bench_child" 2>/dev/null || true
	wait "$bench_pid" 2>/dev/null || true
	bench_cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' \
		"$dir/time.txt")
	bench_rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt")
	bench_pid="" bench_child=""
}
