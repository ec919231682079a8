#!/usr/bin/env bash
# Python functions by name, and runtimes' code in its language, from `slideops capture cpu`.
# Real interpreters run real programs, each in a cgroup named as systemd names a unit's:
#   py38 .. py313, debian311  a request loop: handle() calls build_report (3/4 of the work)
#                             then render_page (1/4), with pyenv's CPython 3.8-3.13 and
#                             Debian's stripped /usr/bin/python3.11
#   pythreads38, pythreads312 two threads, one in spin_alpha, one in spin_beta
#   pyext                     call_native() calls ext_burn, a C extension built here
#   java, node                busy loops in Java (OpenJDK 17) and JavaScript (Node.js)
# Each loop's process: >= 90% of its samples carry its Python frames (<module>, then handle,
# then build_report or render_page, in that order wherever they are), and its group is "most of it in" build_report. Both threads' functions are
# named; ext_burn sits beneath call_native; java and node get a [Java] / [JavaScript]
# frame in that language and named native frames.
source "$(dirname "$0")/lib.sh"
[ -n "${KEEP_WORK:-}" ] && defer "cp -r $WORK /tmp/python-it-kept"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"

SECONDS_CAPTURE=${PYTHON_CAPTURE_SECONDS:-10}
PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions

cat > "$WORK/loop.py" <<'PY'
import sys


def build_report(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def render_page(n):
    s = 0
    for i in range(n):
        s += i ^ 3
    return s


def handle():
    build_report(30000)
    render_page(10000)


while True:
    handle()
PY

cat > "$WORK/threads.py" <<'PY'
import threading


def spin_alpha():
    while True:
        s = 0
        for i in range(10000):
            s += i * i


def spin_beta():
    while True:
        s = 0
        for i in range(10000):
            s += i ^ 5


threading.Thread(target=spin_alpha, daemon=True).start()
threading.Thread(target=spin_beta, daemon=True).start()
threading.Event().wait()
PY

cat > "$WORK/ext.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import burnext


def call_native():
    burnext.burn(2000000)


while True:
    call_native()
PY

cat > "$WORK/burnext.c" <<'C'
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void ext_burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * i;
}

static PyObject *burn(PyObject *self, PyObject *args)
{
	long n;

	if (!PyArg_ParseTuple(args, "l", &n))
		return NULL;
	ext_burn(n);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = { { "burn", burn, METH_VARARGS, "" }, { NULL, NULL, 0, NULL } };
static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "burnext", NULL, -1, methods,
				     NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit_burnext(void)
{
	return PyModule_Create(&module);
}
C

started=()
# start NAME CMD...: CMD in the cgroup of unit slideops-test-NAME.service.
start() {
	local name=$1; shift
	local cg
	cg=$(make_cgroup "system.slice/slideops-test-$name.service")
	start_in_cgroup "$cg" "$@" >/dev/null
	started+=("$name")
}

loops=()
for v in 8 9 10 11 12 13; do
	py=$(ls -d "$PYENV"/3."$v".*/bin/python3."$v" 2>/dev/null | head -1 || true)
	if [ -z "$py" ]; then
		echo "skipped: CPython 3.$v is not installed under $PYENV"
		continue
	fi
	start "py3$v" "$py" "$WORK/loop.py"
	loops+=("py3$v")
	case $v in
	8) start pythreads38 "$py" "$WORK/threads.py" ;;
	12) start pythreads312 "$py" "$WORK/threads.py" ;;
	11)
		inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
		mkdir -p "$WORK/ext"
		gcc -O1 -shared -fPIC -I"$inc" -o "$WORK/ext/burnext$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" \
			"$WORK/burnext.c"
		start pyext "$py" "$WORK/ext.py" "$WORK/ext"
		;;
	esac
done
if [ -x /usr/bin/python3.11 ]; then
	start debian311 /usr/bin/python3.11 "$WORK/loop.py"
	loops+=(debian311)
else
	echo "skipped: Debian's /usr/bin/python3.11 is not installed"
