#!/usr/bin/env bash
# The web UI in a browser (tests/browser/ui.test.js, playwright-core driving Debian's
# Chromium), on a real server and real workloads running in cgroups named as systemd
# names a unit's:
#   web-billing.service  a stripped program the browser captures and names by upload
#   web-batch.service    a batch job (retired_batch_job) that runs during the first
#                        capture only: Compare must show it, though the newer profile
#                        has none of it
#   web-deep.service     300 frames of recursion: the flame graph keeps a bounded height
#   web-ledger.service   four threads contending one pthread mutex, captured as a locks
#                        profile: its page shows the lock by address
#   web-crowd.service    six threads spinning in spin_forever on this machine's CPUs, and
#                        four napping in nap_between_work (1 ms of work, 20 ms asleep),
#                        captured as a wall profile: Colour by Why it waited draws
#                        spin_forever in the colour of waiting for a CPU
# and a threads profile (a snapshot), whose page shows the thread dump.
# The names of the workloads and of the debug file contain "<script>": they must show as
# text. Screenshots of each page are kept in $ARTIFACTS (default build/artifacts/browser).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

top=$(cd "$(dirname "$0")/../.." && pwd)
[ -x /usr/bin/chromium ] || skip "Debian's chromium is not installed (make deps installs it)"
command -v npm >/dev/null || skip "npm is not installed (make deps installs it)"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this machine cannot capture"
# The test installs its own npm dependencies (tests/browser/package.json).
(cd "$top/tests/browser" && npm install --no-audit --no-fund --loglevel=error >/dev/null) ||
	skip "cannot install playwright-core from npm"

cd "$WORK"
workload ledger_settle_hot app
objcopy --only-keep-debug app '<script>app.debug'
workload="$WORK/<script>ledger"
strip -o "$workload" app
cg=$(make_cgroup "system.slice/web-billing.service")
start_in_cgroup "$cg" "$workload" >/dev/null
# Deep stacks beside shallow ones: 300 frames of recursion. The flame graph must keep a
# bounded height however deep they are.
workload deep_recursion deep
deep_cg=$(make_cgroup "system.slice/web-deep.service")
start_in_cgroup "$deep_cg" "$WORK/deep" >/dev/null
workload retired_batch_job '<script>batch'
batch_cg=$(make_cgroup "system.slice/web-batch.service")
start_in_cgroup "$batch_cg" "$WORK/<script>batch" >/dev/null
# A first profile, so there are two to compare after the one the browser takes; the
# batch job ends after it.
"$SLIDEOPS" capture cpu -d 2 >/dev/null 2>&1 || fail "the first capture failed"
"$SLIDEOPS" show "$("$SLIDEOPS" profiles --json | jq -r '.profiles[0].id')" --json |
	jq -e 'any(.functions[]; .name == "retired_batch_job")' >/dev/null ||
	fail "the first capture did not see the batch job"
cg_kill "$batch_cg"

# A locks profile of threads contending one mutex in ledger_post.
workload ledger_post_clerks '<script>lock'
lock_cg=$(make_cgroup "system.slice/web-ledger.service")
start_in_cgroup "$lock_cg" "$WORK/<script>lock" >/dev/null
LOCKS=
if "$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.locks' >/dev/null; then
	sleep 0.3
	"$SLIDEOPS" capture locks -d 2 --json > locks.json 2>/dev/null || fail "the locks capture failed"
	LOCKS=$(jq -r .id locks.json)
	# Its mutex, among whatever else on this machine waited on locks meanwhile.
	# Its holders are the clerks releasing it: ledger_post, or clerk when a stack lacks it.
	jq -e 'any(.locks[]; .functions[0].name == "ledger_post" and
		any(.holders[]; .function == "ledger_post"))' locks.json >/dev/null ||
		fail "the locks profile does not name the mutex's waiters and holder: $(jq -c '.locks[:3]' locks.json)"
