#!/usr/bin/env bash
# JavaScript functions named while they are young (issue 29): a node's JSFunction is
# named when its sample is drained, by the pointer the kernel's walk read, and a young
# one that a scavenge moves or frees before then stays [JavaScript]. The capture drains
# every 5 ms while a node's functions are new (capture/session.c), and follows a function
# a scavenge moved from its old place's forwarding address (v8_function__describe).
# tests/workloads/closures.js makes its hot function a new closure (churn) every 4 ms
# while allocating so that a scavenge runs every ~5 ms (--max-semi-space-size=1): most
# of churn's samples must be named. Measured on 2 shared cores: 0.88-0.95 of them named,
# 0.45-0.49 before (a 100 ms drain, no forwarding), 0.67-0.68 with the drain alone.
# Each node found is tested: /usr/bin/node (NODE) and Debian's Node 18 of make deps
# (build/node18, NODE18_ROOT elsewhere).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"
workloads=$(cd "$(dirname "$0")/../workloads" && pwd)
NODE=${NODE:-/usr/bin/node}
root=${NODE18_ROOT:-$(dirname "$SLIDEOPS")/node18}
# At least 0.65: well above the 100 ms drain's 0.49, with room below 0.88 for a loaded
# machine (the drain is a thread of the capture's: starved, it names later).
MIN_SHARE=${NODE_YOUNG_MIN_SHARE:-0.65}

# one NAME NODE LIBRARY_PATH: a capture of 6 s, the node started 1 s in and killed 4 s
# later; churn's named share among its samples under the script's loop.
one() {
	local name=$1 node=$2 lib=$3 cg pid doc id n un share
	cg=$(make_cgroup "system.slice/slideops-test-$name.service")
	(
		sleep 1
		start_in_cgroup "$cg" env ${lib:+LD_LIBRARY_PATH="$lib"} \
			"$node" --max-semi-space-size=1 --no-turbo-inlining "$workloads/closures.js" \
			> "$WORK/$name.pid"
		sleep 4
		cg_kill "$cg"
	) &
	SLIDEOPS_DEBUG=1 "$SLIDEOPS" capture cpu -d 6 --json > "$WORK/$name.json" \
		2> "$WORK/$name.err" || fail "$name: capture failed: $(cat "$WORK/$name.err")"
	wait
	doc=$WORK/$name.json
	id=$(jq -r .id "$doc")
	"$SLIDEOPS" show "$id" --export folded "$WORK/folded" >/dev/null || fail "no folded export of $id"
	grep -F "JavaScript:" "$WORK/$name.err" || true
	# churn under the script's top level (Module._compile's callee), named or not (either
	# may have no sample at all: every one named is the best outcome, not an error)
	n=$(stacks "$name" | awk '/Module\._compile;\(anonymous\);churn( |;)/ { s += $NF }
		END { print s + 0 }')
	un=$(stacks "$name" | awk '/Module\._compile;\(anonymous\);\[JavaScript\]( |;)/ { s += $NF }
		END { print s + 0 }')
	[ $((n + un)) -ge 50 ] ||
		fail "$name: only $((n + un)) samples under the script's loop: $(stacks "$name" | sort -t' ' -k2 -nr | head -3 | cut -c1-400)"
	share=$(awk -v n="$n" -v u="$un" 'BEGIN { printf "%.2f", n / (n + u) }')
	awk -v s="$share" -v m="$MIN_SHARE" 'BEGIN { exit !(s >= m) }' ||
		fail "$name: churn named in only $share of its $((n + un)) samples (at least $MIN_SHARE expected)"
	echo "$name: churn named in $share of its $((n + un)) samples"
}

# readable NODE LIBRARY_PATH: it runs, and it or the libnode it links exports V8's
# layout constants (node.sh's condition)
readable() {
	local libnode
	"$1" --version >/dev/null 2>&1 || return 1
	libnode=$(env ${2:+LD_LIBRARY_PATH="$2"} ldd "$1" 2>/dev/null |
		awk '$1 ~ /^libnode\.so/ { print $3; exit }')
	[ "$(nm -D "$1" ${libnode:+"$libnode"} 2>/dev/null | grep -c v8dbg_off_fp_function)" -gt 0 ]
}
lib18=$root/usr/lib/x86_64-linux-gnu
if [ -x "$NODE" ] && readable "$NODE" ""; then
	tested=1
	one node "$NODE" ""
fi
if [ -x "$root/usr/bin/node" ] && LD_LIBRARY_PATH=$lib18 readable "$root/usr/bin/node" "$lib18"; then
	tested=1
	one node18 "$root/usr/bin/node" "$lib18"
fi
[ -n "${tested:-}" ] || skip "no node at $NODE, none in $root (make deps)"
echo "ok"
