#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The web UI's flame graph with NSTACKS unique stacks (100k by default), side by side with
# speedscope (npm) loading the same profile, in the same Chromium, in one run: time from
# the start of the page to the first render (both fetch and parse their file), and the
# time of a zoom in ours. Medians of RUNS (3). Target (issue 12): first render <= 1 s and
# faster than speedscope.
set -euo pipefail
# A failure says what failed (bench/lib.sh).
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
NSTACKS=${NSTACKS:-100000}
work=$(mktemp -d /tmp/slideops-bench-web.XXXXXX)
server=
trap 'bench_report_failure $?; [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
(cd "$here" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
cp "$top"/web/ui/* "$here/bench.html" "$here/bench.js" "$work/"
cp -r "$here/node_modules/speedscope/dist/release" "$work/speedscope"
node "$here/gen.js" "$work" "$NSTACKS"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work" && exec python3 -m http.server --bind 127.0.0.1 "$port" >/dev/null 2>&1) &
server=$!
sleep 0.5
res=$(NODE_PATH="$here/node_modules" node "$here/bench.test.js" "http://127.0.0.1:$port")
python3 - "$res" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print("flame graph, %s: first render %.0f ms (target <= 1000), zoom %.0f ms; speedscope first render %.0f ms: ours takes %.2fx its time"
      % ("100k unique stacks", r["ours"], r["zoom"], r["speedscope"], r["ours"] / r["speedscope"]))
PY
