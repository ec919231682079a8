#!/usr/bin/env bash
# Java methods by name from `slideops capture cpu` (issue 29): a real OpenJDK 17 runs
# tests/workloads/com/acme/Invoices.java in a cgroup named as systemd names a unit's:
#   invoices   main() calls descend(40), which recurses down to computeTotals, a hot loop
#              C2 compiles (kept out of line: inlined frames are not read yet), then
#              auditOnce, a loop kept interpreted
#   shortlived the same program, killed mid-capture
# and then a threads capture, in which invoices' Settlement thread waits in Thread.sleep.
# The capture reads each JVM's layout through the kernel (never /proc/PID/mem), and each
# Java frame of a sample is its method, with language Java: computeTotals under descend
# under main, auditOnce under main, the JVM's own native frames (JavaCalls::call_helper)
# below them, and the group's answer is "most of it in" one of its two loops, by name.
# A JVM that exits mid-capture breaks nothing: the capture ends and saves.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
[ -x "$JAVA" ] || skip "no OpenJDK 17 at $JAVA"

workloads=$(cd "$(dirname "$0")/../workloads" && pwd)
SECONDS_CAPTURE=${JAVA_CAPTURE_SECONDS:-8}
flags=(-XX:CompileCommand=quiet -XX:CompileCommand=exclude,com.acme.Invoices::auditOnce
	-XX:CompileCommand=dontinline,com.acme.Invoices::computeTotals)

# start NAME: the workload in the cgroup of unit slideops-test-NAME.service, its output
# in $WORK/NAME.out ("ready" after its first second of work).
start() {
	local cg
	cg=$(make_cgroup "system.slice/slideops-test-$1.service")
	start_in_cgroup "$cg" bash -c 'exec "$@" > "$0" 2>&1' "$WORK/$1.out" \
		"$JAVA" "${flags[@]}" "$workloads/com/acme/Invoices.java"
}
pid=$(start invoices)
for _ in $(seq 1 300); do
	grep -q ready "$WORK/invoices.out" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || fail "the JVM ended: $(cat "$WORK/invoices.out")"
	sleep 0.1
done
grep -q ready "$WORK/invoices.out" || fail "the JVM was not ready within 30 s"
sleep 2 # computeTotals compiled by C2

# The short-lived JVM: started with the capture, killed halfway through it.
short=$(start shortlived)
( sleep $((SECONDS_CAPTURE / 2 + 1)); kill -9 "$short" 2>/dev/null ) &
killer=$!
defer "kill $killer 2>/dev/null"

SLIDEOPS_DEBUG=1 "$SLIDEOPS" capture cpu -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" \
	2> "$WORK/capture.err" || fail "capture failed: $(cat "$WORK/capture.err")"
wait "$killer" 2>/dev/null || true
kill -0 "$short" 2>/dev/null && fail "the short-lived JVM outlived the capture"
doc="$WORK/capture.json"
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --export folded "$WORK/folded" || fail "no folded export of $id"
grep -F "Java:" "$WORK/capture.err" || true
# The JVM memory reader, loaded when the first JVM was met, read pages.
pages=$(sed -n 's/.*Java: .* \([0-9][0-9]*\) pages read in the kernel.*/\1/p' "$WORK/capture.err" | tail -1)
[ "${pages:-0}" -gt 0 ] || fail "the JVM memory reader read no page: $(grep -F 'Java:' "$WORK/capture.err")"

J='com\.acme\.Invoices'

[ -n "$(group invoices)" ] || fail "no group $(label invoices): $(jq -c '[.groups[].label]' "$doc")"
n=$(stacks invoices | awk '{ s += $NF } END { print s + 0 }')
[ "$n" -ge 50 ] || fail "invoices: only $n samples"

# computeTotals, compiled, beneath descend beneath main, with native frames below.
share=$(stacks invoices | share_of "(^|;)$J\\.computeTotals( |;)")
awk -v s="$share" 'BEGIN { exit !(s >= 0.15) }' ||
	fail "invoices: computeTotals in only $share of $n samples: $(stacks invoices | sort -t' ' -k2 -nr | head -3)"
wrong=$(stacks invoices | grep -E "(^|;)$J\\.computeTotals( |;)" |
	grep -vE "JavaCalls::call_helper[^;]*;([^;]+;)*$J\\.main;($J\\.descend;)+$J\\.computeTotals( |;)" || true)
[ -z "$wrong" ] || fail "invoices: computeTotals out of its callers' order: $(echo "$wrong" | head -2)"
echo "invoices: computeTotals in $share of $n samples, under descend, main and the JVM's native frames"

# auditOnce, interpreted, under main.
stacks invoices | has -E "(^|;)$J\\.main;$J\\.auditOnce( |;)" ||
	fail "invoices: the interpreted auditOnce is not named under main: $(stacks invoices | grep -v computeTotals | head -3)"
echo "invoices: the interpreted auditOnce under main"

# Whole stacks: most samples reach the thread's start through the Java frames.
root=$(stacks invoices | share_of '^(clone3;)?start_thread;')
awk -v s="$root" 'BEGIN { exit !(s >= 0.8) }' ||
	fail "invoices: only $root of samples reach start_thread: $(stacks invoices | grep -v '^\(clone3;\)\?start_thread' | head -3)"
echo "invoices: $root of samples whole down to start_thread"

# Language Java, and the answer's "most of it in".
jq -e '[.functions[] | select(.name == "com.acme.Invoices.computeTotals" and .language == "Java")] | length == 1' \
	"$doc" >/dev/null || fail "computeTotals is not a Java function: $(jq -c '[.functions[] | select(.name | test("Invoices"))]' "$doc")"
top=$(group invoices | jq -r .top_function)
# The two loops share the time about evenly: the answer names one of them, a Java method.
case $top in
com.acme.Invoices.computeTotals | com.acme.Invoices.auditOnce) ;;
*) fail "invoices: most of it in '$top', not one of its Java loops" ;;
esac
echo "invoices: most of it in $top"

# What every thread is doing: the threads question walks each thread's stack from a task
# iterator (another task's memory, not the current one's), Java frames by name there too.
# Settlement waits in Thread.sleep (its native method's wrapper, a "native nmethod")
# called from the interpreted awaitSettlement: the whole chain, by name, down to
# start_thread.
"$SLIDEOPS" capture threads --json > "$WORK/threads.json" 2> "$WORK/threads.err" ||
	fail "capture threads failed: $(cat "$WORK/threads.err")"
"$SLIDEOPS" show "$(jq -r .id "$WORK/threads.json")" --export folded "$WORK/threads.folded" ||
	fail "no folded export of the threads profile"
waiting=$(grep -F "$(label invoices);" "$WORK/threads.folded" | grep -F awaitSettlement || true)
[ -n "$waiting" ] ||
	fail "threads: no thread of invoices in awaitSettlement: $(grep -F "$(label invoices);" "$WORK/threads.folded" | cut -c1-300 | head -5)"
echo "$waiting" | has -E "(^|;)(clone3;)?start_thread;.*JavaCalls::call_helper[^;]*;([^;]+;)*$J\\\$Settlement\.run;$J\.awaitSettlement;java\.lang\.Thread\.sleep;JVM_Sleep;" ||
	fail "threads: the waiting thread's Java frames are not named in order: $(echo "$waiting" | head -2)"
echo "threads: Settlement.run;awaitSettlement;java.lang.Thread.sleep, whole"

# The JVM killed mid-capture: its samples are there, the capture whole.
[ -n "$(group shortlived)" ] || echo "shortlived: not sampled (its JVM was still starting)"
echo "ok"
