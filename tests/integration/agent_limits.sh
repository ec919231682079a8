#!/usr/bin/env bash
# The agent within its own limits. It runs in a cgroup bounded as its systemd unit bounds
# it (dist/slideops-agent.service: MemoryHigh, MemoryMax, CPUQuota, TasksMax, read from
# the unit), against a stand-in workspace (python3 on loopback, the protocol's messages
# encoded here) that asks for a capture and refuses its delivery (503: the agent keeps
# it in its spool), then asks for a long capture. Killed with SIGKILL while it samples
# (as the OOM killer kills), the agent leaves no BPF program loaded and no link attached
# (bpftool prog list, bpftool link); started again, it is clean (no program, no link
# before a capture is asked for) and sends what its spool kept, once the workspace
# takes it. Prints the cgroup's peak memory and CPU time.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
command -v bpftool >/dev/null || skip "bpftool is not installed (make deps installs it)"
[ -n "$CGROUP2" ] || skip "no cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture: $("$SLIDEOPS" check 2>&1 | head -1)"
unit=$(dirname "$0")/../../dist/slideops-agent.service

# The unit's bounds, as systemd would set them on the agent's cgroup.
unit_value() { sed -n "s/^$1=//p" "$unit"; }
bytes() { numfmt --from=iec "$1"; }
mem_high=$(unit_value MemoryHigh) mem_max=$(unit_value MemoryMax)
quota=$(unit_value CPUQuota) tasks=$(unit_value TasksMax)
[ -n "$mem_high" ] && [ -n "$mem_max" ] && [ -n "$quota" ] && [ -n "$tasks" ] ||
	fail "the unit does not bound the agent: MemoryHigh='$mem_high' MemoryMax='$mem_max' CPUQuota='$quota' TasksMax='$tasks'"
# The cgroup of the agent, bounded: on cgroup2 when its memory and cpu controllers are
# there, else on cgroup v1's (a hybrid machine: memory.high has no v1 form there).
# AGENT_CGROUPS: the cgroup.procs files the agent's pid goes to.
name=slideops-agent-limits-$$
if grep -qw memory "$CGROUP2/cgroup.controllers" && grep -qw cpu "$CGROUP2/cgroup.controllers"; then
	cg=$(make_cgroup "system.slice/$name.service")
	for c in memory cpu pids; do
		echo "+$c" > "$(dirname "$cg")/cgroup.subtree_control" 2>/dev/null ||
			skip "the $c controller cannot be enabled on $(dirname "$cg")"
	done
	bytes "$mem_high" > "$cg/memory.high"
	bytes "$mem_max" > "$cg/memory.max"
	echo "$(( ${quota%\%} * 1000 )) 100000" > "$cg/cpu.max"
	echo "$tasks" > "$cg/pids.max"
	AGENT_CGROUPS=("$cg/cgroup.procs")
	peak() { echo $(( $(cat "$cg/memory.peak") >> 20 )); }
	cpu_s() { awk '/^usage_usec/ { printf "%.2f", $2 / 1e6 }' "$cg/cpu.stat"; }
	echo "the agent's cgroup (cgroup2): memory.high $(cat "$cg/memory.high") memory.max $(cat "$cg/memory.max") cpu.max $(cat "$cg/cpu.max") pids.max $(cat "$cg/pids.max")"
