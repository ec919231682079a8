#!/usr/bin/env bash
# JavaScript functions by name from `slideops capture cpu` (issue 29): a real node runs
# tests/workloads/invoices.js in a cgroup named as systemd names a unit's:
#   ledger      runLedger() calls descendA, which recurses through descendB 12 deep down
#               to computeTotals, a hot loop TurboFan compiles, calling applyRate (node
#               runs with --no-turbo-inlining, so that each call stays its own frame),
#               then auditOnce, a loop V8 never optimises (the interpreter or baseline
#               code)
#   inlined     the same program with TurboFan's inlining (node's default): applyRate
#               inlined into computeTotals, most of the recursion into itself
#   shortlived  the same program as ledger, started and killed mid-capture
# The capture reads each node's layout from its binary (V8's v8dbg_ constants) and its
# functions' names through the kernel (never /proc/PID/mem), and each JavaScript frame of
# a sample is its function, with language JavaScript: computeTotals under the recursion
# under runLedger, auditOnce under runLedger, node's own native frames (v8::Function::Call,
# node::Start) below them; the group's answer is "most of it in" one of its loops, by
# name, and each function's file is its script, its first line where it is declared and
# its frame's line where it was in its optimised code; inlined functions are frames of
# their own, in their order. A node that starts mid-capture is named too; one that exits
# mid-capture breaks nothing: the capture ends and saves.
# NODE: the node run (/usr/bin/node); NODE_LIBRARY_PATH: its LD_LIBRARY_PATH, for a node
# beside the installed one (node18.sh runs these assertions against Debian's Node 18,
# whose V8 and its constants are in the libnode.so.108 it links).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"
NODE=${NODE:-/usr/bin/node}
NODE_LIBRARY_PATH=${NODE_LIBRARY_PATH:-}
[ -x "$NODE" ] || skip "no node at $NODE"
# V8's constants: in the node executable, or in the libnode it links (Debian's node)
libnode=$(env ${NODE_LIBRARY_PATH:+LD_LIBRARY_PATH="$NODE_LIBRARY_PATH"} ldd "$NODE" 2>/dev/null |
	awk '$1 ~ /^libnode\.so/ { print $3; exit }')
[ "$(nm -D "$NODE" ${libnode:+"$libnode"} 2>/dev/null | grep -c v8dbg_off_fp_function)" -gt 0 ] ||
	skip "neither $NODE nor its libnode (${libnode:-none}) exports V8's layout constants"
echo "node: $NODE, $(env ${NODE_LIBRARY_PATH:+LD_LIBRARY_PATH="$NODE_LIBRARY_PATH"} "$NODE" --version)${libnode:+, V8 in $libnode}"

workloads=$(cd "$(dirname "$0")/../workloads" && pwd)
SECONDS_CAPTURE=${NODE_CAPTURE_SECONDS:-6}

