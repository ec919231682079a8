#!/usr/bin/env bash
# A workspace's servers in a browser (tests/browser/agents.test.js): Add a server shows
# the command to run; with an agent in this build, that command run as the page shows
# it enrols a real agent on this machine (a server of its own), whose Performance tab
# captures a workload running here in a cgroup, named in the profile; the Profiles page
# filters by it; Remove this server stops the agent. A server enrolled with crafted
# messages, its name markup, shows as text. Screenshots in $ARTIFACTS (default
# build/artifacts/browser-agents).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

top=$(cd "$(dirname "$0")/../.." && pwd)
MSG=${AGENT_MSG:-$(dirname "$SLIDEOPS")/tests/agent_msg}
[ -x /usr/bin/chromium ] || skip "Debian's chromium is not installed (make deps installs it)"
command -v npm >/dev/null || skip "npm is not installed (make deps installs it)"
[ -x "$MSG" ] || fail "$MSG is not built (make all builds it)"
(cd "$top/tests/browser" && npm install --no-audit --no-fund --loglevel=error >/dev/null) ||
	skip "cannot install playwright-core from npm"
# The agent: this build's (AGENT_SLIDEOPS: another's, e.g. a branch's), when it has one.
AGENT=${AGENT_SLIDEOPS:-$SLIDEOPS}
"$AGENT" agent --help >/dev/null 2>&1 || AGENT=
if [ -n "$AGENT" ]; then
	"$AGENT" check >/dev/null 2>&1 || skip "this machine cannot capture"
fi

cd "$WORK"
workload agent_visible_work '<script>agentwork'
cg=$(make_cgroup "system.slice/web-agent-work.service")
start_in_cgroup "$cg" "$WORK/<script>agentwork" >/dev/null

start_serve
# A server enrolled with crafted messages: its name is markup.
FAKE='<img src=x onerror="window.__injected=1">'
expect 201 POST /api/enrolments
"$MSG" encode EnrolRequest protocol_version=1 enrolment_token="$(jq -r .token "$WORK/body")" \
	name="$FAKE" hostname=fake kernel=6.18.0 agent_version=0.1.0 boot_id=b > enrol.bin
code=$(curl -s -o enrol.out -w '%{http_code}' -X POST --data-binary @enrol.bin "$BASE/agent/enrol")
[ "$code" = 200 ] || fail "enrolling the crafted server: HTTP $code"

SLIDEOPS_URL=$(grep -o 'http://[^ ]*' "$WORK/serve.out") FAKE_NAME="$FAKE" AGENT="$AGENT" \
	AGENT_DATA="$WORK/agent-data" WORKLOAD_FN=agent_visible_work \
	ARTIFACTS=${ARTIFACTS:-$top/build/artifacts/browser-agents} \
	NODE_PATH="$top/tests/browser/node_modules" node "$top/tests/browser/agents.test.js" ||
	fail "the browser test failed (screenshots in ${ARTIFACTS:-$top/build/artifacts/browser-agents})"
if [ -n "$AGENT" ]; then
	[ ! -e "$WORK/agent-data/credential" ] ||
		fail "the removed server's agent kept its credential"
	[ ! -e "$WORK/agent-data/profiler" ] ||
		fail "the removed server's agent kept its profiler directory"
fi
stop_serve
echo ok
