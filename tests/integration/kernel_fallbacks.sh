#!/usr/bin/env bash
# What older kernels get, on this one: SLIDEOPS_KERNEL_LACKS makes the loader pretend the
# named features are missing (docs/kernel.md), so it loads the programs and objects it
# would load there: the exit program from the tracepoint's one argument (6.1, 6.12) and
# the threads and wall objects built for kernels without arg:trusted (before 6.8). Every
# question still runs; `check` says per question what it cannot see, and why; the cpu,
# wall and threads tests pass with them (the answers name the right group and function).
# Features no variant does without (sleepable iterators, ...) make check say which is
# missing; without bpf_loop, cpu and memory run their build without it (same walker, no
# Python frames); a kernel that refuses the full walker gets the smaller one, said so.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot be profiled: $("$SLIDEOPS" check 2>&1 | tail -5)"
export SLIDEOPS_KERNEL_LACKS=exit_group_dead,task_vmas,trusted_args

"$SLIDEOPS" check --json > "$WORK/check.json" || fail "check exits $?: $(cat "$WORK/check.json")"
jq -e '.questions | to_entries | all(.value == true)' "$WORK/check.json" >/dev/null ||
	fail "a question does not run without the features: $(jq -c .question_details "$WORK/check.json")"
exits='processes that exit before they are read keep their name, not their functions'
python='Python frames only for threads on a CPU'
for q in cpu wall threads locks memory; do
	d=$(jq -r --arg q "$q" '.question_details[$q]' "$WORK/check.json")
	[[ $d == "can run here, seeing less on this kernel: "* ]] ||
		fail "$q does not say it sees less: $d"
	case $q in threads) want_exits=no ;; *) want_exits=yes ;; esac
	case $q in threads | wall) want_python=yes ;; *) want_python=no ;; esac
	[[ $d == *"$exits"* ]] && has=yes || has=no
	[ "$has" = "$want_exits" ] || fail "$q about exited processes (want $want_exits): $d"
	[[ $d == *"$python"* ]] && has=yes || has=no
	[ "$has" = "$want_python" ] || fail "$q about Python frames (want $want_python): $d"
done
# Unforced, this kernel's own answer has no such line where it has every feature.
SLIDEOPS_KERNEL_LACKS= check_json > "$WORK/own.json" || fail "check exits $?"
[ "$(uname -r | cut -d. -f1)" -lt 7 ] && [ "$(uname -r | cut -d. -f2)" -lt 18 ] ||
	jq -e '.question_details | to_entries | all(.value == "can run here")' "$WORK/own.json" \
	>/dev/null || fail "this kernel sees less? $(jq -c .question_details "$WORK/own.json")"

jq -e '.stack_walkers | to_entries | all(.value.walker == "full")' "$WORK/own.json" >/dev/null ||
	fail "this kernel refuses the full walker: $(jq -c .stack_walkers "$WORK/own.json")"

# A capture says it too, once, on stderr.
"$SLIDEOPS" capture cpu -d 1 --json > "$WORK/cpu.json" 2> "$WORK/cpu.err" ||
	fail "capture cpu: $(cat "$WORK/cpu.err")"
[ "$(grep -c "on this kernel, $exits" "$WORK/cpu.err")" = 1 ] ||
	fail "the capture does not say what it cannot see: $(cat "$WORK/cpu.err")"

# Where a question's programs cannot load, check says which feature is missing, with the
# version that brought it; a capture refuses plainly. Without bpf_loop the cpu and memory
# questions still run (their build without it), saying what they lose.
SLIDEOPS_KERNEL_LACKS=loop,sleepable_iter,lock_contention "$SLIDEOPS" check --json \
	> "$WORK/old.json" || true
for q in cpu wall threads locks memory; do
	d=$(jq -r --arg q "$q" '.question_details[$q]' "$WORK/old.json")
	case $q in cpu | memory) runs=true ;; *) runs=false ;; esac
	jq -e --arg q "$q" --argjson r "$runs" '.questions[$q] == $r' "$WORK/old.json" >/dev/null ||
		fail "$q without bpf_loop (runs: want $runs): $d"
	if [ "$runs" = true ]; then
		[[ $d == *"the kernel lacks bpf_loop, Linux 5.17"* ]] ||
			fail "$q does not say what it loses without bpf_loop: $d"
	fi
	case $q in threads | wall) want=yes ;; *) want=no ;; esac
	[[ $d == *"sleepable task iterators (Linux 5.18)"* ]] && has=yes || has=no
	[ "$has" = "$want" ] || fail "$q about sleepable iterators (want $want): $d"
	[ "$q" != locks ] || [[ $d == *"lock contention tracepoints (Linux 5.19)"* ]] ||
		fail "locks does not name the contention tracepoints: $d"
