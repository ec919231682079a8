#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The verifier's budget of every question's programs, on this machine's kernel and on each
# kernel of the matrix (tests/kernels/run.sh boots them): instructions processed (the
# verifier stops at 1,000,000) and verification time, per program, as the kernel reports
# them (bench/kernels/budgets.c). Writes bench/kernels/results.tsv (kernel, question,
# program, insns, usec) and prints each program's share of the limit, flagging one past
# the budget (150,000, docs/kernel.md) or the test line (250,000), then each question's
# verification time, all programs together. Times are of one load, on whatever else the machine runs: compare insns.
#
#   bench/kernels/run.sh             this kernel, 6.1 and 6.12 (as root; build/slideops built)
#   KERNELS="" bench/kernels/run.sh  this kernel only
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
out=bench/kernels/results.tsv
bin=build/bench/kernel_budgets

mkdir -p build/bench
gcc -g -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc -Ibpf -Ibuild/gen -Ibuild/bpf \
	bench/kernels/budgets.c build/libslideops.a -lbpf -lelf -ldw -lz -llz4 -lsqlite3 \
	-ljansson -lprotobuf-c -liberty -lmicrohttpd -lpthread -lm -o "$bin"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'kernel\tquestion\tprogram\tinsns\tusec\n' > "$tmp/results.tsv"
"$bin" >> "$tmp/results.tsv"
# The guest writes to the console only: its lines are picked out of run.sh's output.
cat > build/bench/kernel_budgets.sh <<SH
"$top/$bin" | sed 's/^/budget\t/'
SH
if [ -n "${KERNELS-6.1 6.12 6.1~1 6.12~1}" ]; then
	KERNELS=${KERNELS-6.1 6.12 6.1~1 6.12~1} KERNEL_TESTS="$top/build/bench/kernel_budgets.sh" \
		tests/kernels/run.sh > "$tmp/guests.txt" 2>&1 || true
	sed -n 's/^ *budget\t//p' "$tmp/guests.txt" >> "$tmp/results.tsv"
fi
cp "$tmp/results.tsv" "$out"
awk -F'\t' 'NR > 1 {
	flag = ""
	if ($4 > 150000) flag = "  <- past the budget (150,000)"
	if ($4 > 250000) flag = "  <- past the test line (250,000)"
	printf "%-26s %-8s %-20s %8d insns (%4.1f%%) %8.1f ms%s\n", $1, $2, $3, $4, $4 / 10000,
		$5 / 1000, flag
	total[$1 "\t" $2] += $5 }
	END {
		print "\nverification time of each question, all its programs (the budget: 1 s on a real CPU):"
		for (k in total) { split(k, f, "\t"); printf "%-26s %-8s %8.1f ms\n", f[1], f[2], total[k] / 1000 }
	}' "$out"
