#!/usr/bin/env bash
# Java methods by name from `slideops capture cpu` (issue 29): a real OpenJDK 17 runs
# tests/workloads/com/acme/Invoices.java in a cgroup named as systemd names a unit's:
#   invoices   main() calls descend(40), which recurses down to computeTotals, a hot loop
#              C2 compiles (kept out of line), into which applyRate is inlined, which
#              calls roundCents (kept out of line); then auditOnce, a loop kept
#              interpreted
#   shortlived the same program, started and killed mid-capture
#   bridge     tests/workloads/com/acme/Bridge.java: Java calls C (bridge.c, through a
#              native method) which calls Java back through JNI
# and then a threads capture, in which invoices' Settlement thread waits in Thread.sleep.
# Each frame carries its method's source file, its first line, and the line the frame is
# at into the pprof export: a compiled frame's from its nmethod's scopes (inlined methods
# as frames of their own), an interpreted one's from its bytecode pointer.
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
	-XX:CompileCommand=dontinline,com.acme.Invoices::computeTotals
	-XX:CompileCommand=dontinline,com.acme.Invoices::roundCents)

# start NAME: the workload in the cgroup of unit slideops-test-NAME.service, its output
# in $WORK/NAME.out ("ready" after its first second of work).
start() {
	local cg
	cg=$(make_cgroup "system.slice/slideops-test-$1.service")
	start_in_cgroup "$cg" bash -c 'exec "$@" > "$0" 2>&1' "$WORK/$1.out" \
		"$JAVA" "${flags[@]}" "$workloads/com/acme/Invoices.java"
}
# The round trip's C side, against this JDK's jni.h, without frame pointers.
jdk=$(dirname "$(dirname "$(readlink -f "$JAVA")")")
gcc -O2 -fomit-frame-pointer -fPIC -shared -I"$jdk/include" -I"$jdk/include/linux" \
	-o "$WORK/libbridge.so" "$workloads/com/acme/bridge.c" || fail "cannot build bridge.c"
bridge_cg=$(make_cgroup "system.slice/slideops-test-bridge.service")
start_in_cgroup "$bridge_cg" bash -c 'exec "$@" > "$0" 2>&1' "$WORK/bridge.out" \
	"$JAVA" "$workloads/com/acme/Bridge.java" "$WORK/libbridge.so" > /dev/null
pid=$(start invoices)
for out in invoices bridge; do
	for _ in $(seq 1 300); do
		grep -q ready "$WORK/$out.out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q ready "$WORK/$out.out" || fail "the $out JVM was not ready within 30 s: $(cat "$WORK/$out.out")"
done
sleep 2 # computeTotals compiled by C2

# The short-lived JVM: started 2 s into the capture (sampling under way), killed 4 s later.
(
	sleep 2
	short=$(start shortlived)
	echo "$short" > "$WORK/shortlived.pid"
	sleep 4
	kill -9 "$short" 2>/dev/null
) &
killer=$!
defer "kill $killer 2>/dev/null"

SLIDEOPS_DEBUG=1 "$SLIDEOPS" capture cpu -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" \
	2> "$WORK/capture.err" || fail "capture failed: $(cat "$WORK/capture.err")"
wait "$killer" 2>/dev/null || true
short=$(cat "$WORK/shortlived.pid" 2>/dev/null) || fail "the short-lived JVM did not start"
# (SIGKILL was sent before the capture ended; a loaded machine may take a moment to
# end the process)
for _ in $(seq 1 50); do kill -0 "$short" 2>/dev/null || break; sleep 0.1; done
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

# applyRate, inlined into computeTotals' compiled code, is a frame of its own between
# computeTotals and roundCents, which it calls: read from the nmethod's scopes at the
# call's return address.
inl=$(stacks invoices | share_of "(^|;)$J\\.computeTotals;$J\\.applyRate;$J\\.roundCents( |;)")
awk -v s="$inl" 'BEGIN { exit !(s >= 0.05) }' ||
	fail "invoices: computeTotals;applyRate;roundCents in only $inl of $n samples: $(stacks invoices | grep -F roundCents | sort -t' ' -k2 -nr | sed 's/.*descend;//' | head -3)"
