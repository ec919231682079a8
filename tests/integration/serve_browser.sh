#!/usr/bin/env bash
# The web UI in a browser (tests/browser/ui.test.js, playwright-core driving Debian's
# Chromium), on a real server and a real stripped workload running in the cgroup systemd
# gives a unit (system.slice/web-billing.service). The workload's file name and its
# debug file's name contain "<script>": they must show as text. Screenshots of each page
# are kept in $ARTIFACTS (default build/artifacts/browser).
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
cat > app.c <<'C'
__attribute__((noinline)) unsigned long ledger_settle_hot(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * 2654435761u;
	return s;
}
__attribute__((noinline)) unsigned long post_invoices(void) { return ledger_settle_hot(1 << 22); }
int main(void) { for (;;) post_invoices(); }
C
gcc -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o app app.c
objcopy --only-keep-debug app '<script>app.debug'
workload="$WORK/<script>ledger"
strip -o "$workload" app
cg=$(make_cgroup "system.slice/web-billing.service")
start_in_cgroup "$cg" "$workload" >/dev/null
# A first profile, so there are two to compare after the one the browser takes.
"$SLIDEOPS" capture cpu -d 2 >/dev/null 2>&1 || fail "the first capture failed"
start_serve

SLIDEOPS_URL=$(grep -o 'http://[^ ]*' "$WORK/serve.out") UPLOAD_FILE="$WORK/<script>app.debug" \
	WORKLOAD="$workload" ARTIFACTS=${ARTIFACTS:-$top/build/artifacts/browser} \
	NODE_PATH="$top/tests/browser/node_modules" node "$top/tests/browser/ui.test.js" ||
	fail "the browser test failed (screenshots in ${ARTIFACTS:-$top/build/artifacts/browser})"
stop_serve
