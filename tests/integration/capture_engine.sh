#!/usr/bin/env bash
# The capture engine is never stalled by what the machine holds, and ends as it is told.
#
# Two hostile binaries run during a 2-second capture, each in its own unit's cgroup, next
# to an ordinary busy service:
#   many-sections  a working program whose section header table (in a 1 GB sparse file)
#                  has 60,000 entries, each a symbol table of 64 MB of nothing
#   huge-symtab    the same with 200 such tables: under the section cap, over the bytes
#                  and time a binary may cost
# The capture must end and be saved (before the engine, the same capture took from 25 s
# to more than 10 minutes), list both binaries as not read with their reason, and still
# answer for the ordinary service, naming its function.
# Then: SIGTERM during a long capture saves what was sampled; a second signal, sent while
# the capture waits for a binary it sampled (held there by a FUSE file system that answers
# slowly until it is sent), stops at once, leaving no BPF program attached and no profile
# half-written.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"

workload burn_normal_or_lightly worker

# A copy of the worker that still runs, with NSECTIONS section headers in a 1 GB sparse file.
make_hostile() { python3 "$(dirname "$0")/../tools/make-hostile-elf.py" "$@"; }
make_hostile "$WORK/worker" "$WORK/many-sections" 60000
make_hostile "$WORK/worker" "$WORK/huge-symtab" 200
[ "$(stat -c %s "$WORK/many-sections")" -gt 1000000000 ] || fail "the hostile file is not 1 GB"

tag=$$
cg_normal=$(make_cgroup "system.slice/slideops-normal-$tag.service")
cg_many=$(make_cgroup "system.slice/slideops-many-$tag.service")
cg_huge=$(make_cgroup "system.slice/slideops-huge-$tag.service")
start_in_cgroup "$cg_normal" "$WORK/worker" >/dev/null
start_in_cgroup "$cg_many" "$WORK/many-sections" light >/dev/null
start_in_cgroup "$cg_huge" "$WORK/huge-symtab" light >/dev/null
sleep 0.5

echo "== a 2-second capture beside hostile binaries"
start=$(date +%s%N)
timeout 60 "$SLIDEOPS" capture cpu -d 2 --json > "$WORK/capture.json" ||
	fail "the capture did not end within 60 s (or failed)"
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "took ${took_ms} ms"

# Both hostile binaries are listed as not read, each with its reason.
python3 - "$WORK/capture.json" "$WORK/many-sections" "$WORK/huge-symtab" "$tag" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
many, huge, tag = sys.argv[2], sys.argv[3], sys.argv[4]
not_read = {e['path']: e['reason'] for e in d['not_read']}
print('not read:', not_read)
print('groups:', [g['label'] for g in d['groups']])
assert many in not_read, 'the binary with 60,000 sections is not listed as not read'
assert 'sections' in not_read[many], not_read[many]
assert huge in not_read, 'the binary with 200 huge symbol tables is not listed as not read'
assert any(w in not_read[huge] for w in ('MB', 'ms', 'ran out')), not_read[huge]
groups = {g['label']: g for g in d['groups']}
normal = f'Unit slideops-normal-{tag}.service'
assert normal in groups, f'{normal} is missing: {list(groups)}'
assert groups[normal]['top_function'] == 'burn_normal', groups[normal]['top_function']
labels = [g['label'] for g in d['groups']]
for label in (f'Unit slideops-many-{tag}.service', f'Unit slideops-huge-{tag}.service'):
    assert label in groups, f'{label} is missing: its samples were lost'
    assert labels.index(normal) < labels.index(label), f'{label} ranks above {normal}'
# The answer is about the busiest group (on a quiet machine, the ordinary service).
first = d['groups'][0]
assert d['answer'].startswith(f"Over 2 seconds, {first['label']} used "), d['answer']
if first['label'] == normal:
    assert 'most of it in burn_normal' in d['answer'], d['answer']
PY
# Into a file, not a pipe: grep -q ends at the first match, and show, still writing, would
# end with SIGPIPE (a failure under pipefail) on a machine that ran grep first.
"$SLIDEOPS" show "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' \
	"$WORK/capture.json")" > "$WORK/show.out" || fail "show failed on the capture"
grep -q "Binaries not read" "$WORK/show.out" ||
	fail "show does not say which binaries were not read"

