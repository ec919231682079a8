#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What Java and JavaScript frames cost, in one run (issue 29 item 6): every CPU busy with
# one kind of workload at a time, WORKERS processes of it each counting the work it
# completes in SECONDS, a chain of three functions down to a hot loop in each:
#
#   native   C built with frame pointers (outer, middle, inner)
#   java     OpenJDK 17 (com.acme.Units: outer, middle, computeTotals; C2 compiles them)
#   node     Node 20 (outer, middle, computeTotals; TurboFan compiles them, inlining off so
#            that each stays a frame to name)
#
# under
#
#   none      no profiler
#   slideops  slideops capture cpu at 99 Hz (kernel and user stacks, Java and JavaScript
#             frames named in the kernel's walk)
#   perf      perf record -F 99 -a -g, the runtimes asked for what perf needs to name their
#             code: the JVM with -XX:+PreserveFramePointer and a perf map at its exit
#             (-XX:+DumpPerfMapAtExit), node with --perf-basic-prof (java and node only)
#
# interleaved, ROUNDS rounds (the order rotates each round). Reports the work lost against
# no profiler, each profiler's CPU time and peak RSS, slideops' BPF time per sample with
# each workload (kernel.bpf_stats_enabled, on only while this runs; target: a Java or a
# JavaScript sample at most 2x a native one), and the share of the workload's samples
# whose stack holds its hot function by name (slideops: its folded export; perf: perf
# script; target >= 95%).
#
#   sudo bench/runtimes/run.sh                         3 rounds of 20 s
#   ROUNDS=1 SECONDS_RUN=10 sudo bench/runtimes/run.sh
#   RESULTS=bench/runtimes/results.tsv sudo bench/runtimes/run.sh   also appends the medians
#
# Not a test: the figures move with whatever else the machine runs (the load average at
# the start and end is printed, and kept with the results).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/bench/lib.sh"
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-20}
RESULTS=${RESULTS:-}
NCPUS=$(getconf _NPROCESSORS_ONLN)
WORKERS=${WORKERS:-$NCPUS}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
NODE=${NODE:-/usr/bin/node}
HZ=99

[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
for tool in gcc perf bpftool jq /usr/bin/time "$JAVA" "$NODE"; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }
modes=(native:none native:slideops java:none java:slideops java:perf node:none node:slideops
	node:perf)

bench_init runtimes

# The three workloads: units of work until SECONDS have passed, then how many.
gcc -O2 -fno-omit-frame-pointer -o "$dir/native" "$top/bench/native_units.c"
mkdir -p "$dir/java/com/acme"
cat > "$dir/java/com/acme/Units.java" <<'JAVA'
package com.acme;

