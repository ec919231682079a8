#!/usr/bin/env bash
# Python functions by name, and runtimes' code in its language, from `slideops capture cpu`.
# Real interpreters run real programs (tests/workloads/), each in a cgroup named as systemd
# names a unit's:
#   py36 .. py313, debian311  service.py, a request loop: handle() calls build_report (3/4
#                             of the work) then render_page (1/4), with pyenv's CPython
#                             3.6-3.13 and Debian's stripped /usr/bin/python3.11
#   pythreads38, pythreads312 threads.py: one thread in build_report, one in Worker.crunch
#   pyext                     ext.py: call_native() calls ext_burn, a C extension built here
#   java, node                busy loops in Java (OpenJDK 17) and JavaScript (Node.js)
# Each loop's process: >= 90% of its samples carry its Python frames (<module>, then
# handle, then build_report or render_page, in that order wherever they are), its group is
# "most of it in" build_report, and >= 90% of build_report's samples run its loop's line
# (the pprof export's lines, read by go tool pprof), with build_report's file and first
# line. Both threads' functions are named; ext_burn sits beneath call_native; java and
# node keep a [Java] / [JavaScript] frame in that language where their runtime's own
# stubs are (the call stub, V8's entry frames: their methods and functions are named,
# java.sh and node.sh check those), and named native frames.
source "$(dirname "$0")/lib.sh"
[ -n "${KEEP_WORK:-}" ] && defer "cp -r $WORK /tmp/python-it-kept"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer cpu

SECONDS_CAPTURE=${PYTHON_CAPTURE_SECONDS:-10}
PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions

# The workloads, one copy shared with the unit tests and benchmarks; lines are found by
# their "# hot" comments.
workloads=$(cd "$(dirname "$0")/../workloads" && pwd)
service=$workloads/service.py

started=() running=()
declare -A pid_of
# start NAME CMD...: CMD in the cgroup of unit slideops-test-NAME.service.
start() {
	local name=$1; shift
	local cg
	cg=$(make_cgroup "system.slice/slideops-test-$name.service")
	pid_of[$name]=$(start_in_cgroup "$cg" "$@")
	started+=("$name")
}

# Every CPython 3.6-3.13. In the kernel matrix's guests, where fourteen busy processes
# took this test 531 s under emulation, one of each way the BPF walker reads one: frames
# by PyFrameObject with lasti in bytes (3.8), in code units with 3.10's line table, by
# cframe (3.11), with C-stack shim frames (3.12), by current_frame (3.13). 3.6, 3.7 and
# 3.9 differ from 3.8 in offsets only (data, not code the kernel verifies).
minors="6 7 8 9 10 11 12 13"
in_guest && minors="8 10 11 12 13"
loops=()
for v in $minors; do
	py=$(ls -d "$PYENV"/3."$v".*/bin/python3."$v" 2>/dev/null | head -1 || true)
	if [ -z "$py" ]; then
		echo "skipped: CPython 3.$v is not installed under $PYENV"
		continue
	fi
	start "py3$v" "$py" "$service"
	loops+=("py3$v")
	case $v in
	8) start pythreads38 "$py" "$workloads/threads.py" ;;
	12) start pythreads312 "$py" "$workloads/threads.py" ;;
	11)
		inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
		mkdir -p "$WORK/ext"
		gcc -O1 -shared -fPIC -I"$inc" -o "$WORK/ext/burnext$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" \
			"$workloads/burnext.c"
		start pyext "$py" "$workloads/ext.py" "$WORK/ext"
		;;
	esac
done
if [ -x /usr/bin/python3.11 ]; then
	start debian311 /usr/bin/python3.11 "$service"
	loops+=(debian311)
else
	echo "skipped: Debian's /usr/bin/python3.11 is not installed"
