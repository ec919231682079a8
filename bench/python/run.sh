#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What Python frames cost, in one run: every CPU busy with either native processes (a
# chain of three C functions with frame pointers) or a busy Python service (WORKERS
# processes of tests/workloads/service.py, the request loop the tests profile, under
# pyenv's CPython 3.12), each counting the work it completes in SECONDS, under
#
#   none      no profiler
#   slideops  slideops capture cpu at 99 Hz (native stacks, and Python frames for CPython)
#   perf      perf record -F 99 -a -g, the service run with `python3.12 -X perf` (CPython's
#             perf trampoline: /tmp/perf-PID.map names its Python functions), the peer a
#             server has for Python without py-spy (Python service only)
#   perf-dwarf the same with --call-graph dwarf: a libpython built without frame pointers
#             (pyenv's, Debian's) hides the trampoline's frames from -g's frame-pointer walk,
#             so only this one names the Python functions; its CPU time includes the
#             `perf script` that unwinds the stacks it copied
#
# interleaved, ROUNDS rounds (the order rotates each round). Reports the work lost against
# no profiler (requests/s and units/s, target: <= 1%), the profiler's own CPU time and peak
# RSS against perf's, the share of each perf's samples of the service that name a Python
# function, and slideops' BPF time per sample (kernel.bpf_stats_enabled, on only
# while this runs) with Python and with native workloads (target: a Python sample <= 2x a
# native one). perf's work lost includes the trampoline's own cost, which is part of
# profiling Python with perf.
#
#   sudo bench/python/run.sh                          3 rounds of 30 s (capture's default -d)
#   ROUNDS=1 SECONDS_RUN=10 sudo bench/python/run.sh
#   PYTHON=/usr/bin/python3.11 sudo bench/python/run.sh   (no perf: it has no -X perf)
#   RESULTS=bench/python/results.tsv sudo bench/python/run.sh   also appends the medians
#
# Not a test: the figures move with whatever else the machine runs (the load average at
# the start and end is printed, and kept with the results).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/bench/lib.sh"
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-30}
RESULTS=${RESULTS:-}
NCPUS=$(getconf _NPROCESSORS_ONLN)
WORKERS=${WORKERS:-$NCPUS}
PYTHON=$(bench_python)
SERVICE=$top/tests/workloads/service.py
HZ=99

[ "$(id -u)" = 0 ] || { echo "bench: run as root (the profilers need it)" >&2; exit 1; }
[ -n "$PYTHON" ] || { echo "bench: pyenv's CPython 3.12 is missing (or set PYTHON)" >&2; exit 1; }
for tool in gcc perf bpftool jq /usr/bin/time "$PYTHON"; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }
modes=(native:none native:slideops python:none python:slideops python:perf python:perf-dwarf)
# (the check's own interpreter writes a map too: removed)
trampoline=$("$PYTHON" -X perf -c 'import os, sys; print(os.getpid(), sys.is_stack_trampoline_active())' \
	2>/dev/null || true)
rm -f "/tmp/perf-${trampoline%% *}.map"
if [ "${trampoline#* }" != True ]; then
	echo "bench: $PYTHON has no perf trampoline (-X perf, CPython 3.12+): no perf runs"
	modes=(native:none native:slideops python:none python:slideops)
fi

bench_init python

# The native workload (bench/native_units.c): units of work until SECONDS have passed.
gcc -O2 -fno-omit-frame-pointer -o "$dir/native" "$top/bench/native_units.c"
# The tables of libc, python and the workload are cached, as on a server profiled before.
"$SLIDEOPS" capture cpu -d 1 >/dev/null 2>&1 || true

# work KIND [PYTHON-OPTION]: WORKERS processes of a workload; "units cpu_s": the sum of
# their units and of the CPU time they took (user + system).
work() {
	local kind=$1 i pids=()
	for i in $(seq "$WORKERS"); do
		if [ "$kind" = native ]; then
			/usr/bin/time -f "%U %S" -o "$dir/wcpu.$i" "$dir/native" "$SECONDS_RUN" \
				> "$dir/units.$i" &
		else
			/usr/bin/time -f "%U %S" -o "$dir/wcpu.$i" "$PYTHON" ${2:+"$2"} "$SERVICE" \
				"$SECONDS_RUN" > "$dir/units.$i" &
		fi
		pids+=($!)
	done
	wait "${pids[@]}"
	echo "$(cat "$dir/units".* | awk '{ s += $1 } END { print s }')" \
		"$(cat "$dir/wcpu".* | awk '{ s += $1 + $2 } END { print s }')"
	rm -f "$dir/units".* "$dir/wcpu".*
}

