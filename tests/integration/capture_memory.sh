#!/usr/bin/env bash
# `slideops capture memory` on the real kernel. C programs with known function names run
# in real cgroups named as systemd units name theirs:
#   grower  grows its heap by 4 MB every 100 ms in load_dataset and keeps it
#   churner allocates and frees 8 MB over and over in churn_buffers: much growth, no net
#   mapper  reads a file through a mapping in map_file: file-backed growth only
# The capture must name grower's group and function, report its net growth close to
# what it touched, keep churner's net near zero however much it grew, report mapper's
# growth as file_bytes apart, and word the answer as architecture.md does (led by the owner
# whose resident memory grew the most).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
can_answer memory

SECONDS_CAPTURE=4

workload grow_churn_and_map mem
for n in grower churner mapper; do cp "$WORK/mem" "$WORK/$n"; done
# The mapped file's pages are file-backed only on a file system with a page cache of its
# own: on tmpfs (the kernel matrix's guests have /tmp there) they are shared memory, which
# the kernel counts with anonymous memory (RssShmem). There the mapper maps a large file
# the machine already has, from another file system.
data="$WORK/data"
if [ "$(stat -f -c %T "$WORK")" = tmpfs ]; then
	data=""
	for f in /usr/bin/node "$(gcc -print-prog-name=cc1 2>/dev/null)" \
		/usr/lib/jvm/*/lib/server/libjvm.so "$SLIDEOPS"; do
		[ -f "$f" ] && [ "$(stat -f -c %T "$f")" != tmpfs ] &&
			[ "$(stat -L -c %s "$f")" -ge $((16 << 20)) ] && { data=$f; break; }
	done
	[ -n "$data" ] || skip "no file of 16 MB or more outside tmpfs to map"
else
	head -c $((32 << 20)) /dev/urandom > "$data"
fi

cg_grower=$(make_cgroup system.slice/slideops-test-grower.service)
cg_churner=$(make_cgroup system.slice/slideops-test-churner.service)
cg_mapper=$(make_cgroup system.slice/slideops-test-mapper.service)
start_in_cgroup "$cg_churner" "$WORK/churner" >/dev/null
start_in_cgroup "$cg_mapper" "$WORK/mapper" "$data" >/dev/null
start_in_cgroup "$cg_grower" "$WORK/grower" "$WORK/grown" >/dev/null
# Until the grower has grown once (at once here; seconds in an emulated guest).
for _ in $(seq 300); do [ -s "$WORK/grown" ] && break; sleep 0.1; done
[ -s "$WORK/grown" ] || fail "the grower did not start growing within 30 s"
sleep 0.5

before=$(tail -1 "$WORK/grown")
t0=$(date +%s%N)
"$SLIDEOPS" capture memory -d "$SECONDS_CAPTURE" --json > "$WORK/capture.json" 2> "$WORK/capture.err" ||
	fail "capture memory failed: $(cat "$WORK/capture.err")"
after=$(tail -1 "$WORK/grown")
t1=$(date +%s%N)
cg_kill "$cg_grower"
doc="$WORK/capture.json"
group() { jq -c --arg l "Unit slideops-test-$1.service" '.groups[] | select(.label == $l)' "$doc"; }

jq -e '.question == "memory" and .unit == "bytes"' "$doc" >/dev/null ||
	fail "question/unit: $(jq -c '{question, unit}' "$doc")"
g=$(group grower)
[ -n "$g" ] || fail "no group for the growing heap: $(jq -c '[.groups[] | {l: .label, v: .value}]' "$doc")"
[ "$(jq -r .top_function <<<"$g")" = load_dataset ] || fail "grower grows mostly elsewhere: $g"
# No more than it touched while the command ran (which is longer than sampling), within
# a counter batch per CPU; at least half of what it touched in the sampled seconds at the
# rate it grew while the command ran (40 MB a second on a quiet machine; less on a
# loaded one, or under emulation, where the command's own start and end take longer).
most=$((after - before + 12582912))
rate=$(awk -v b=$((after - before)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", b / (ns / 1e9) }')
jq -e --argjson m "$most" --argjson s "$(jq .seconds "$doc")" --argjson r "$rate" \
	'.net_bytes <= $m and .net_bytes >= 0.5 * $r * $s' <<<"$g" >/dev/null ||
	fail "grower touched $((after - before)) bytes while the capture ran ($rate bytes a second); its net growth says $(jq .net_bytes <<<"$g")"

c=$(group churner)
[ -n "$c" ] || fail "no group for the churning process"
jq -e '.value >= 33554432 and (.net_bytes | fabs) <= 16777216' <<<"$c" >/dev/null ||
	fail "churner grew much and gave it back: its net growth is not near zero: $c"
m=$(group mapper)
# Its 32 MB a second are file-backed: reported apart, not as its growth. At least 2 MB
# (half a counter batch on 6.1, which folds 64 faults of 16 pages): under emulation its
# reads of the guest's 9p root take most of the capture.
[ -n "$m" ] && jq -e '.file_bytes >= 2097152 and (.net_bytes | fabs) <= 4194304' <<<"$m" >/dev/null ||
	fail "mapper's file-backed growth is not reported apart: $m"

answer=$(jq -r .answer "$doc")
re='^Over ([0-9]+) seconds, (.+) grew by ([0-9.]+ [kMG]?B) \(RSS\)(, most of it allocated in ([^ ]+))?\.( Next was .+)?$'
[[ $answer =~ $re ]] || fail "the answer is not in architecture.md's form: $answer"
# It names the owner whose resident memory grew the most: on a quiet machine the grower
# (on a shared one, another process may have grown more).
most_grown=$(jq -r '[.groups[] | select(.rss_grown_bytes > 0)] | max_by(.rss_grown_bytes) | .label' "$doc")
[ "${BASH_REMATCH[2]}" = "$most_grown" ] ||
	fail "the answer does not name the group that grew the most ($most_grown): $answer"
if [ "${BASH_REMATCH[2]}" = "Unit slideops-test-grower.service" ]; then
	[ "${BASH_REMATCH[5]}" = load_dataset ] || fail "most of it in: $answer"
fi

id=$(jq -r .id "$doc")
"$SLIDEOPS" show "$id" --export folded "$WORK/mem.folded" >/dev/null || fail "folded export failed"
grep -q '^Unit slideops-test-grower.service;grower;.*load_dataset' "$WORK/mem.folded" ||
	fail "the folded export has no grower stack"
"$SLIDEOPS" show "$id" --flamegraph "$WORK/mem.html" >/dev/null || fail "flamegraph failed"
grep -q load_dataset "$WORK/mem.html" || fail "the flame graph has no load_dataset"
[ "$("$SLIDEOPS" show "$id" --json | jq -r .answer)" = "$answer" ] || fail "show's answer differs"
echo "ok"