fi
[ ${#loops[@]} -gt 0 ] || skip "no CPython 3.8-3.13 to test with"

if command -v javac >/dev/null && command -v java >/dev/null; then
	mkdir -p "$WORK/java"
	cat > "$WORK/java/Spin.java" <<'JAVA'
public class Spin {
	static long sink;

	static long step(long i) {
		return i * 31 + (i >>> 3);
	}

	public static void main(String[] args) {
		for (long i = 0;; i++)
			sink += step(i);
	}
}
JAVA
	javac -d "$WORK/java" "$WORK/java/Spin.java"
	start java java -cp "$WORK/java" Spin
else
	echo "skipped: no OpenJDK (javac, java)"
fi
if command -v node >/dev/null; then
	cat > "$WORK/spin.js" <<'JS'
let sink = 0;
function step(i) { return (i * 31) ^ (i >>> 3); }
for (;;) { for (let i = 0; i < 1e6; i++) sink += step(i); sink %= 1e9; }
JS
	start node node "$WORK/spin.js"
else
	echo "skipped: no Node.js"
fi
sleep 1

"$SLIDEOPS" capture cpu -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --export folded "$WORK/folded" || fail "no folded export of $id"

label() { echo "Unit slideops-test-$1.service"; }
group() { jq -c --arg l "$(label "$1")" '.groups[] | select(.label == $l)' "$doc"; }
# The folded stacks of a group: FRAME;...;LEAF VALUE (group and comm taken off).
stacks() { grep -F "$(label "$1");" "$WORK/folded" | cut -d';' -f3- || true; }
# share PATTERN < stacks: the share of the value of lines matching the extended regex.
share_of() {
	awk -v re="$1" '{ v = $NF; all += v; if ($0 ~ re) hit += v }
		END { if (all == 0) print 0; else printf "%.3f\n", hit / all }'
}

for name in "${loops[@]}"; do
	[ -n "$(group "$name")" ] || fail "no group $(label "$name"): $(jq -c '[.groups[].label]' "$doc")"
	n=$(stacks "$name" | awk '{ s += $NF } END { print s + 0 }')
	[ "$n" -ge 20 ] || fail "$name: only $n samples"
	# The module's frame at the root of the Python frames (the loop runs there), and
	# handle above it wherever build_report or render_page runs; CPython's own C
	# functions may sit between them (3.8-3.10).
	share=$(stacks "$name" | share_of '(^|;)<module>(;| )')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.90) }' ||
		fail "$name: only $share of $n samples carry the Python chain: $(stacks "$name" | grep -v '<module>' | head -3)"
	wrong=$(stacks "$name" | grep -E '(^|;)(build_report|render_page)(;| )' |
		grep -vE '(^|;)<module>;([^;]+;)*handle;([^;]+;)*(build_report|render_page)(;| )' || true)
	[ -z "$wrong" ] || fail "$name: a Python chain out of order: $(echo "$wrong" | head -2)"
	top=$(group "$name" | jq -r .top_function)
	[ "$top" = build_report ] || fail "$name: most of it in '$top', not build_report"
	echo "$name: $share of $n samples with the Python chain, most of it in $top"
done

for name in pythreads38 pythreads312; do
	[[ " ${started[*]} " == *" $name "* ]] || continue
	for f in spin_alpha spin_beta; do
		stacks "$name" | grep -qE "(^|;)$f(;| )" ||
			fail "$name: the thread running $f is not named: $(stacks "$name" | head -3)"
	done
	echo "$name: spin_alpha and spin_beta named"
done

if [[ " ${started[*]} " == *" pyext "* ]]; then
	share=$(stacks pyext | share_of '(^|;)call_native;([^;]+;)*ext_burn( |;)')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.5) }' ||
		fail "pyext: ext_burn is beneath call_native in only $share: $(stacks pyext | head -3)"
	echo "pyext: ext_burn beneath call_native in $share of samples"
fi

# A runtime's JIT code is one frame of its language, its own C/C++ code named.
jit() {
	local name=$1 frame=$2 lang=$3
	[[ " ${started[*]} " == *" $name "* ]] || return 0
	stacks "$name" | grep -qF "$frame" ||
		fail "$name: no $frame frame: $(stacks "$name" | head -3)"
	jq -e --arg f "$frame" --arg l "$lang" '[.functions[] | select(.name == $f and .language == $l)] | length == 1' \
		"$doc" >/dev/null || fail "$frame is not a $lang function: $(jq -c --arg f "$frame" '[.functions[] | select(.name == $f)]' "$doc")"
	stacks "$name" | grep -qF "$frame;$frame" &&
		fail "$name: a run of $frame frames is not one: $(stacks "$name" | grep -F "$frame;$frame" | head -1)"
	stacks "$name" | grep -qE "\\[[A-Za-z]+\\]\\+0x|;\\[anon\\]" &&
		fail "$name: JIT code left as raw addresses: $(stacks "$name" | grep -E '\[anon\]' | head -2)"
	stacks "$name" | tr ';' '\n' | grep -vE '^\[|\+0x' | grep -qE '^[A-Za-z_]' ||
		fail "$name: no named native frame"
	echo "$name: $frame frames in $lang"
}
jit java "[Java]" Java
jit node "[JavaScript]" JavaScript
echo "ok"