done
# Without bpf_loop the walker is the same: whole stacks without frame pointers, through
# libc (the stack tests, on the build without it).
SLIDEOPS_KERNEL_LACKS=bpf_loop bash "$(dirname "$0")/stacks.sh" > "$WORK/stacks.log" 2>&1 ||
	fail "whole stacks without bpf_loop: $(tail -5 "$WORK/stacks.log")"

# A kernel that refuses the full walker (pretended, and for real: a verifier given no
# time gives up): every question runs the smaller one, and check and the capture say
# what is lost and why, in words; never the errno alone.
for lacks in "SLIDEOPS_KERNEL_LACKS=walker" "SLIDEOPS_VERIFY_SECONDS=0.000001"; do
	env SLIDEOPS_KERNEL_LACKS= "$lacks" "$SLIDEOPS" check --json > "$WORK/refused.json" ||
		fail "check with $lacks exits $?: $(cat "$WORK/refused.json")"
	for q in cpu wall threads locks memory; do
		d=$(jq -r --arg q "$q" '.question_details[$q]' "$WORK/refused.json")
		[[ $d == *"stacks by frame pointers only and no Python frames"*"because the kernel refused the full stack walker ("* ]] ||
			fail "$q with $lacks does not say what it loses: $d"
		[[ $d != *"Argument list too long"* ]] || fail "$q says only the errno: $d"
		jq -e --arg q "$q" '.stack_walkers[$q] | .walker == "frame pointers" and
			(.verifier_said | length > 0) and has("refused_program") and
			has("instructions")' "$WORK/refused.json" >/dev/null ||
			fail "check --json does not carry $q's refusal: $(jq -c .stack_walkers "$WORK/refused.json")"
	done
	env SLIDEOPS_KERNEL_LACKS= "$lacks" "$SLIDEOPS" capture cpu -d 1 --json > "$WORK/fp.json" \
		2> "$WORK/fp.err" || fail "capture cpu with $lacks: $(cat "$WORK/fp.err")"
	has "on this kernel, stacks by frame pointers only" < "$WORK/fp.err" ||
		fail "the capture does not say it: $(cat "$WORK/fp.err")"
	jq -e '.id' "$WORK/fp.json" >/dev/null || fail "no profile saved: $(cat "$WORK/fp.json")"
done
SLIDEOPS_KERNEL_LACKS=lock_contention "$SLIDEOPS" capture locks -d 1 > /dev/null 2> "$WORK/locks.err" &&
	fail "capture locks ran without the contention tracepoints"
grep -q "cannot load the profiler into the kernel.*'slideops check' says what" "$WORK/locks.err" ||
	fail "the refusal is not plain: $(cat "$WORK/locks.err")"

# The same answers as with every feature. A kernel that lacks the features itself (6.1
# all three, 6.12 the exit tracepoint's two) loaded these variants for the plain tests
# already: a test whose question's features the kernel reports the same whether pretended
# missing or not (the loader's own probe, SLIDEOPS_DEBUG) is not run again (under
# emulation each takes minutes). cpu's variant is its exit program's; wall's and threads'
# their task walk's too.
# The probe's lines, unforced and pretended, read once (a check is some 20 s under
# emulation); features LINES PATTERN: those of the features named.
own=$(SLIDEOPS_KERNEL_LACKS= SLIDEOPS_DEBUG=1 "$SLIDEOPS" check 2>&1 >/dev/null | grep "kernel feature")
pretended=$(SLIDEOPS_DEBUG=1 "$SLIDEOPS" check 2>&1 >/dev/null | grep "kernel feature")
[ -n "$own" ] || fail "SLIDEOPS_DEBUG=1 check says nothing of the kernel's features"
features() { grep -E "$2" <<<"$1" || true; }
for t in capture_cpu capture_wall capture_threads; do
	case $t in
	capture_cpu) used='exit_group_dead|task_vmas' ;;
	*) used='exit_group_dead|task_vmas|trusted_args' ;;
	esac
	if [ "$(features "$own" "$used")" = "$(features "$pretended" "$used")" ]; then
		echo "$t: this kernel itself lacks what is pretended ($used): ran so already, not again"
		continue
	fi
	SLIDEOPS_DATA=$(mktemp -d /tmp/slideops-data.XXXXXX) bash "$(dirname "$0")/$t.sh" \
		> "$WORK/$t.log" 2>&1 || fail "$t without the features: $(tail -5 "$WORK/$t.log")"
done
echo "ok"
