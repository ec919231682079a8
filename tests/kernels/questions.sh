#!/usr/bin/env bash
# Inside a kernel matrix guest: a short capture of each question named (all five when
# none), each against a known workload (tests/kernels/workloads.c, built on the host as
# $KT_WORKLOADS) in a cgroup of its own: the answer must name the workload's group with
# the function it spends its time in. Uses the integration tests' helpers (lib.sh).
source "$(dirname "$0")/../integration/lib.sh"

: "${KT_WORKLOADS:?the workloads binary (tests/kernels/run.sh builds it)}"
questions=${*:-cpu wall threads locks memory}

# capture Q WORKLOAD FUNCTION...: runs WORKLOAD in its unit, captures Q, and checks that
# its group is there, that its top function is one of FUNCTION, and that the answer names
# it, first or next (threads: that its threads are a set waiting in nap).
capture() {
	local q=$1 what=$2 unit=slideops-test-kt-$2.service cg doc g top label
	shift 2
	cg=$(make_cgroup "system.slice/$unit")
	start_in_cgroup "$cg" "$KT_WORKLOADS" "$what" >/dev/null
	sleep 1
	doc=$WORK/$q.json
	local args=(-d 4)
	[ "$q" = threads ] && args=()
	"$SLIDEOPS" capture "$q" "${args[@]}" --json > "$doc" 2> "$WORK/$q.err" ||
		fail "capture $q: $(cat "$WORK/$q.err")"
	# Under emulation on a loaded machine the capture's time for reading binaries may
	# run out before it reads the workload's: once, the capture is taken again (what
	# the first one read is cached by then). Any other reason is a failure.
	if jq -e --arg w "$KT_WORKLOADS" '[.not_read[] | select(.path == $w and
		(.reason | test("ran out")))] | length == 1' "$doc" >/dev/null; then
		echo "$q: the workload was not read in time; capturing again"
		"$SLIDEOPS" capture "$q" "${args[@]}" --json > "$doc" 2> "$WORK/$q.err" ||
			fail "capture $q: $(cat "$WORK/$q.err")"
	fi
	label="Unit $unit"
	g=$(jq -c --arg l "$label" '.groups[] | select(.label == $l)' "$doc")
	[ -n "$g" ] || fail "$q: no group $label: $(jq -c '[.groups[] | {label, value}]' "$doc")"
	top=$(jq -r .top_function <<<"$g")
	[[ " $* " == *" $top "* ]] || fail "$q: $label is mostly in '$top', not $*: $g;" \
		"binaries not read: $(jq -c .not_read "$doc"); $(cat "$WORK/$q.err")"
	if [ "$q" = threads ]; then
		# The 8 napping threads are in nap, most of them waiting there. A thread its
		# timer has just woken is runnable, still in nap's nanosleep: under emulation
		# on a busy host a snapshot was seen to catch 2 of the 8 so.
		jq -e --arg l "$label" '[.thread_sets[] | select(.group == $l and (.stack | index("nap")))]
			| (map(.threads) | add) == 8 and
			  ([.[] | select(.state == "waiting") | .threads] | add // 0) >= 4' "$doc" \
			>/dev/null || fail "threads: not 8 threads in nap, most waiting: $(jq -c \
			--arg l "$label" '[.thread_sets[] | select(.group == $l)]' "$doc")"
	else
		jq -e --arg l "$label" '.answer | contains($l)' "$doc" >/dev/null ||
			fail "$q: the answer does not name $label: $(jq -r .answer "$doc")"
	fi
	cg_kill "$cg"
	echo "$q: $(jq -r .answer "$doc")"
}

for q in $questions; do
	case $q in
	cpu) capture cpu burn burn_cpu ;;
	wall) capture wall nap nap ;;
	threads) capture threads nap nap ;;
	locks) capture locks ledger take_ledger ;;
	memory) capture memory grow load_dataset ;;
	*) fail "no such question: $q" ;;
	esac
done