jq -e '[.functions[] | select(.name == "com.acme.Invoices.applyRate" and .language == "Java")] | length == 1' \
	"$doc" >/dev/null || fail "the inlined applyRate is not a Java function"
echo "invoices: the inlined applyRate between computeTotals and roundCents in $inl of samples"

# auditOnce, interpreted, under main.
stacks invoices | has -E "(^|;)$J\\.main;$J\\.auditOnce( |;)" ||
	fail "invoices: the interpreted auditOnce is not named under main: $(stacks invoices | grep -v computeTotals | head -3)"
echo "invoices: the interpreted auditOnce under main"

# Whole stacks: most samples reach the thread's start through the Java frames, those
# taken in the short roundCents' entry or exit too (without reading them there, about a
# third of its samples stopped at it: 0.6 whole).
root=$(stacks invoices | share_of '^(clone3;)?start_thread;')
awk -v s="$root" 'BEGIN { exit !(s >= 0.9) }' ||
	fail "invoices: only $root of samples reach start_thread: $(stacks invoices | grep -v '^\(clone3;\)\?start_thread' | head -3)"
echo "invoices: $root of samples whole down to start_thread"

# Language Java, and the answer's "most of it in".
jq -e '[.functions[] | select(.name == "com.acme.Invoices.computeTotals" and .language == "Java")] | length == 1' \
	"$doc" >/dev/null || fail "computeTotals is not a Java function: $(jq -c '[.functions[] | select(.name | test("Invoices"))]' "$doc")"
top=$(group invoices | jq -r .top_function)
# The two loops share the time about evenly (computeTotals' in roundCents, which it calls):
# the answer names one of them, a Java method.
case $top in
com.acme.Invoices.computeTotals | com.acme.Invoices.roundCents | com.acme.Invoices.auditOnce) ;;
*) fail "invoices: most of it in '$top', not one of its Java loops" ;;
esac
echo "invoices: most of it in $top"

# Where each method comes from, in the pprof export (read by go tool pprof, as pprof users
# would): its class's source file under its package (Function.filename) and its first
# line (start_line, and the location's line: the sample carries the Method, not the
# bytecode it was at), javac's line of its first statement.
if command -v go >/dev/null; then
	"$SLIDEOPS" show "$id" --export pprof "$WORK/profile.pb.gz" >/dev/null ||
		fail "no pprof export of $id"
	go tool pprof -raw -symbolize=none "$WORK/profile.pb.gz" > "$WORK/raw" 2> "$WORK/raw.err" ||
		fail "go tool pprof cannot read the export: $(cat "$WORK/raw.err")"
	first=$(awk '/static long computeTotals\(/ { f = 1; next }
		f && !/^[[:space:]]*[{]?[[:space:]]*$/ { print NR; exit }' "$workloads/com/acme/Invoices.java")
	[ -n "$first" ] || fail "no first statement of computeTotals in Invoices.java"
	# line_of TEXT: the line of Invoices.java holding TEXT, where a frame calls on
	line_of() { grep -nF "$1" "$workloads/com/acme/Invoices.java" | head -1 | cut -d: -f1; }
	# at METHOD LINE [START]: a location of METHOD at LINE of Invoices.java, whose function
	# starts at START when given
	at() {
		grep -qE "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ $J\.$1 com/acme/Invoices\.java:$2 s=${3:-[0-9]+}$" "$WORK/raw" ||
			fail "no frame of $1 at com/acme/Invoices.java:$2${3:+ (from line $3)} in the pprof export: $(grep -E " $J\.$1 " "$WORK/raw" | head -3)"
	}
	# compiled frames at their calls, from the nmethods' scopes: computeTotals at the call
	# into the inlined applyRate, applyRate at its call of roundCents, descend at its
	# recursion and at its call of computeTotals
	at computeTotals "$(line_of 's = applyRate(s, i);')" "$first"
	at applyRate "$(line_of 'return roundCents(')"
	at descend "$(line_of 'return descend(depth - 1')"
	at descend "$(line_of 'return computeTotals(seed);')"
	# most Java methods met have their line: all but the JVM's own generated ones
	lines=$(sed -n 's/.*Java: .* \([0-9][0-9]*\) Methods met (each at its bytecodes), \([0-9][0-9]*\) of them not named, \([0-9][0-9]*\) named with their line; \([0-9][0-9]*\) inlined frames.*/\1 \2 \3 \4/p' \
		"$WORK/capture.err" | tail -1)
	read -r met unnamed with_line inlined <<<"$lines"
	awk -v m="${met:-0}" -v u="${unnamed:-0}" -v w="${with_line:-0}" 'BEGIN { exit !(m > u && w >= 0.8 * (m - u)) }' ||
		fail "only ${with_line:-0} of the $((${met:-0} - ${unnamed:-0})) named Java methods have a line"
	[ "${inlined:-0}" -gt 0 ] || fail "no inlined frame was read: $(grep -F 'Java:' "$WORK/capture.err")"
	echo "invoices: computeTotals in com/acme/Invoices.java from line $first, each frame at its call's line; $with_line of $((met - unnamed)) named methods with a line; $inlined inlined frames"
else
	echo "skipped: the methods' files and lines (no go tool pprof to read the pprof export)"
fi

# Java into C and back: settleBatch, called through JNI from the C that the native
# method viaNative runs, holds the whole round trip in order, each side by name.
B='com\.acme\.Bridge'
n=$(stacks bridge | awk 'index($0, "settleBatch") { s += $NF } END { print s + 0 }')
[ "$n" -ge 50 ] || fail "bridge: only $n samples in settleBatch: $(stacks bridge | sort -t' ' -k2 -nr | cut -c1-300 | head -3)"
share=$(stacks bridge | grep -F settleBatch | share_of "$B\.main;$B\.viaNative;Java_com_acme_Bridge_viaNative;bridge_call_back;jni_CallStaticLongMethod;([^;]+;)*JavaCalls::call_helper[^;]*;([^;]+;)*$B\.settleBatch( |;)")
awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }' ||
	fail "bridge: the round trip in order in only $share of settleBatch's $n samples: $(stacks bridge | grep -F settleBatch | sed 's/.*JavaMain;//' | cut -c1-400 | head -2)"
jq -e '[.functions[] | select((.name == "com.acme.Bridge.settleBatch" and .language == "Java") or
	(.name == "bridge_call_back" and .language == "C/C++"))] | length == 2' "$doc" >/dev/null ||
	fail "bridge: settleBatch is not Java or bridge_call_back not C: $(jq -c '[.functions[] | select(.name | test("Bridge|bridge"))]' "$doc")"
