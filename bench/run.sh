#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every benchmark, each side by side with its peers in one run (see each run.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for b in cpu stacks python wall locks memory hostile symbols serve; do
	echo "== bench/$b"
	"$here/$b/run.sh" || { echo "bench: bench/$b/run.sh failed (exit $?)" >&2; exit 1; }
done