# run KIND:MODE ROUND: appends "round kind mode units work_cpu_s cpu_s rss_kb bpf_ns
# bpf_runs" (cpu_s, rss_kb: the profiler's).
run() {
	local kind=${1%%:*} mode=${1#*:} round=$2 units f
	rm -f "$dir/perf.data"
	touch "$dir/stamp"
	case $mode in
	none) units=$(work "$kind") ;;
	slideops)
		bench_start links "$SLIDEOPS" capture cpu -d 86400 -F "$HZ"
		units=$(work "$kind") ;;
	perf)
		bench_start perf perf record -F "$HZ" -a -g -o "$dir/perf.data"
		units=$(work "$kind" -Xperf) ;;
	perf-dwarf)
		bench_start perf perf record -F "$HZ" -a --call-graph dwarf -o "$dir/perf.data"
		units=$(work "$kind" -Xperf) ;;
	esac
	bench_stop
	if [ "$mode" != none ] && [ "$mode" != slideops ]; then
		# The peer at work: the share of the service's samples with a Python function
		# (py::NAME, from the maps the trampoline wrote). perf script is where
		# --call-graph dwarf unwinds: that is part of its cost.
		# (perf script may stop at a record it cannot read, "failed to process type":
		# what it read still counts)
		{ /usr/bin/time -f "%U %S" -o "$dir/script.time" perf script -i "$dir/perf.data" \
			2>/dev/null || true; } | awk -v comm="$(basename "$PYTHON")" '
				/^[^ \t]/ { cur = $1 == comm; if (cur) n++; next }
				cur && /py::/ && !seen[n]++ { hit++ }
				END { printf "%.1f\n", n ? 100 * hit / n : 0 }' > "$dir/perf.named"
		echo "$mode $round $(cat "$dir/perf.named")" >> "$dir/perf.names"
		[ "$mode" = perf-dwarf ] &&
			bench_cpu=$(awk -v c="$bench_cpu" '{ print c + $1 + $2 }' "$dir/script.time")
		# The maps the service's interpreters wrote (they have ended).
		for f in /tmp/perf-*.map; do
			[ "$f" -nt "$dir/stamp" ] && grep -qF "$SERVICE" "$f" && rm -f "$f"
		done
	fi
	echo "$round $kind $mode $units $bench_cpu $bench_rss $bench_bpf" >> "$dir/results"
	printf '  %-7s %-10s %12s units %7s cpu s' "$kind" "$mode" $units
	[ "$mode" = none ] || printf '   cpu %6.2f s   rss %7s kB   bpf %s' "$bench_cpu" "$bench_rss" \
		"$bench_bpf"
	echo
}

echo "Python frames' cost: $WORKERS processes of each workload, $SECONDS_RUN s a run," \
	"$ROUNDS rounds, $HZ Hz, $PYTHON"
load_start=$(cut -d' ' -f1 /proc/loadavg)
bench_rounds run "${modes[@]}"
load_end=$(cut -d' ' -f1 /proc/loadavg)
echo "load average (1 min) at the start $load_start, at the end $load_end, on $NCPUS CPUs"
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)

