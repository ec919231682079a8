#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every benchmark, each side by side with its peers in one run (see each run.sh), then
# the workspace's: the resident agent beside perf (bench/agent/run.sh), many agents into
# one workspace on each store backend (bench/agent/ingest.sh, 3 rounds of 8 runs of 15 s)
# and the store's two backends on 100k profiles (bench/store/run.sh; PostgreSQL 15 from
# make deps). Each of those three takes minutes. BENCHES="cpu stacks" runs only those.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BENCHES=${BENCHES:-cpu stacks python runtimes wall locks memory hostile symbols serve agent ingest store}
for b in $BENCHES; do
	case $b in
	ingest) script=$here/agent/ingest.sh ;;
	*) script=$here/$b/run.sh ;;
	esac
	echo "== bench/${script#"$here/"}"
	"$script" || { echo "bench: ${script#"$here/"} failed (exit $?)" >&2; exit 1; }
done