# start NAME [NODE OPTION...]: the workload in the cgroup of unit
# slideops-test-NAME.service, its output in $WORK/NAME.out ("ready" after its first second
# of work); the ledger and the short-lived one run with --no-turbo-inlining.
start() {
	local cg name=$1
	shift
	[ $# -gt 0 ] || set -- --no-turbo-inlining
	cg=$(make_cgroup "system.slice/slideops-test-$name.service")
	start_in_cgroup "$cg" env ${NODE_LIBRARY_PATH:+LD_LIBRARY_PATH="$NODE_LIBRARY_PATH"} \
		bash -c 'exec "$@" > "$0" 2>&1' "$WORK/$name.out" \
		"$NODE" "$@" --allow-natives-syntax "$workloads/invoices.js"
}
ready() {
	for _ in $(seq 1 300); do
		grep -q ready "$WORK/$1.out" 2>/dev/null && return
		kill -0 "$2" 2>/dev/null || fail "node $1 ended: $(cat "$WORK/$1.out")"
		sleep 0.1
	done
	fail "node $1 was not ready within 30 s"
}
pid=$(start ledger)
# inlined: the same program as node runs it by default, TurboFan inlining what it will
# (applyRate into computeTotals, the recursion into itself); not on a V8 that does not
# export where its inlined functions are (NODE_INLINED=0: Node 18)
if [ "${NODE_INLINED:-1}" = 1 ]; then
	inlined=$(start inlined --turbo-inlining)
	ready inlined "$inlined"
fi
ready ledger "$pid"
sleep 1 # computeTotals optimised

# The short-lived node: started 1.5 s into the capture (sampling under way), killed 3 s
# later.
(
	sleep 1.5
	short=$(start shortlived)
	echo "$short" > "$WORK/shortlived.pid"
	sleep 3
	kill -9 "$short" 2>/dev/null
) &
killer=$!
defer "kill $killer 2>/dev/null"

SLIDEOPS_DEBUG=1 "$SLIDEOPS" capture cpu -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" \
	2> "$WORK/capture.err" || fail "capture failed: $(cat "$WORK/capture.err")"
wait "$killer" 2>/dev/null || true
short=$(cat "$WORK/shortlived.pid" 2>/dev/null) || fail "the short-lived node did not start"
# (SIGKILL was sent before the capture ended; a loaded machine may take a moment to
# end the process)
for _ in $(seq 1 50); do kill -0 "$short" 2>/dev/null || break; sleep 0.1; done
kill -0 "$short" 2>/dev/null && fail "the short-lived node outlived the capture"
doc="$WORK/capture.json"
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --export folded "$WORK/folded" || fail "no folded export of $id"
grep -F "JavaScript:" "$WORK/capture.err" || true
walked=$(sed -n 's/.*JavaScript: \([0-9][0-9]*\) node processes walked.*/\1/p' "$WORK/capture.err" | tail -1)
[ "${walked:-0}" -ge 1 ] || fail "no node process was walked: $(grep -F 'JavaScript:' "$WORK/capture.err")"


[ -n "$(group ledger)" ] || fail "no group $(label ledger): $(jq -c '[.groups[].label]' "$doc")"
n=$(stacks ledger | awk '{ s += $NF } END { print s + 0 }')
[ "$n" -ge 50 ] || fail "ledger: only $n samples"

# computeTotals, optimised, beneath the recursion beneath runLedger, node's native
# frames below; applyRate, its callee, above it.
share=$(stacks ledger | share_of "(^|;)computeTotals( |;)")
awk -v s="$share" 'BEGIN { exit !(s >= 0.15) }' ||
	fail "ledger: computeTotals in only $share of $n samples: $(stacks ledger | sort -t' ' -k2 -nr | head -3)"
wrong=$(stacks ledger | grep -E "(^|;)computeTotals( |;)" |
	grep -vE "v8::Function::Call[^;]*;([^;]+;)*runLedger;descendA;(descendB;descendA;){12}computeTotals( |;)" || true)
[ -z "$wrong" ] || fail "ledger: computeTotals out of its callers' order: $(echo "$wrong" | head -2)"
echo "ledger: computeTotals in $share of $n samples, under 25 frames of recursion, runLedger and node's native frames"

# The same program with TurboFan's inlining: applyRate and most of the recursion inlined
# (one frame of machine code holding many functions), each a frame of its own again.
if [ "${NODE_INLINED:-1}" = 1 ]; then
	n=$(stacks inlined | awk '{ s += $NF } END { print s + 0 }')
	[ "$n" -ge 50 ] || fail "inlined: only $n samples"
	share=$(stacks inlined | share_of "(^|;)computeTotals;applyRate( |;)")
	awk -v s="$share" 'BEGIN { exit !(s >= 0.15) }' ||
		fail "inlined: computeTotals;applyRate (applyRate inlined) in only $share of $n samples: $(stacks inlined | sort -t' ' -k2 -nr | cut -c1-400 | head -3)"
	# (grep, not awk's regex: mawk has no {12})
	all=$(stacks inlined | grep -E "(^|;)computeTotals( |;)" | awk '{ s += $NF } END { print s + 0 }')
	hit=$(stacks inlined | grep -E "v8::Function::Call[^;]*;([^;]+;)*runLedger;descendA;(descendB;descendA;){12}computeTotals( |;)" |
		awk '{ s += $NF } END { print s + 0 }')
	whole=$(awk -v h="$hit" -v a="$all" 'BEGIN { printf "%.3f\n", a ? h / a : 0 }')
	awk -v s="$whole" 'BEGIN { exit !(s >= 0.9) }' ||
		fail "inlined: only $whole of computeTotals' samples under its 25 callers in order: $(stacks inlined | grep -F computeTotals | grep -vE '(descendB;descendA;){12}computeTotals' | cut -c1-600 | head -2)"
	inl=$(sed -n 's/.*JavaScript: .* \([0-9][0-9]*\) inlined frames.*/\1/p' "$WORK/capture.err" | tail -1)
	[ "${inl:-0}" -gt 0 ] || fail "inlined: no inlined frame read: $(grep -F 'JavaScript:' "$WORK/capture.err")"
	echo "inlined: computeTotals;applyRate in $share of $n samples; $whole of computeTotals' under its 25 callers in order ($inl inlined frames read)"
fi

# auditOnce, never optimised, under runLedger.
stacks ledger | has -E "(^|;)runLedger;auditOnce( |;)" ||
	fail "ledger: auditOnce is not named under runLedger: $(stacks ledger | grep -v computeTotals | head -3)"
echo "ledger: auditOnce under runLedger"

# Function expressions by the name V8 inferred: node's loader (Module.prototype._compile =
# function ...) below the script's top level.
stacks ledger | has -E "(^|;)Module\._compile;([^;]+;)*runLedger;" ||
	fail "ledger: node's loader is not named Module._compile below runLedger: $(stacks ledger | head -1 | cut -c1-400)"
echo "ledger: Module._compile below runLedger"

# Whole stacks: most samples reach the process's start through the JavaScript frames.
root=$(stacks ledger | share_of '^(_start;)?(__libc_start_main_impl;)?__libc_start_call_main;node::Start')
awk -v s="$root" 'BEGIN { exit !(s >= 0.8) }' ||
	fail "ledger: only $root of samples reach node::Start: $(stacks ledger | grep -v 'node::Start' | head -3)"
echo "ledger: $root of samples whole down to node::Start"

# Language JavaScript, and the answer's "most of it in".
jq -e '[.functions[] | select(.name == "computeTotals" and .language == "JavaScript")] | length == 1' \
	"$doc" >/dev/null || fail "computeTotals is not a JavaScript function: $(jq -c '[.functions[] | select(.name | test("computeTotals"))]' "$doc")"
top=$(group ledger | jq -r .top_function)
case $top in
computeTotals | applyRate | auditOnce) ;;
*) fail "ledger: most of it in '$top', not one of its JavaScript loops" ;;
esac
echo "ledger: most of it in $top"