public class Units {
	static long computeTotals(long x)
	{
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	static long middle(long x) { return computeTotals(x) ^ 3; }

	static long outer(long x) { return middle(x) + 1; }

	public static void main(String[] args)
	{
		long until = System.nanoTime() + (long)(Double.parseDouble(args[0]) * 1e9), x = 1, n = 0;

		do {
			for (int i = 0; i < 100; i++, n++)
				x = outer(x);
		} while (System.nanoTime() < until);
		System.out.println(n + (x == 42 ? 1 : 0));
	}
}
JAVA
(cd "$dir/java" && "$(dirname "$(readlink -f "$JAVA")")/javac" -d . com/acme/Units.java)
cat > "$dir/work.js" <<'JS'
'use strict';
function computeTotals(x) {
	for (let i = 0; i < 20000; i++)
		x = (x * 1103515245 + 12345) % 2147483648;
	return x;
}
function middle(x) { return computeTotals(x) ^ 3; }
function outer(x) { return middle(x) + 1; }
const until = Date.now() + Number(process.argv[2]) * 1000;
let x = 1, n = 0;
do {
	for (let i = 0; i < 100; i++, n++)
		x = outer(x);
} while (Date.now() < until);
console.log(n + (x === 42 ? 1 : 0));
JS
JAVA_FLAGS=(-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,com.acme.Units::*)
NODE_FLAGS=(--no-turbo-inlining)
# The tables of libc, the JVM and node are cached, as on a server profiled before.
"$SLIDEOPS" capture cpu -d 1 >/dev/null 2>&1 || true

# work KIND MODE: WORKERS processes of a workload; "units cpu_s": the sum of their units
# and of the CPU time they took (user + system).
work() {
	local kind=$1 mode=$2 i pids=() extra=()
	cd "$dir" # (node's --perf-basic-prof also writes an isolate's log where it runs)
	for i in $(seq "$WORKERS"); do
		case $kind in
		native) set -- "$dir/native" "$SECONDS_RUN" ;;
		java)
			[ "$mode" = perf ] && extra=(-XX:+PreserveFramePointer
				-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)
			set -- "$JAVA" "${JAVA_FLAGS[@]}" ${extra[@]+"${extra[@]}"} -cp "$dir/java" \
				com.acme.Units "$SECONDS_RUN" ;;
		node)
			[ "$mode" = perf ] && extra=(--perf-basic-prof)
			set -- "$NODE" "${NODE_FLAGS[@]}" ${extra[@]+"${extra[@]}"} "$dir/work.js" \
				"$SECONDS_RUN" ;;
		esac
		/usr/bin/time -f "%U %S" -o "$dir/wcpu.$i" "$@" > "$dir/units.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	echo "$(cat "$dir/units".* | awk '{ s += $1 } END { print s }')" \
		"$(cat "$dir/wcpu".* | awk '{ s += $1 + $2 } END { print s }')"
	rm -f "$dir/units".* "$dir/wcpu".*
}

# named KIND MODE: the share (%) of the workload's samples whose stack holds
# computeTotals by name, from the profile slideops saved or perf's data.
named() {
	local comm id
	case $1 in native) comm=native ;; java) comm=java ;; node) comm=node ;; esac
	if [ "$2" = slideops ]; then
		id=$("$SLIDEOPS" --json profiles | jq -r '.profiles[0].id')
		"$SLIDEOPS" show "$id" --export folded "$dir/folded" >/dev/null
		awk -v comm="$comm" -F';' '$2 == comm { split($NF, v, " "); n = v[length(v)];
			all += n; if ($0 ~ /(^|;)(com\.acme\.Units\.)?computeTotals( |;)/) hit += n }
			END { printf "%.1f\n", all ? 100 * hit / all : 0 }' "$dir/folded"
	else
		{ perf script -i "$dir/perf.data" 2>/dev/null || true; } | awk -v comm="$comm" '
			/^[^ \t]/ { cur = $1 == comm; if (cur) n++; next }
			cur && /computeTotals/ && !seen[n]++ { hit++ }
			END { printf "%.1f\n", n ? 100 * hit / n : 0 }'
	fi
}

# run KIND:MODE ROUND: appends "round kind mode units work_cpu_s cpu_s rss_kb bpf_ns
# bpf_runs named%" (cpu_s, rss_kb: the profiler's).
run() {
	local kind=${1%%:*} mode=${1#*:} round=$2 units pct=-
	rm -f "$dir/perf.data"
	case $mode in
	none) units=$(work "$kind" none) ;;
	slideops)
		bench_start links "$SLIDEOPS" capture cpu -d 86400 -F "$HZ"
		units=$(work "$kind" slideops) ;;
	perf)
		bench_start perf perf record -F "$HZ" -a -g -o "$dir/perf.data"
		units=$(work "$kind" perf) ;;
	esac
	bench_stop
	[ "$mode" = none ] || pct=$(named "$kind" "$mode")
	rm -f /tmp/perf-*.map
	echo "$round $kind $mode $units $bench_cpu $bench_rss $bench_bpf $pct" >> "$dir/results"
	printf '  %-7s %-9s %12s units' "$kind" "$mode" "${units%% *}"
	[ "$mode" = none ] || printf '   cpu %6.2f s   rss %7s kB   bpf %s   named %s%%' \
		"$bench_cpu" "$bench_rss" "$bench_bpf" "$pct"
	echo
}

