#!/usr/bin/env bash
# A storm of short-lived processes (tests/tools/exec_storm.c: up to 2,000 execs a second of
# a small static binary, each living about 3 ms): a 10 s capture of cpu, wall, locks and
# memory (all four at once) and a threads snapshot complete while it blows, and every
# sample they took is in their profile or counted as lost in it: the capture's own tally
# (SLIDEOPS_DEBUG: sample records received, samples added, lost) against what the
# profile holds. For cpu, whose every sample is one tick, exactly: the profile's samples
# are the records received. A capture with losses says so in "What the capture could not
# see". The storm's processes are in the cpu and wall profiles, by name.
# How many execs a second the machine achieves is printed: an exec costs a few ms of CPU
# on a virtual machine with virtualised page tables (2 vCPUs here reach ~300 a second).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
command -v jq >/dev/null || skip "jq is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot be profiled"

gcc -O2 -static -pthread -o "$WORK/exec_storm" "$(dirname "$0")/../tools/exec_storm.c" ||
	fail "cannot build tests/tools/exec_storm.c statically (libc6-dev has libc.a)"
cg=$(make_cgroup system.slice/slideops-test-storm.service)
# Until told to stop (then it says how many it started); in a service's cgroup.
bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$WORK/exec_storm" 2000 0 \
	> "$WORK/storm.out" 2>&1 &
storm=$!
defer "kill -9 $storm 2>/dev/null"
sleep 1

questions="cpu wall locks memory"
start=$(date +%s%N)
for q in $questions threads; do
	[ "$q" = threads ] && sleep 3 # the snapshot, in the thick of it
	args=(-d 10)
	[ "$q" = threads ] && args=()
	(
		t0=$(date +%s%N)
		rc=0
		SLIDEOPS_DEBUG=1 SLIDEOPS_DATA=$(mktemp -d "$WORK/data-$q.XXXXXX") \
			timeout -s KILL 120 "$SLIDEOPS" --json capture "$q" "${args[@]}" \
			> "$WORK/$q.json" 2> "$WORK/$q.err" || rc=$?
		echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$WORK/$q.ms"
		exit "$rc"
	) &
	echo $! > "$WORK/$q.pid"
done
for q in $questions threads; do
	rc=0
	wait "$(cat "$WORK/$q.pid")" || rc=$?
	[ "$rc" != 137 ] || fail "capture $q was still running after 120 s during the storm"
	[ "$rc" = 0 ] || fail "capture $q failed ($rc): $(grep -v '^slideops: capture:' "$WORK/$q.err" | tail -5)"
done
echo "the captures took $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
kill -TERM "$storm"
wait "$storm" || fail "the storm failed: $(cat "$WORK/storm.out")"
echo "the storm: $(cat "$WORK/storm.out") (asked for 2000 a second)"

for q in $questions threads; do
	data=$(ls -d "$WORK"/data-$q.*)
	id=$(jq -r .id "$WORK/$q.json")
	stats=$(grep 'samples received' "$WORK/$q.err") || fail "$q: no tally (SLIDEOPS_DEBUG): $(tail -3 "$WORK/$q.err")"
	received=$(sed -E 's/.*capture: ([0-9]+) samples received.*/\1/' <<<"$stats")
	lost=$(sed -E 's/.* ([0-9]+) lost,.*/\1/' <<<"$stats")
	added=$(sed -E 's/.*; ([0-9]+) samples added.*/\1/' <<<"$stats")
	in_profile=$(jq -r .lost "$WORK/$q.json")
	echo "  $q ($(cat "$WORK/$q.ms") ms): $received sample records received, $added samples added, $lost lost (the profile says $in_profile)"
	# Every record received is in the profile (a question may add samples of its own:
	# wall's time off CPU between switches); every loss is in the profile's count.
	[ "$added" -ge "$received" ] || fail "$q: $received sample records received, only $added added"
	[ "$in_profile" -ge "$lost" ] || fail "$q: $lost samples lost, the profile says $in_profile"
	SLIDEOPS_DATA=$data "$SLIDEOPS" show "$id" > "$WORK/$q.txt" || fail "show $q"
	if [ "$in_profile" -gt 0 ]; then
		has "$in_profile events were lost" < "$WORK/$q.txt" ||
			fail "$q: $in_profile lost, and the profile does not say so: $(head -8 "$WORK/$q.txt")"
	fi
	SLIDEOPS_DATA=$data "$SLIDEOPS" show "$id" --export folded - > "$WORK/$q.folded" || fail "export $q"
	case $q in
	cpu)
		total=$(awk '{ s += $NF } END { print s + 0 }' "$WORK/$q.folded")
		[ "$total" = "$received" ] ||
			fail "cpu: $received ticks received, the profile holds $total samples"
		;;
	esac
	case $q in
	cpu | wall)
		has ';exec_storm;' < "$WORK/$q.folded" ||
			fail "$q: no sample of the storm's processes: $(cut -d';' -f1-2 "$WORK/$q.folded" | sort | uniq -c | sort -rn | head -5)"
		;;
	esac
done
echo "ok"
