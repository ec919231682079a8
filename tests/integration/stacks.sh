#!/usr/bin/env bash
# Complete stacks on the real kernel, whatever the code was built with. Programs built
# here run in real cgroups named as systemd units name theirs:
#   nofp        -O2 -fomit-frame-pointer (PIE): main -> nofp_outer -> nofp_middle -> nofp_inner
#   nofp-nopie  the same, not PIE
#   memcpy      frame pointers, its time in libc's memcpy (no frame pointers) called by
#               copy_block
#   qsort       frame pointers, libc's qsort calling back into compare_items
#   pipe        frame pointers, libc's read on a pipe that is always ready, from read_chunk
#   plugin      a library built -fomit-frame-pointer, loaded with dlopen once sampling has
#               begun: main -> run_plugin -> plugin_work -> plugin_inner
# For each: >= 95% of its samples reach main with every caller present, in order, the
# group's "most of it in" names the deepest function of its own code (the caller of
# memcpy, not the caller's caller), the profile's stack quality says the stacks are
# whole, and a cut stack ends in [truncated], never silently short.
#
# Tables are built once per binary and cached under the workspace's profiler directory:
# a first short capture fills the cache, as on any server profiled before; the second is
# the one checked (a process's first samples, before its tables are in, use frame
# pointers).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer cpu

SECONDS_CAPTURE=${SECONDS_CAPTURE:-10}

workload stack_chains_nofp nofp
workload stack_chains_nofp_nopie nofp-nopie
workload stack_chains fp
workload plugin_inner_chain libplugin.so
for n in memcpy qsort pipe plugin; do cp "$WORK/fp" "$WORK/$n"; done
file "$WORK/nofp-nopie" | has "LSB executable" || fail "nofp-nopie is PIE: $(file "$WORK/nofp-nopie")"

# name: the chain each sample of the group must hold, root first (contiguous), and the
# function its "most of it in" must name.
declare -A chain top
chain[nofp]="main;nofp_outer;nofp_middle;nofp_inner"; top[nofp]=nofp_inner
chain[nofp-nopie]="main;nofp_outer;nofp_middle;nofp_inner"; top[nofp-nopie]=nofp_inner
chain[memcpy]="main;copy_loop;copy_block"; top[memcpy]=copy_block
chain[qsort]="main;sort_loop"; top[qsort]=compare_items
chain[pipe]="main;read_loop;read_chunk"; top[pipe]=read_chunk
chain[plugin]="main;run_plugin;plugin_work;plugin_inner"; top[plugin]=plugin_inner
names="nofp nofp-nopie memcpy qsort pipe plugin"

start_all() {
	local n
	for n in $names; do
		local cg
		cg=$(make_cgroup "system.slice/slideops-stk-$n.service")
		if [ "$n" = plugin ]; then
			start_in_cgroup "$cg" "$WORK/$n" "$WORK/libplugin.so" >/dev/null
		else
			start_in_cgroup "$cg" "$WORK/$n" >/dev/null
		fi
	done
}

# A first capture fills the table cache (and proves a cold start works).
start_all
"$SLIDEOPS" capture cpu -d 3 > /dev/null 2> "$WORK/warm.err" || fail "the first capture failed: $(cat "$WORK/warm.err")"
[ -n "$(ls "$SLIDEOPS_DATA/profiler/unwind" 2>/dev/null)" ] ||
	fail "no unwind table was cached under $SLIDEOPS_DATA/profiler/unwind"
for n in $names; do cg_kill "$CGROUP2/system.slice/slideops-stk-$n.service"; done

start_all
sleep 0.5
"$SLIDEOPS" capture cpu -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture failed: $(cat "$WORK/capture.err")"
doc="$WORK/capture.json"
id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --export folded - > "$WORK/stacks.folded" || fail "folded export failed"

