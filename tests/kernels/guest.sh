#!/usr/bin/env bash
# Runs inside a kernel matrix guest (tests/kernels/init), as root, on the host's root
# (read-only; tmpfs on /tmp, /run, /var/tmp, /boot): `slideops check`, then what KT_TESTS
# names (comma-separated): "questions" (tests/kernels/questions.sh; "questions:Q" for one),
# an integration test (tests/integration/NAME.sh), or a script's path (a name with a
# slash, for looking into a kernel by hand). Exit 0 when all passed.
set -u
cd "$KT_REPO" || exit 1
export SLIDEOPS=${KT_SLIDEOPS:-$KT_REPO/build/slideops}
# The integration tests' workloads, as `make` built them: not beside $SLIDEOPS, which is a
# copy under build/kernels/ (tests/integration/lib.sh looks beside it otherwise).
export WORKLOADS=${WORKLOADS:-$KT_REPO/build/tests/workloads}
# An emulated CPU runs every instruction many times slower: reading binaries gets 32 times
# the time a real server's capture allows (binaries_budget__in_force), or the functions of
# the workloads go unnamed when the host is busy. Under TCG the guest's CPU clocks count
# the time the host took its vCPUs away (no steal time): with both vCPUs on one host CPU,
# 6.12's threads snapshot in threads_stacks ran out of 8 times (32 s) after seven
# libpythons, before nofp, whose wait_for_input stayed nofp+0x1288 (not_read: "ran out").
export SLIDEOPS_READ_TIME_FACTOR=${SLIDEOPS_READ_TIME_FACTOR:-32}
# The guest's root is the host's, over 9p: every binary on it would be copied by a guarded
# reader (an exec of slideops, seconds under emulation), so few are read within a short
# capture. 9p here is the test's own and answers; tests/integration/hung_mount.sh tests the
# guarded reads on the host.
export SLIDEOPS_TRUSTED_MOUNTS=${SLIDEOPS_TRUSTED_MOUNTS:-9p}
# The verifier too: the loader's bound on its time (3 s) is for real CPUs.
export SLIDEOPS_VERIFY_SECONDS=${SLIDEOPS_VERIFY_SECONDS:-120}
mkdir -p /run/kernel-test

# After a test that ran out of its time: timeout signalled its process group (TERM, then
# KILL 30 s later), but the test's EXIT trap, which removes its cgroups, never ran, and a
# workload that left the group or ignores TERM would run on under the next test. This
# guest made no cgroup of its own: every one under the mount is a test's. Each is
# emptied (cgroup.kill, 5.14; else each process killed) and removed, deepest first.
leftovers() {
	local d p _
	find /sys/fs/cgroup -mindepth 1 -depth -type d 2>/dev/null | while IFS= read -r d; do
		echo 1 > "$d/cgroup.kill" 2>/dev/null ||
			for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		for _ in $(seq 100); do
			[ -z "$(cat "$d/cgroup.procs" 2>/dev/null)" ] && break
			sleep 0.1
		done
		rmdir "$d" 2>/dev/null || echo "    left: cgroup $d ($(cat "$d/cgroup.procs" 2>/dev/null | wc -l) processes)"
	done
}

echo "kernel-test: $(uname -r), $(nproc) CPUs"
"$SLIDEOPS" check 2>&1 | sed 's/^/  /'
# What it says, once for every test's guard (check_json in tests/integration/lib.sh).
export KT_CHECK_JSON=/run/kernel-test/check.json
"$SLIDEOPS" check --json > "$KT_CHECK_JSON" 2>/dev/null
failed=0
for t in ${KT_TESTS//,/ }; do
	out=/run/kernel-test/$t.log
	start=$(date +%s)
	script=tests/integration/$t.sh args=()
	case "$t" in
	*/*) script=$t out=/dev/stdout ;;
	questions) script=tests/kernels/questions.sh ;;
	questions:*) script=tests/kernels/questions.sh args=(${t#questions:}) out=${out/:/-} ;;
	esac
	# A bound on a hung test, not on a slow one: 900 s a test (KERNEL_TEST_SECONDS on the
	# host). kernel_fallbacks runs stacks, capture_cpu, capture_wall and capture_threads
	# again inside it (6.1 and 6.12 under TCG: stacks 446 s on a host running three
	# guests, capture_wall 361 s on a quiet one), so it has their bounds and its own.
	limit=${KT_TEST_SECONDS:-900}
	[ "$t" = kernel_fallbacks ] && limit=$((5 * limit))
	SLIDEOPS_DATA=$(mktemp -d /run/kernel-test/data.XXXXXX) timeout -k 30 "$limit" \
		bash "$script" "${args[@]}" > "$out" 2>&1
	rc=$?
	[ $rc = 124 ] || [ $rc = 137 ] && echo "     $t ran out of its $limit s: killing what it left" && leftovers
	took="$(($(date +%s) - start)) s"
	if [ $rc = 0 ]; then
		echo "ok   $t ($took)"
	else
		# A skip is a failure here: every test listed must run on every kernel.
		failed=$((failed + 1))
		echo "FAIL $t (exit $rc, $took)"
		# A script's path wrote to the console already (reading /dev/stdout back waits on it).
		[ "$out" = /dev/stdout ] || tail -40 "$out" | sed 's/^/    /'
	fi
	[ "$script" = tests/kernels/questions.sh ] && [ $rc = 0 ] && sed 's/^/    /' "$out"
done
exit $((failed > 0))