elif [ -d /sys/fs/cgroup/memory ] && [ -d /sys/fs/cgroup/cpu ] && [ -d /sys/fs/cgroup/pids ]; then
	v1=/sys/fs/cgroup
	AGENT_CGROUPS=()
	for c in memory cpu pids $( [ -d $v1/cpuacct ] && echo cpuacct ); do
		mkdir "$v1/$c/$name"
		defer "cg_kill '$v1/$c/$name'; rmdir '$v1/$c/$name' 2>/dev/null"
		AGENT_CGROUPS+=("$v1/$c/$name/cgroup.procs")
	done
	bytes "$mem_max" > "$v1/memory/$name/memory.limit_in_bytes"
	echo 100000 > "$v1/cpu/$name/cpu.cfs_period_us"
	echo $(( ${quota%\%} * 1000 )) > "$v1/cpu/$name/cpu.cfs_quota_us"
	echo "$tasks" > "$v1/pids/$name/pids.max"
	peak() { echo $(( $(cat "$v1/memory/$name/memory.max_usage_in_bytes") >> 20 )); }
	cpu_s() {
		if [ -e "$v1/cpuacct/$name/cpuacct.usage" ]; then
			awk '{ printf "%.2f", $1 / 1e9 }' "$v1/cpuacct/$name/cpuacct.usage"
		else
			echo "?"
		fi
	}
	echo "the agent's cgroups (v1): memory.limit_in_bytes $(cat "$v1/memory/$name/memory.limit_in_bytes") (MemoryHigh has no v1 form) cpu.cfs_quota_us $(cat "$v1/cpu/$name/cpu.cfs_quota_us")/$(cat "$v1/cpu/$name/cpu.cfs_period_us") pids.max $(cat "$v1/pids/$name/pids.max")"
else
	skip "no memory and cpu controllers to bound the agent with"
fi

workload spin_limits spin
start_in_cgroup "$(make_cgroup system.slice/agent-limits-spin.service)" "$WORK/spin" >/dev/null

# The stand-in workspace. Its state is files in $WORK/stand-in/: "accept" makes it take
# batches; it logs every request in log.
mkdir "$WORK/stand-in"
cat > "$WORK/stand-in.py" <<'PY'
import http.server, os, sys, time
state = sys.argv[1]
V = 2  # the protocol version (src/agent/agent_state.h)

def varint(n):
    out = b''
    while True:
        b, n = n & 0x7f, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out
def num(no, v): return varint(no << 3) + varint(v)
def text(no, s): return varint(no << 3 | 2) + varint(len(s)) + s
def capture(name, seconds):
    cmd = num(1, 1) + text(2, b'cmd-' + name) + text(3, b'cap-' + name) + text(4, b'cpu') + num(5, seconds)
    return num(1, V) + text(2, cmd)

def log(line):
    with open(os.path.join(state, 'log'), 'a') as f:
        f.write(line + '\n')
def have(name): return os.path.exists(os.path.join(state, name))
def mark(name): open(os.path.join(state, name), 'w').close()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length') or 0))
        code, body = 200, num(1, V)
        if self.path == '/agent/poll':
            # A first capture, then, once its delivery was refused, a long one; then nothing.
            if not have('asked-a'):
                mark('asked-a'); body = capture(b'a', 1)
            elif have('refused') and not have('asked-b'):
                mark('asked-b'); body = capture(b'b', 120)
            else:
                time.sleep(2)
        elif self.path == '/agent/batch':
            if have('accept'):
                body = num(1, V) + text(2, b'stand-in-profile')
                log('batch stored')
            else:
                code, body = 503, b'{"error": "the stand-in keeps nothing yet", "hint": null}'
                mark('refused')
                log('batch refused')
        log('%s -> %d' % (self.path, code))
        self.send_response(code)
        self.send_header('Content-Type', 'application/json' if code != 200 else 'application/x-protobuf')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, fmt, *args):
        pass
http.server.ThreadingHTTPServer.daemon_threads = True
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$WORK/stand-in.py" "$WORK/stand-in" > "$WORK/stand-in.port" 2> "$WORK/stand-in.err" &
defer "kill $! 2>/dev/null"
for _ in $(seq 100); do [ -s "$WORK/stand-in.port" ] && break; sleep 0.1; done
port=$(cat "$WORK/stand-in.port")
[ -n "$port" ] || fail "the stand-in workspace did not start: $(cat "$WORK/stand-in.err")"