# The share (by value) of the folded stacks of GROUP's processes named COMM holding CHAIN
# contiguously, and how many of them end in [truncated].
chain_share() {
	python3 - "$WORK/stacks.folded" "$1" "$2" "$3" <<'PY'
import sys
path, group, comm, chain = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(";")
total = held = cut = 0
for line in open(path):
    stack, _, value = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if frames[0] != group or frames[1] != comm:
        continue
    v = int(value)
    total += v
    frames = frames[2:]
    if "[truncated]" in frames:
        cut += v
    if any(frames[i:i + len(chain)] == chain for i in range(len(frames))):
        held += v
print(f"{held / total if total else 0:.4f} {total} {cut}")
PY
}

# A process's samples before its tables are in are walked by frame pointers, and the
# profile counts them (stack_quality.exits.no_process_tables, over every process). On a
# real CPU, loading cached tables takes milliseconds. In the kernel matrix's emulated guests
# (which set SLIDEOPS_READ_TIME_FACTOR) it takes seconds: on 6.1 under TCG a process
# waited for its cached tables 1.0 s on average, 3.7 s at most, and nofp's cut samples
# were all of them, its pc the same as its whole samples' (0x1410, nofp_inner's loop head,
# where TCG delivers interrupts): frame pointers found nofp_inner, then 0, a
# [truncated] stack. There, samples of that count may be short too; anywhere else,
# 95% must be whole.
no_tables=0
[ "${SLIDEOPS_READ_TIME_FACTOR:-1}" -gt 1 ] 2>/dev/null &&
	no_tables=$(jq '.stack_quality.exits.no_process_tables // 0' "$doc")
for n in $names; do
	label="Unit slideops-stk-$n.service"
	read -r share total cut <<< "$(chain_share "$label" "$n" "${chain[$n]}")"
	[ "$total" -ge 30 ] || fail "$n: only $total samples of $label"
	awk -v s="$share" -v t="$total" -v f="$no_tables" \
		'BEGIN { exit !(s >= 0.95 || (1 - s) * t <= 0.05 * t + f) }' ||
		fail "$n: $share of its samples hold ${chain[$n]} ($no_tables walked before tables were in); the others: $(grep "^$label;$n;" "$WORK/stacks.folded" | grep -v ";${chain[$n]}" | head -8)"
	got=$(jq -r --arg l "$label" '.groups[] | select(.label == $l) | .top_function' "$doc")
	[ "$got" = "${top[$n]}" ] || fail "$n: most of it in '$got', not ${top[$n]}"
	echo "  $n: $share of $total samples whole, $cut cut, most of it in $got"
done

# The profile says how whole its stacks are, and why the others stop.
jq -e '.stack_quality.complete > 0 and (.stack_quality.exits | has("no_table") and has("read_fault")
	and has("depth") and has("table_miss"))' "$doc" >/dev/null ||
	fail "stack_quality: $(jq -c .stack_quality "$doc")"
"$SLIDEOPS" show "$id" --json | jq -e --argjson q "$(jq -c .stack_quality "$doc")" '.stack_quality == $q' \
	>/dev/null || fail "show --json's stack_quality is not the capture's: $("$SLIDEOPS" show "$id" --json | jq -c .stack_quality)"
"$SLIDEOPS" show "$id" | has "^Stacks: [0-9<]*% of user stacks are whole" ||
	fail "the text report has no stack quality line: $("$SLIDEOPS" show "$id" | head -5)"
# A [truncated] frame is a frame of its own kind, never a function of a group.
jq -e '[.groups[].top_function] | index("[truncated]") | not' "$doc" >/dev/null ||
	fail "a group is mostly in [truncated]: $(jq -c '[.groups[] | {label, top_function}]' "$doc")"
# check shows the tables' memory budget.
check_json | jq -e '[.requirements[] | select(.name == "unwind tables" and .ok
	and (.detail | test("^a budget of 64 MB of kernel memory")))] | length == 1' >/dev/null ||
	fail "check does not show the unwind tables' budget: $(check_json | jq -c .requirements)"
echo "ok"