echo "bridge: Java -> C -> Java in order in $share of settleBatch's $n samples"

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
# The interpreted awaitSettlement's frame is at its call of Thread.sleep: the line of the
# bytecode its frame's bcp points at.
if command -v go >/dev/null; then
	"$SLIDEOPS" show "$(jq -r .id "$WORK/threads.json")" --export pprof "$WORK/threads.pb.gz" >/dev/null ||
		fail "no pprof export of the threads profile"
	go tool pprof -raw -symbolize=none "$WORK/threads.pb.gz" > "$WORK/raw" 2> "$WORK/raw.err" ||
		fail "go tool pprof cannot read the threads export: $(cat "$WORK/raw.err")"
	at awaitSettlement "$(line_of 'Thread.sleep(20);')"
	echo "threads: the interpreted awaitSettlement at its line $(line_of 'Thread.sleep(20);')"
fi

# The JVM that started mid-capture and was killed in it: found when first sampled, its
# Java frames named like the first one's (the source launcher compiling Invoices.java,
# then Invoices itself), and the capture whole.
[ -n "$(group shortlived)" ] || fail "shortlived: not sampled"
main=$(stacks shortlived | grep -F ";JavaMain;" || true)
n=$(awk '{ s += $NF } END { print s + 0 }' <<<"$main")
[ "$n" -ge 20 ] || fail "shortlived: only $n samples of its main thread"
named=$(share_of ";(com\.sun\.|com\.acme\.|java\.|jdk\.|sun\.)[^;]*\.[^;.]+( |;)" <<<"$main")
awk -v s="$named" 'BEGIN { exit !(s >= 0.8) }' ||
	fail "shortlived: Java methods named in only $named of its main thread's $n samples: $(grep -vE ';(com|java|jdk|sun)\.' <<<"$main" | cut -c1-300 | head -3)"
echo "shortlived: started mid-capture, Java methods named in $named of its main thread's $n samples"
echo "ok"