# Each function's script is its file in the pprof export (read by go tool pprof, as
# pprof users would): computeTotals and runLedger come from invoices.js.
if command -v go >/dev/null; then
	"$SLIDEOPS" show "$id" --export pprof "$WORK/profile.pb.gz" >/dev/null ||
		fail "no pprof export of $id"
	go tool pprof -raw -symbolize=none "$WORK/profile.pb.gz" > "$WORK/raw" 2> "$WORK/raw.err" ||
		fail "go tool pprof cannot read the export: $(cat "$WORK/raw.err")"
	# and its lines: the one it is declared on (the location's start_line), and where
	# the frame was (its line): computeTotals, optimised, at its call of applyRate
	# (whether inlined or not); auditOnce (never optimised: baseline code, once V8 has
	# compiled it so) in its loop; descendA, baseline code too, at its calls; runLedger,
	# whose frame is not in its own current code (OSR's), at its first
	for f in computeTotals:'s = applyRate(s, i);' applyRate:'return (s \* 31' \
		auditOnce:'s = (s ^ ((s << 13)' descendA:'return depth === 0' runLedger:; do
		at=${f#*:} f=${f%%:*}
		first=$(grep -n "^function $f(" "$workloads/invoices.js" | cut -d: -f1)
		[ -n "$first" ] || fail "no function $f in invoices.js"
		line=$first
		[ -z "$at" ] || line=$(grep -n "$at" "$workloads/invoices.js" | head -1 | cut -d: -f1)
		grep -qE "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ $f $workloads/invoices\.js:$line s=$first$" "$WORK/raw" ||
			fail "$f is not invoices.js at line $line from line $first in the pprof export: $(grep -E " $f " "$WORK/raw" | head -3)"
		echo "ledger: $f in $workloads/invoices.js at line $line, from line $first"
	done
	lines=$(sed -n 's/.*JavaScript: .* \([0-9][0-9]*\) functions met, \([0-9][0-9]*\) of them not named, \([0-9][0-9]*\) named with their first line; \([0-9][0-9]*\) places in their code met, \([0-9][0-9]*\) frames at the line.*/\1 \2 \3 \4 \5/p' \
		"$WORK/capture.err" | tail -1)
	echo "JavaScript functions met, not named, with a line; places met, frames at their line: $lines"
else
	echo "skipped: the functions' scripts and lines (no go tool pprof to read the pprof export)"
fi

# The node that started mid-capture and was killed in it: found when first sampled, its
# functions named like the first one's, and the capture whole.
[ -n "$(group shortlived)" ] || fail "shortlived: not sampled"
n=$(stacks shortlived | awk 'index($0, "runLedger") { s += $NF } END { print s + 0 }')
all=$(stacks shortlived | awk '{ s += $NF } END { print s + 0 }')
[ "$n" -ge 20 ] && awk -v n="$n" -v all="$all" 'BEGIN { exit !(n >= 0.5 * all) }' ||
	fail "shortlived: only $n of its $all samples reach runLedger by name: $(stacks shortlived | grep -vF runLedger | sort -t' ' -k2 -nr | cut -c1-300 | head -3)"
share=$(stacks shortlived | grep -F "runLedger" | share_of "(^|;)runLedger;(auditOnce|descendA)( |;)")
awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }' ||
	fail "shortlived: its functions named in only $share of its $n samples under runLedger"
echo "shortlived: started mid-capture, $n of its $all samples under runLedger, its callees named in $share"
echo "ok"