fi
[ ${#loops[@]} -gt 0 ] || skip "no CPython 3.6-3.13 to test with"

# The JVM's and node's code as one frame of their language: the same native walk on
# every kernel, and a JVM takes minutes to start under emulation, so not in guests.
if in_guest; then
	echo "skipped in the kernel matrix's guests: java and node"
elif command -v javac >/dev/null && command -v java >/dev/null; then
	mkdir -p "$WORK/java"
	cat > "$WORK/java/Spin.java" <<'JAVA'
public class Spin {
	static long sink;

	static long step(long i) {
		return i * 31 + (i >>> 3);
	}

	public static void main(String[] args) throws java.io.IOException {
		new java.io.FileOutputStream(args[0]).close();
		for (long i = 0;; i++)
			sink += step(i);
	}
}
JAVA
	javac -d "$WORK/java" "$WORK/java/Spin.java"
	start java java -cp "$WORK/java" Spin "$WORK/java.running"
	running+=("$WORK/java.running")
else
	echo "skipped: no OpenJDK (javac, java)"
fi
if in_guest; then
	:
elif command -v node >/dev/null; then
	cat > "$WORK/spin.js" <<'JS'
let sink = 0;
function step(i) { return (i * 31) ^ (i >>> 3); }
require('fs').writeFileSync(process.argv[2], '');
for (;;) { for (let i = 0; i < 1e6; i++) sink += step(i); sink %= 1e9; }
JS
	start node node "$WORK/spin.js" "$WORK/node.running"
	running+=("$WORK/node.running")
else
	echo "skipped: no Node.js"
fi
sleep 1
# The JVM and node in their loops (each makes its file there), not still starting: under
# emulation the JVM was still mapping its archive 10 s on. A bound on a hung start.
for f in "${running[@]}"; do
	for _ in $(seq 1200); do
		[ -e "$f" ] && continue 2
		sleep 0.25
	done
	fail "$(basename "$f" .running) did not reach its loop within 300 s"
done

"$SLIDEOPS" capture cpu -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --export folded "$WORK/folded" || fail "no folded export of $id"

# A process's samples before its tables are in are walked by frame pointers, which find
# no interpreter loop to splice Python frames into; the profile counts them
# (stack_quality.exits.no_process_tables, over every process). On a real CPU the tables
# are in within a second of the capture's start. In the kernel matrix's emulated guests
# (which set SLIDEOPS_READ_TIME_FACTOR), building them for a dozen interpreters takes
# seconds (6.1 under TCG: py36 had 0.722 of 97 samples with its chain, the others one
# frame of libpython): there, samples of that count may lack the chain too.
no_tables=0
[ "${SLIDEOPS_READ_TIME_FACTOR:-1}" -gt 1 ] 2>/dev/null &&
	no_tables=$(jq '.stack_quality.exits.no_process_tables // 0' "$doc")
for name in "${loops[@]}"; do
	[ -n "$(group "$name")" ] || fail "no group $(label "$name"): $(jq -c '[.groups[].label]' "$doc")"
	n=$(stacks "$name" | awk '{ s += $NF } END { print s + 0 }')
	[ "$n" -ge 20 ] || fail "$name: only $n samples"
	# The module's frame at the root of the Python frames (the loop runs there), and
	# handle above it wherever build_report or render_page runs; CPython's own C
	# functions may sit between them (3.6-3.10).
	share=$(stacks "$name" | share_of '(^|;)<module>(;| )')
	awk -v s="$share" -v t="$n" -v f="$no_tables" \
		'BEGIN { exit !(s >= 0.90 || (1 - s) * t <= 0.10 * t + f) }' ||
		fail "$name: only $share of $n samples carry the Python chain ($no_tables walked before tables were in): $(stacks "$name" | grep -v '<module>' | head -3)"
	wrong=$(stacks "$name" | grep -E '(^|;)(build_report|render_page)(;| )' |
		grep -vE '(^|;)<module>;([^;]+;)*handle;([^;]+;)*(build_report|render_page)(;| )' || true)
	[ -z "$wrong" ] || fail "$name: a Python chain out of order: $(echo "$wrong" | head -2)"
	top=$(group "$name" | jq -r .top_function)
	[ "$top" = build_report ] || fail "$name: most of it in '$top', not build_report"
	echo "$name: $share of $n samples with the Python chain, most of it in $top"
done

# The line each sample runs (pprof's Line.line), with the function's file and first line
# (Function.filename, start_line): most of build_report's samples are on its loop's line.
if command -v go >/dev/null; then
	"$SLIDEOPS" show "$id" --export pprof "$WORK/profile.pb.gz" >/dev/null ||
		fail "no pprof export of $id"
	go tool pprof -raw -symbolize=none "$WORK/profile.pb.gz" > "$WORK/raw" 2> "$WORK/raw.err" ||
		fail "go tool pprof cannot read the export: $(cat "$WORK/raw.err")"
	hot=$(grep -n '# hot: build_report' "$service" | cut -d: -f1)
	first=$(grep -n '^def build_report(' "$service" | cut -d: -f1)
	# build_report_lines PID: "LINE FILE START SAMPLES" for each line build_report's
	# samples in PID run (its innermost frame named build_report), most first.
	build_report_lines() {
		awk -v pid="$1" '
			/^Samples:/ { part = "s"; next }
			/^Locations/ { part = "l"; next }
			/^Mappings/ { part = "" }
			part == "s" && $2 ~ /:$/ {
				n++; count[n] = $1; ids[n] = ""
				for (i = 3; i <= NF; i++) ids[n] = ids[n] " " $i
			}
			part == "s" && match($0, /pid:\[[0-9]+\]/) {
				p[n] = substr($0, RSTART + 5, RLENGTH - 6)
			}
			part == "l" && $2 ~ /^0x/ && $4 == "build_report" { loc[$1 + 0] = $5 " " $6 }
			END {
				for (k = 1; k <= n; k++) {
					if (p[k] != pid) continue
					m = split(ids[k], a, " ")
					for (i = 1; i <= m; i++)
						if (a[i] in loc) { at[loc[a[i]]] += count[k]; break }
				}
				for (l in at) {
					split(l, f, " "); s = f[2]; sub(/^s=/, "", s)
					file = f[1]; line = file; sub(/.*:/, "", line)
					sub(/:[0-9]+$/, "", file)
					print line, file, s, at[l]
				}
			}' "$WORK/raw" | sort -k4,4nr
	}
	for name in "${loops[@]}"; do
		build_report_lines "${pid_of[$name]}" > "$WORK/lines.$name"
		all=$(awk '{ s += $4 } END { print s + 0 }' "$WORK/lines.$name")
		[ "$all" -ge 10 ] || fail "$name: only $all samples of build_report have a line"
		awk -v f="$service" -v s="$first" '$2 != f || $3 != s { exit 1 }' \
			"$WORK/lines.$name" || fail "$name: build_report is not $service from line" \
			"$first: $(head -1 "$WORK/lines.$name")"
		on=$(awk -v l="$hot" '$1 == l { print $4 }' "$WORK/lines.$name")
		share=$(awk -v a="$all" -v o="${on:-0}" 'BEGIN { printf "%.3f\n", o / a }')
		awk -v s="$share" 'BEGIN { exit !(s >= 0.90) }' ||
			fail "$name: only $share of build_report's $all samples on its line $hot:" \
				"$(tr '\n' ' ' < "$WORK/lines.$name")"
		echo "$name: $share of build_report's $all samples on line $hot;" \
			"the function $service from line $first"
	done
else
	echo "skipped: the lines run (no go tool pprof to read the pprof export)"
fi

for name in pythreads38 pythreads312; do
	[[ " ${started[*]} " == *" $name "* ]] || continue
	for f in build_report 'Worker\.crunch|crunch'; do
		stacks "$name" | has -E "(^|;)($f)(;| )" ||
			fail "$name: the thread running $f is not named: $(stacks "$name" | head -3)"
	done
	echo "$name: build_report and crunch, one in each thread, named"
done

if [[ " ${started[*]} " == *" pyext "* ]]; then
	share=$(stacks pyext | share_of '(^|;)call_native;([^;]+;)*ext_burn( |;)')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.5) }' ||
		fail "pyext: ext_burn is beneath call_native in only $share: $(stacks pyext | head -3)"
	echo "pyext: ext_burn beneath call_native in $share of samples"