echo
# Work lost is taken within each round (against that round's run of the same workload
# without a profiler), then the median over the rounds: units done, and units done a CPU
# second of the workload (what the profiler costs the workload in its own time: steadier
# where neighbours' load comes and goes, but blind to the CPU the profiler takes, which is
# its cpu s/run).
awk -v secs="$SECONDS_RUN" -v results="$RESULTS" -v rev="$rev" -v rounds="$ROUNDS" \
	-v load="$load_start-$load_end" -v ncpus="$NCPUS" -v today="$(date -u +%F)" '
	# median(a, key): the median of a[round, key] over the rounds; lo and hi: the least
	# and greatest (the spread).
	function median(a, key,    i, j, k, n, t, v) {
		n = 0
		for (k in a) { split(k, p, SUBSEP); if (p[2] == key) v[++n] = a[k] }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		lo = v[1]; hi = v[n]
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{ m = $2 ":" $3; u[$1, m] = $4; e[$1, m] = $5 > 0 ? $4 / $5 : 0; n[m]++; units[m] += $4
	  cpu[m] += $6; if ($7 > rss[m]) rss[m] = $7; ns[m] += $8; runs[m] += $9 }
	END {
		for (k in u) {
			split(k, p, SUBSEP); split(p[2], km, ":"); b = km[1] ":none"
			if (km[2] == "none" || !u[p[1], b]) continue
			loss[p[1], p[2]] = 1 - u[k] / u[p[1], b]
			if (e[p[1], b]) closs[p[1], p[2]] = 1 - e[k] / e[p[1], b]
		}
		printf "%-19s %9s %10s %14s %10s %12s %9s\n", "workload:mode", "units/s", "work lost",
			"lost/cpu s", "cpu s/run", "peak rss kB", "bpf ns"
		printf "%-19s %9s %10s %14s %10s %12s %9s\n", "", "", "(median)", "(median)", "",
			"", "/sample"
		split("native:none native:slideops python:none python:slideops python:perf python:perf-dwarf",
			order, " ")
		for (k = 1; k <= 6; k++) {
			m = order[k]
			if (!n[m]) continue
			L[m] = m ~ /:none$/ ? 0 : median(loss, m); CL[m] = m ~ /:none$/ ? 0 : median(closs, m)
			C[m] = cpu[m] / n[m]; R[m] = rss[m]
			per[m] = runs[m] ? ns[m] / runs[m] : 0
			printf "%-19s %9.0f %9.2f%% %13.2f%% %10.3f %12d %9s\n", m, units[m] / n[m] / secs,
				100 * L[m], 100 * CL[m], C[m], R[m], runs[m] ? sprintf("%.0f", per[m]) : "-"
		}
		print ""
		if (per["native:slideops"] > 0)
			printf "Python / native, slideops BPF time per sample: %.2fx (target <= 2x)\n",
				per["python:slideops"] / per["native:slideops"]
		printf "work lost by the Python service, target <= 1%%: units (least .. most over" \
			" the rounds); units a CPU second (least .. most)\n"
		split("slideops perf perf-dwarf", who, " ")
		for (k = 1; k <= 3; k++) {
			m = "python:" who[k]
			if (!n[m])
				continue
			median(loss, m); ulo[m] = lo; uhi[m] = hi
			median(closs, m); clo[m] = lo; chi[m] = hi
			printf "  %-10s %6.2f%% (%.2f .. %.2f)  %6.2f%% (%.2f .. %.2f)\n", who[k],
				100 * L[m], 100 * ulo[m], 100 * uhi[m], 100 * CL[m], 100 * clo[m],
				100 * chi[m]
		}
		# date commit seconds rounds load, then per profiler: work lost (median, least,
		# most), the same a CPU second, and BPF ns a sample (Python, native).
		if (results != "") {
			line = today "\t" rev "\t" secs "\t" rounds "\t" load "/" ncpus
			for (k = 1; k <= 3; k++) {
				m = "python:" who[k]
				if (!n[m]) { line = line "\t-\t-"; continue }
				line = line sprintf("\t%.2f%% (%.2f..%.2f)\t%.2f%% (%.2f..%.2f)",
					100 * L[m], 100 * ulo[m], 100 * uhi[m], 100 * CL[m],
					100 * clo[m], 100 * chi[m])
			}
			line = line sprintf("\t%.0f\t%.0f", per["python:slideops"],
				per["native:slideops"])
			print line >> results
		}
		if (C["python:perf"] > 0 && R["python:perf"] > 0)
			printf "slideops / perf record -a -g, -X perf: cpu %.2fx   peak rss %.2fx\n",
				C["python:slideops"] / C["python:perf"], R["python:slideops"] / R["python:perf"]
		if (C["python:perf-dwarf"] > 0 && R["python:perf-dwarf"] > 0)
			printf "slideops / perf record -a --call-graph dwarf, -X perf: cpu %.2fx   peak rss %.2fx\n",
				C["python:slideops"] / C["python:perf-dwarf"],
				R["python:slideops"] / R["python:perf-dwarf"]
	}' "$dir/results"
if [ -s "$dir/perf.names" ]; then
	echo
	echo "The service's samples in which perf names a Python function (py::), each round:"
	awk '{ s[$1] = s[$1] (s[$1] == "" ? "" : ", ") $3 "%" }
		END { for (m in s) printf "  %-10s %s\n", m, s[m] }' "$dir/perf.names" | sort
fi