echo "Java and JavaScript frames' cost: $WORKERS processes of each workload, $SECONDS_RUN s" \
	"a run, $ROUNDS rounds, $HZ Hz"
load_start=$(cut -d' ' -f1 /proc/loadavg)
bench_rounds run "${modes[@]}"
load_end=$(cut -d' ' -f1 /proc/loadavg)
echo "load average (1 min) at the start $load_start, at the end $load_end, on $NCPUS CPUs"
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)

echo
awk -v secs="$SECONDS_RUN" -v results="$RESULTS" -v rev="$rev" -v rounds="$ROUNDS" \
	-v load="$load_start-$load_end" -v ncpus="$NCPUS" -v today="$(date -u +%F)" '
	function median(a, key,    i, j, k, n, t, v) {
		n = 0
		for (k in a) { split(k, p, SUBSEP); if (p[2] == key) v[++n] = a[k] }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{ m = $2 ":" $3; u[$1, m] = $4; n[m]++; units[m] += $4; cpu[m] += $6
	  if ($7 > rss[m]) rss[m] = $7; ns[m] += $8; runs[m] += $9; if ($10 != "-") nm[$1, m] = $10 }
	END {
		for (k in u) {
			split(k, p, SUBSEP); split(p[2], km, ":"); b = km[1] ":none"
			if (km[2] != "none" && u[p[1], b]) loss[p[1], p[2]] = 1 - u[k] / u[p[1], b]
		}
		printf "%-16s %10s %10s %10s %12s %9s %8s\n", "workload:mode", "units/s", "work lost",
			"cpu s/run", "peak rss kB", "bpf ns", "named"
		split("native:none native:slideops java:none java:slideops java:perf node:none node:slideops node:perf",
			order, " ")
		for (k = 1; k <= 8; k++) {
			m = order[k]
			if (!n[m]) continue
			L[m] = m ~ /:none$/ ? 0 : median(loss, m); C[m] = cpu[m] / n[m]; R[m] = rss[m]
			per[m] = runs[m] ? ns[m] / runs[m] : 0; N[m] = m ~ /:none$/ ? -1 : median(nm, m)
			printf "%-16s %10.0f %9.2f%% %10.3f %12d %9s %8s\n", m, units[m] / n[m] / secs,
				100 * L[m], C[m], R[m], runs[m] ? sprintf("%.0f", per[m]) : "-",
				N[m] < 0 ? "-" : sprintf("%.1f%%", N[m])
		}
		print ""
		if (per["native:slideops"] > 0)
			printf "BPF time per sample, against native: Java %.2fx, JavaScript %.2fx (target <= 2x)\n",
				per["java:slideops"] / per["native:slideops"],
				per["node:slideops"] / per["native:slideops"]
		for (k = 1; k <= 2; k++) {
			w = k == 1 ? "java" : "node"
			if (C[w ":perf"] > 0 && R[w ":perf"] > 0)
				printf "%s: slideops / perf record -a -g with perf maps: cpu %.2fx   peak rss %.2fx\n",
					w, C[w ":slideops"] / C[w ":perf"], R[w ":slideops"] / R[w ":perf"]
		}
		# date commit seconds rounds load, then per runtime: BPF ns a sample (native,
		# java, node), named share (slideops, perf), cpu ratio to perf, work lost.
		if (results != "")
			printf "%s\t%s\t%s\t%s\t%s/%s\t%.0f\t%.0f\t%.0f\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.2f\t%.2f\t%.2f%%\t%.2f%%\n",
				today, rev, secs, rounds, load, ncpus, per["native:slideops"],
				per["java:slideops"], per["node:slideops"], N["java:slideops"],
				N["java:perf"], N["node:slideops"], N["node:perf"],
				C["java:perf"] ? C["java:slideops"] / C["java:perf"] : 0,
				C["node:perf"] ? C["node:slideops"] / C["node:perf"] : 0,
				100 * L["java:slideops"], 100 * L["node:slideops"] >> results
	}' "$dir/results"