fi

# A runtime's unnamed code (its stubs) is one frame of its language, its own C/C++ code
# named.
jit() {
	local name=$1 frame=$2 lang=$3
	[[ " ${started[*]} " == *" $name "* ]] || return 0
	stacks "$name" | has -F "$frame" ||
		fail "$name: no $frame frame: $(stacks "$name" | head -3)"
	jq -e --arg f "$frame" --arg l "$lang" '[.functions[] | select(.name == $f and .language == $l)] | length == 1' \
		"$doc" >/dev/null || fail "$frame is not a $lang function: $(jq -c --arg f "$frame" '[.functions[] | select(.name == $f)]' "$doc")"
	stacks "$name" | has -F "$frame;$frame" &&
		fail "$name: a run of $frame frames is not one: $(stacks "$name" | grep -F "$frame;$frame" | head -1)"
	stacks "$name" | has -E "\\[[A-Za-z]+\\]\\+0x|;\\[anon\\]" &&
		fail "$name: JIT code left as raw addresses: $(stacks "$name" | grep -E '\[anon\]' | head -2)"
	stacks "$name" | tr ';' '\n' | grep -vE '^\[|\+0x' | has -E '^[A-Za-z_]' ||
		fail "$name: no named native frame"
	echo "$name: $frame frames in $lang"
}
jit java "[Java]" Java
jit node "[JavaScript]" JavaScript
echo "ok"
