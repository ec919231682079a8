# SPDX-License-Identifier: MIT
# Shared by the questions' benchmarks (bench/QUESTION/run.sh): BPF statistics on while a
# benchmark runs, the programs a profiler holds with their run time, and a profiler run
# in the background around a workload.

# bench_init NAME: a work directory, root, kernel.bpf_stats_enabled on until exit.
bench_init() {
	[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
	dir=$(mktemp -d "/tmp/slideops-bench-$1.XXXXXX")
	stats_before=$(sysctl -n kernel.bpf_stats_enabled)
	trap 'sysctl -q -w kernel.bpf_stats_enabled="$stats_before" || true; rm -rf "$dir"' EXIT
	sysctl -q -w kernel.bpf_stats_enabled=1
	export SLIDEOPS_DATA="$dir/data"
}

# prog_stats PID: "name type run_time_ns run_cnt" of each BPF program PID holds.
prog_stats() {
	local ids
	ids=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u |
		paste -sd, -)
	[ -n "$ids" ] || return 0
	bpftool prog show -j | jq -r --argjson ids "[$ids]" '
		.[] | select(.id as $i | $ids | index($i))
		| "\(.name) \(.type) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# wait_prog PID NAME: until PID holds a program NAME (then a moment to settle).
wait_prog() {
	for _ in $(seq 600); do
		prog_stats "$1" | grep -q "^$2 " && sleep 0.3 && return 0
		sleep 0.05
	done
	echo "bench: the profiler did not attach $2" >&2
	return 1
}