fi
cg_kill "$lock_cg"
# A wall profile of threads that wait for a CPU and threads that sleep. Six spinners on
# this machine's CPUs (three a CPU on 2) run at most a third of the time each: the rest
# they wait for a CPU, however loaded the machine is besides.
workload spin_and_nap_crowd crowd
WALL=
if "$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.wall' >/dev/null; then
	crowd_cg=$(make_cgroup "system.slice/web-crowd.service")
	start_in_cgroup "$crowd_cg" "$WORK/crowd" >/dev/null
	sleep 0.3
	"$SLIDEOPS" capture wall -d 2 --json > wall.json 2>/dev/null ||
		fail "the wall capture failed"
	cg_kill "$crowd_cg"
	WALL=$(jq -r .id wall.json)
	jq -e '[.groups[] | select(.label == "Unit web-crowd.service")][0].waiting_by_reason |
		.runqueue > 0 and .sleep > 0' wall.json >/dev/null ||
		fail "the crowd waited neither for a CPU nor asleep: $(jq -c .groups wall.json)"
else
	echo "no wall profile, so no Why it waited: $("$SLIDEOPS" check 2>&1 | grep -i wall)" >&2
fi
# A threads profile: a snapshot, whose page shows the thread dump.
THREADS=
if "$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.threads' >/dev/null; then
	"$SLIDEOPS" capture threads --json > threads.json 2>/dev/null ||
		fail "the threads capture failed"
	THREADS=$(jq -r .id threads.json)
fi
# A memory profile, whose page shows each owner's growth from start to end.
MEMORY=
MEMORY_OWNERS=0
if "$SLIDEOPS" check --json 2>/dev/null | jq -e '.questions.memory' >/dev/null; then
	# An owner that grows while it runs (leak_map_and_hold as "leaker": 2.4 MB every
	# 100 ms), so that a quiet machine has one too.
	workload leak_map_and_hold leaker
	leak_cg=$(make_cgroup "system.slice/web-leaker.service")
	start_in_cgroup "$leak_cg" "$WORK/leaker" "$WORK/leaked" >/dev/null
	for _ in $(seq 50); do [ -s "$WORK/leaked" ] && break; sleep 0.1; done
	"$SLIDEOPS" capture memory -d 2 --json > memory.json 2>/dev/null ||
		fail "the memory capture failed"
	cg_kill "$leak_cg"
	MEMORY=$(jq -r .id memory.json)
	MEMORY_OWNERS=$(jq '[.groups[] | select(has("rss_grown_bytes"))] | length' memory.json)
	# memory_owners.sh proves the growth itself; here only its page is followed. A loaded
	# machine can leave a 2 s capture without it (its read of every process is cut at 2 s).
	if [ "$MEMORY_OWNERS" = 0 ]; then
		echo "note: the memory profile has no owner's growth, its page is not followed:" \
			"$(jq -c .groups memory.json)" >&2
		MEMORY=
	fi
fi
# 60 more rows in the index, older than the rest, so that Profiles comes in pages.
first=$("$SLIDEOPS" profiles --json | jq -r '.profiles[-1].id')
sqlite3 "$SLIDEOPS_DATA/workspace.db" <<SQL || fail "could not add index rows"
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO profiles (id, question, server, started_at_ns, duration_ns, answer, blob, saved_at_ns)
SELECT id || '-old' || i, 'wall', server, started_at_ns - i * 86400000000000, duration_ns,
       'an older profile', blob, saved_at_ns FROM profiles, n WHERE profiles.id = '$first';
SQL
start_serve

SLIDEOPS_URL=$(grep -o 'http://[^ ]*' "$WORK/serve.out") UPLOAD_FILE="$WORK/<script>app.debug" \
	WORKLOAD="$workload" LOCKS_PROFILE="$LOCKS" THREADS_PROFILE="$THREADS" \
	WALL_PROFILE="$WALL" \
	MEMORY_PROFILE="$MEMORY" MEMORY_OWNERS="$MEMORY_OWNERS" \
	ARTIFACTS=${ARTIFACTS:-$top/build/artifacts/browser} \
	NODE_PATH="$top/tests/browser/node_modules" node "$top/tests/browser/ui.test.js" ||
	fail "the browser test failed (screenshots in ${ARTIFACTS:-$top/build/artifacts/browser})"
stop_serve