# An enrolled agent's data directory (the stand-in takes any credential).
mkdir -m 700 "$WORK/agent"
printf '{"server_id":"s1","credential":"%064d","name":"limits"}' 1 > "$WORK/agent/credential"
chmod 600 "$WORK/agent/credential"
start_agent() {
	bash -c 'for f in $0; do echo $$ > "$f" || exit 1; done && exec "$@"' "${AGENT_CGROUPS[*]}" \
		"$SLIDEOPS" agent --workspace "http://127.0.0.1:$port" --data "$WORK/agent" \
		>> "$WORK/agent.out" 2>> "$WORK/agent.err" &
	AGENT=$!
	defer "kill -9 $AGENT 2>/dev/null"
}
# wait_for WHAT COMMAND...: until COMMAND succeeds (60 s at most).
wait_for() {
	local what=$1; shift
	for _ in $(seq 600); do
		"$@" && return 0
		kill -0 "$AGENT" 2>/dev/null || fail "the agent exited while waiting for $what: $(tail -5 "$WORK/agent.err")"
		sleep 0.1
	done
	fail "$what never happened; the agent said: $(tail -5 "$WORK/agent.err"); the stand-in saw: $(tail -5 "$WORK/stand-in/log" 2>/dev/null)"
}
held_links() { { cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '$1 == "link_id:" { print $2 }' | sort -u; }
spooled() { local f n=0; for f in "$WORK"/agent/spool/batch-*; do [ -e "$f" ] && n=$((n + 1)); done; echo "$n"; }
sampling() { [ -n "$(held_links "$AGENT")" ] && [ -e "$WORK/stand-in/asked-b" ]; }

start_agent
# The first capture ends; its delivery is refused; it stays in the spool.
wait_for "a refused delivery" test -e "$WORK/stand-in/refused"
[ "$(spooled)" = 1 ] || fail "the refused capture is not in the spool: $(ls -la "$WORK/agent/spool")"
# The long capture samples: the agent holds programs and links.
wait_for "the long capture sampling" sampling
progs=$(held_programs "$AGENT")
links=$(held_links "$AGENT")
[ -n "$progs" ] || fail "the sampling agent holds no BPF program"
echo "the agent samples: programs $(paste -sd' ' <<<"$progs"), links $(paste -sd' ' <<<"$links")"
echo "its cgroup so far: peak memory $(peak) MB, cpu $(cpu_s) s"

# SIGKILL while it samples: nothing of it stays in the kernel.
kill -KILL "$AGENT"
wait "$AGENT" 2>/dev/null || true
assert_unloaded "the agent was killed with SIGKILL while sampling" "$progs"
for p in $progs; do
	! bpftool prog list | has "^$p:" || fail "bpftool prog list still has the killed agent's program $p"
done
for l in $links; do
	! bpftool link show id "$l" >/dev/null 2>&1 || fail "the killed agent's link $l is still attached"
done
[ "$(spooled)" = 1 ] || fail "the spool lost the refused capture with the kill: $(ls -la "$WORK/agent/spool")"

# Started again: clean, and it sends what its spool kept once the workspace takes it.
touch "$WORK/stand-in/accept"
start_agent
wait_for "the spooled capture stored" grep -q "batch stored" "$WORK/stand-in/log"
wait_for "the spool emptied" test "$(spooled)" = 0
[ -z "$(held_programs "$AGENT")" ] && [ -z "$(held_links "$AGENT")" ] ||
	fail "the agent started again holds BPF programs or links before any capture: $(held_programs "$AGENT" | paste -sd' ')"
kill -TERM "$AGENT"
wait "$AGENT" || fail "the agent did not exit 0 on SIGTERM: $(tail -5 "$WORK/agent.err")"
echo "the agent's cgroup in all: peak memory $(peak) MB (MemoryMax $mem_max), cpu $(cpu_s) s (CPUQuota $quota)"
echo "ok"