echo "== SIGTERM during a long capture keeps what was sampled"
before=$("$SLIDEOPS" profiles --json | json 'len(d["profiles"])')
"$SLIDEOPS" capture cpu -d 120 > "$WORK/term.out" 2> "$WORK/term.err" &
pid=$!
defer "kill -9 $pid 2>/dev/null"
wait_attached "$pid" || fail "the capture never started sampling: $(cat "$WORK/term.err")"
progs=$(held_programs "$pid")
sleep 2
kill -TERM "$pid"
wait "$pid" || fail "the capture ended with $? after SIGTERM: $(cat "$WORK/term.err")"
grep -q '^Profile ' "$WORK/term.out" || fail "no profile after SIGTERM: $(cat "$WORK/term.out")"
after=$("$SLIDEOPS" profiles --json | json 'len(d["profiles"])')
[ "$after" = $((before + 1)) ] || fail "SIGTERM did not keep the profile ($before -> $after)"
seconds=$("$SLIDEOPS" profiles --json | json 'd["profiles"][0]["seconds"]')
[ "$seconds" -lt 120 ] || fail "the profile says it ran $seconds s: the signal did not end it"
assert_unloaded "SIGTERM" "$progs"

echo "== a second signal stops at once, leaving nothing attached"
# The first signal ends sampling; the second must land while the capture works on what it
# sampled, before anything is saved, however fast or loaded the machine. That work is held
# where it waits for a binary: a copy of the worker of its own build (no table of it is
# kept, so its symbols are read) runs from a FUSE file system (tests/tools/gated_file.c).
# The capture reads a FUSE file only through a reader process of its own, which copies it
# (src/capture/guarded_read.c), and waits for that reader while it goes on answering: the
# file system answers the capture's readers one byte every 50 ms until the test opens the
# gate, so the copy is not done when sampling ends and the capture's main thread waits.
workload burn_normal_or_lightly_rebuilt worker-1
mkdir "$WORK/gated" "$WORK/gate" "$WORK/mnt"
cp "$WORK/worker-1" "$WORK/gated/worker-1"
# shellcheck disable=SC2046 # pkg-config's flags are words
gcc -O1 -o "$WORK/gated_file" "$(dirname "$0")/../tools/gated_file.c" \
	$(pkg-config --cflags --libs fuse3)
"$WORK/gated_file" "$WORK/gated/worker-1" "$WORK/mnt" 0 "$WORK/gate" \
	2> "$WORK/gated_file.err" &
fs_pid=$!
defer "touch '$WORK/gate/open'; kill -9 $fs_pid 2>/dev/null; umount -l '$WORK/mnt' 2>/dev/null"
for _ in $(seq 200); do
	[ -x "$WORK/mnt/worker-1" ] && break
	sleep 0.05
done
[ -x "$WORK/mnt/worker-1" ] ||
	fail "the gated file system did not mount: $(cat "$WORK/gated_file.err")"
# Busy, not light: sampled on any machine.
"$WORK/mnt/worker-1" &
defer "kill -9 $! 2>/dev/null"

before=$("$SLIDEOPS" profiles --json | json 'len(d["profiles"])')
# The gate knows the capture's pid before the capture starts its readers.
bash -c 'echo $$ > "$0/pid" && exec "$@"' "$WORK/gate" \
	"$SLIDEOPS" capture cpu -d 120 > /dev/null 2> "$WORK/second.err" &
pid=$!
defer "kill -9 $pid 2>/dev/null"
wait_attached "$pid" || fail "the capture never started sampling"
progs=$(held_programs "$pid")
sleep 2
kill -TERM "$pid"
# Its reader of worker-1 is at the gate (it met the process while sampling) ...
for _ in $(seq 1200); do
	[ -e "$WORK/gate/reached" ] && break
	[ -e "/proc/$pid" ] || break
	sleep 0.05
done
[ -e "$WORK/gate/reached" ] ||
	fail "the capture did not read worker-1 through a reader: $(cat "$WORK/second.err")"
# ... and the first signal was taken, so a second one is not merged with it: SIGTERM (bit
# 14 of the mask) is no longer caught. The capture now waits for the copy.
for _ in $(seq 200); do
	caught=$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
	(( (0x$caught & 0x4000) == 0 )) && break
	sleep 0.05
done
(( (0x$caught & 0x4000) == 0 )) || fail "the capture still catches SIGTERM after the first"
[ -e "/proc/$pid" ] || fail "the capture ended before the second signal: $(cat "$WORK/second.err")"
kill -TERM "$pid"
touch "$WORK/gate/open"
rc=0; wait "$pid" || rc=$?
echo "exit status $rc"
[ "$rc" = 143 ] || fail "a second signal did not stop the capture at once (exit status $rc)"
assert_unloaded "a second signal" "$progs"
after=$("$SLIDEOPS" profiles --json | json 'len(d["profiles"])')
[ "$after" = "$before" ] || fail "a profile was kept after the second signal"
# Whatever it kept is whole: every profile listed opens.
for id in $("$SLIDEOPS" profiles --json | json '" ".join(p["id"] for p in d["profiles"])'); do
	"$SLIDEOPS" show "$id" > /dev/null || fail "profile $id does not open"
done
echo "ok"
