#!/usr/bin/env bash
# `slideops check` on the real kernel: as root every requirement is met and the cpu
# question can run (exit 0), each with the full stack walker; a missing tracefs is mounted; as an unprivileged user it
# says plainly what is missing and what to do (exit 1). The JSON document is as
# docs/architecture.md has it.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"

"$SLIDEOPS" check --json > "$WORK/root.json" || fail "check as root exits $?: $(cat "$WORK/root.json")"
jq -e '.can_profile == true and .questions.cpu == true' "$WORK/root.json" >/dev/null ||
	fail "root cannot profile: $(cat "$WORK/root.json")"
for name in "privileges" "kernel BTF" "BPF programs" "BPF ring buffer" "perf events" "tracefs"; do
	jq -e --arg n "$name" '[.requirements[] | select(.name == $n and .ok == true
		and (.detail | length) > 0)] | length == 1' "$WORK/root.json" >/dev/null ||
		fail "requirement '$name' is not met as root: $(jq -c .requirements "$WORK/root.json")"
done
jq -e '.questions | keys == ["cpu", "locks", "memory", "threads", "wall"]
	and (map_values(type == "boolean") | all)' "$WORK/root.json" >/dev/null ||
	fail "questions: $(jq -c .questions "$WORK/root.json")"
# The kernel's support is probed per question, whatever this build captures.
jq -e '.kernel_supports.cpu == true and (.question_details | map_values(length > 0) | all)' \
	"$WORK/root.json" >/dev/null || fail "per-question probes: $(jq -c '{kernel_supports, question_details}' "$WORK/root.json")"

"$SLIDEOPS" check > "$WORK/root.txt" || fail "text check as root failed"
head -1 "$WORK/root.txt" | has "^This server can be profiled" ||
	fail "the text check does not say so first: $(cat "$WORK/root.txt")"
# Every kernel tested (this machine's; 6.1 and 6.12 in the kernel matrix) takes the full
# stack walker: one that loads only the smaller one (frame pointers) still answers, and
# says so, which is how 6.1 once refused it unnoticed (a mask the compiler dropped).
! grep -q "refused the full stack walker" "$WORK/root.txt" ||
	fail "this kernel refused the full stack walker: $(grep -m1 "refused the full stack walker" "$WORK/root.txt")"

# tracefs is mounted when missing (mount it back if the test took it away).
if mountpoint -q /sys/kernel/tracing && umount /sys/kernel/tracing 2>/dev/null; then
	defer "mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing"
	"$SLIDEOPS" check --json > "$WORK/tracefs.json" || fail "check without tracefs exits $?"
	jq -e '.requirements[] | select(.name == "tracefs") | .ok and (.detail | test("mounted it"))' \
		"$WORK/tracefs.json" >/dev/null || fail "tracefs: $(jq -c '.requirements' "$WORK/tracefs.json")"
	mountpoint -q /sys/kernel/tracing || fail "check said it mounted tracefs, but it is not mounted"
fi

# Not root: exit 1, and each missing piece says what to do.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$SLIDEOPS" "$@"; }
if as_nobody check --json > "$WORK/nobody.json" 2> "$WORK/nobody.err"; then
	fail "check as uid 65534 exits 0: $(cat "$WORK/nobody.json")"
fi
jq -e '.can_profile == false and .questions.cpu == false' "$WORK/nobody.json" >/dev/null ||
	fail "uid 65534 can profile? $(cat "$WORK/nobody.json")"
jq -e '.requirements[] | select(.name == "privileges") | (.ok | not)
	and (.detail | test("uid 65534 without CAP_BPF and CAP_PERFMON: run slideops as root"))' \
	"$WORK/nobody.json" >/dev/null || fail "privileges: $(jq -c .requirements "$WORK/nobody.json")"
jq -e '.requirements[] | select(.name == "BPF programs") | (.ok | not)
	and (.detail | test("run as root"))' "$WORK/nobody.json" >/dev/null ||
	fail "BPF programs: $(jq -c .requirements "$WORK/nobody.json")"
jq -e '.question_details.cpu | test("privileges")' "$WORK/nobody.json" >/dev/null ||
	fail "the cpu question does not say why: $(jq -c .question_details "$WORK/nobody.json")"

as_nobody check > "$WORK/nobody.txt" 2>&1 && fail "text check as uid 65534 exits 0"
head -1 "$WORK/nobody.txt" | has "^This server cannot be profiled yet" ||
	fail "the text check does not say it plainly: $(cat "$WORK/nobody.txt")"
grep -qE "^  MISSING +privileges +running as uid 65534 without CAP_BPF and CAP_PERFMON" "$WORK/nobody.txt" ||
	fail "the missing privileges are not listed: $(cat "$WORK/nobody.txt")"
echo "ok"
