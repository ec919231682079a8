#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Debug symbols, side by side with the tools people use today, in one run:
#
#   1. parse + index a debug file of a 200k-function C program (built -g, .debug split off)
#      vs `nm` listing the same file;
#   2. look up 1M sampled addresses vs `llvm-symbolizer` and `addr2line`, both in batch mode
#      (one process, addresses on stdin);
#   3. upload a ~1 GB debug file (the same one, padded with a debug section): wall time and
#      peak RSS of `slideops symbols upload`; and the same for a ~1 GB file of 1M functions.
#
# Prints each figure and the ratio to the peer. Targets (issue 3): parse >= 2x faster than
# nm, lookups <= 1 us/address warm, upload <= 3 s and <= 64 MB RSS.
#
#   bench/symbols/run.sh                      (make bench-deps first; needs build/slideops)
#   NFUNC=20000 LOOKUPS=100000 bench/symbols/run.sh     a quicker, smaller run
#
# Generated files are kept in $BENCH_DIR (default /tmp/slideops-bench-symbols, ~2.5 GB) and
# reused by the next run with the same sizes.
set -euo pipefail
# A failure says what failed (bench/lib.sh).
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures
trap 'bench_report_failure $?' EXIT

top=$(cd "$(dirname "$0")/../.." && pwd)
SLIDEOPS=${SLIDEOPS:-$top/build/slideops}
BENCH_DIR=${BENCH_DIR:-/tmp/slideops-bench-symbols}
NFUNC=${NFUNC:-200000}
LOOKUPS=${LOOKUPS:-1000000}
BIG_NFUNC=${BIG_NFUNC:-1000000}
GB=$((1 << 30))

for tool in gcc nm objcopy strip addr2line llvm-symbolizer as ld /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$SLIDEOPS" ] || { echo "bench: $SLIDEOPS is not built (make)" >&2; exit 1; }

mkdir -p "$BENCH_DIR"
cd "$BENCH_DIR"

ms() { date +%s%N | awk '{ printf "%.0f", $1 / 1e6 }'; }
# best_ms CMD...: the best wall time of 3 runs, in milliseconds (output discarded)
best_ms() {
	local best= t0 t
	for _ in 1 2 3; do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1; t=$(( ($(date +%s%N) - t0) / 1000000 ))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.1f", a / b }'; }
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }

echo "== building the bench tool"
gcc -O2 -std=c11 -D_GNU_SOURCE -I"$top/src" -o bench_symbols "$top/bench/symbols/bench_symbols.c" \
	"$top"/src/elf/*.c "$top/src/symbols/symtab.c" "$top/src/symbols/elf_symtab.c" "$top"/src/util/*.c -lz

# ---- the program: NFUNC functions in 20 files, built -g, debug file split off ----
if [ ! -f app.debug ] || [ "$(cat app.nfunc 2>/dev/null)" != "$NFUNC" ]; then
	echo "== generating a C program of $NFUNC functions (once; kept in $BENCH_DIR)"
	rm -rf src && mkdir src
	per=$(( (NFUNC + 19) / 20 ))
	for f in $(seq 0 19); do
		awk -v f="$f" -v per="$per" -v n="$NFUNC" 'BEGIN {
			for (i = f * per; i < (f + 1) * per && i < n; i++) {
				printf "__attribute__((noinline)) long billing_ledger_settle_%d(long x)\n", i
				printf "{ long s = x; for (int k = 0; k < (int)(x & 7); k++) s = s * %d + k; return s ^ %d; }\n", i % 97 + 3, i
			}
		}' > "src/part$f.c"
	done
	printf 'long billing_ledger_settle_0(long);\nint main(int c, char **v) { (void)v; return (int)billing_ledger_settle_0(c); }\n' > src/main.c
	t0=$(ms)
	ls src/*.c | xargs -P "$(nproc)" -I{} sh -c 'gcc -O1 -g -c -o "${1%.c}.o" "$1"' _ {}
	gcc -o app src/*.o -Wl,--build-id
	objcopy --only-keep-debug app app.debug
	strip -o app.stripped app
	echo "$NFUNC" > app.nfunc
	echo "   built in $(( ($(ms) - t0) / 1000 )) s: app $(du -h app | cut -f1), app.debug $(du -h app.debug | cut -f1)"
	rm -f addrs.txt app-1g.debug
fi

echo
echo "== 1. parse + index the debug file's functions, vs nm"
ours=$(./bench_symbols parse app.debug 5)
parse_ms=$(echo "$ours" | kv parse_ms)
nfuncs=$(echo "$ours" | kv functions)
nm_ms=$(best_ms nm app.debug)
nmn_ms=$(best_ms nm -n app.debug)
echo "   slideops: $nfuncs functions in $parse_ms ms (read, sort, index; best of 5)"
echo "   nm:       $nm_ms ms  (nm -n, sorted by address as ours: $nmn_ms ms; best of 3)"
echo "   ratio:    $(ratio "$nm_ms" "$parse_ms")x faster than nm, $(ratio "$nmn_ms" "$parse_ms")x than nm -n   (target >= 2x)"

echo
echo "== 2. look up $LOOKUPS sampled addresses, vs llvm-symbolizer and addr2line (batch)"
if [ ! -f addrs.txt ] || [ "$(wc -l < addrs.txt)" != "$LOOKUPS" ]; then
	# Samples land inside functions: a random function, a random offset in it.
	nm -S --defined-only app.debug | awk '$3 ~ /^[Tt]$/ && $2 != "" { print $1, $2 }' > funcs.txt
	./bench_symbols sample funcs.txt "$LOOKUPS" > addrs.txt
fi
ours=$(./bench_symbols lookup app.debug addrs.txt ours.txt)
load_ms=$(echo "$ours" | kv load_ms)
first_ms=$(echo "$ours" | kv first_pass_ms)
warm_ns=$(echo "$ours" | kv warm_ns_per_address)
ours_total=$(awk -v a="$load_ms" -v b="$first_ms" 'BEGIN { printf "%.0f", a + b }')
t0=$(date +%s%N)
llvm-symbolizer --obj=app.debug < addrs.txt > llvm.txt
llvm_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
t0=$(date +%s%N)
addr2line -f -e app.debug < addrs.txt > a2l.txt
a2l_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
# Do the answers agree? llvm-symbolizer: blocks of function, file:line, blank line.
agree_llvm=$(awk 'BEGIN { RS = ""; FS = "\n" } { print $1 }' llvm.txt | paste -d' ' ours.txt - |
	awk '$1 == $2 { ok++ } END { printf "%.2f", 100 * ok / NR }')
agree_a2l=$(awk 'NR % 2 == 1' a2l.txt | paste -d' ' ours.txt - |
	awk '$1 == $2 { ok++ } END { printf "%.2f", 100 * ok / NR }')
echo "   slideops:        load ${load_ms} ms + ${first_ms} ms first pass = ${ours_total} ms;" \
	"warm ${warm_ns} ns/address   (target <= 1000 ns)"
echo "   llvm-symbolizer: ${llvm_ms} ms  ($(ratio "$llvm_ms" "$ours_total")x slower; same function for ${agree_llvm}% of addresses)"
echo "   addr2line -f:    ${a2l_ms} ms  ($(ratio "$a2l_ms" "$ours_total")x slower; same function for ${agree_a2l}% of addresses)"
echo "   (the peers also resolve file:line from DWARF; SlideOps reads names only, as it needs)"

# upload_run FILE LABEL: time and peak RSS of one upload into a fresh workspace, the
# file's pages evicted from the page cache first (a cold read, as after a copy).
upload_run() {
	local file=$1 label=$2 data out
	data=$(mktemp -d "$BENCH_DIR/ws.XXXXXX")
	dd if="$file" iflag=nocache count=0 status=none 2>/dev/null || true
	out=$( { /usr/bin/time -f 'time=%e rss_kb=%M' "$SLIDEOPS" --data "$data" symbols upload "$file" \
		--json > "$data/upload.json"; } 2>&1 | tail -1)
	local secs rss funcs
	secs=$(echo "$out" | kv time)
	rss=$(echo "$out" | kv rss_kb)
	funcs=$(jq .functions "$data/upload.json" 2>/dev/null || echo "?")
	echo "   $label: $(du -b "$file" | awk '{ printf "%.2f GB", $1 / 2^30 }'), $funcs functions:" \
		"${secs} s, peak RSS $((rss / 1024)) MB   (targets <= 3 s, <= 64 MB);" \
		"workspace after: $(du -sh "$data" | cut -f1)"
	rm -rf "$data"
}

# pad FILE OUT: FILE with a debug section that brings it just under 1 GB.
pad() {
	local size
	size=$(stat -c %s "$1")
	head -c $((GB - size - (1 << 20))) /dev/zero > pad.bin
	objcopy --add-section .debug_padding=pad.bin --set-section-flags .debug_padding=readonly "$1" "$2"
	rm -f pad.bin
	[ "$(stat -c %s "$2")" -le "$GB" ] || { echo "bench: padded file is over 1 GB" >&2; exit 1; }
}

echo
echo "== 3. upload ~1 GB debug files"
[ -f app-1g.debug ] || pad app.debug app-1g.debug
upload_run app-1g.debug "the program's debug file, padded"

if [ ! -f many-1g.so ] || [ "$(cat many.nfunc 2>/dev/null)" != "$BIG_NFUNC" ]; then
	echo "   (generating a library of $BIG_NFUNC functions, once)"
	awk -v n="$BIG_NFUNC" 'BEGIN { print ".text"; for (i = 0; i < n; i++) {
		printf ".globl billing_ledger_settle_invoice_%07d\n.type billing_ledger_settle_invoice_%07d,@function\n", i, i
		printf ".p2align 4\nbilling_ledger_settle_invoice_%07d:\n lea 1(%%rdi), %%rax\n ret\n", i
		printf ".size billing_ledger_settle_invoice_%07d,.-billing_ledger_settle_invoice_%07d\n", i, i } }' > many.s
	as -o many.o many.s
	ld -shared --build-id -o many.so many.o
	rm -f many.s many.o
	pad many.so many-1g.so
	rm -f many.so
	echo "$BIG_NFUNC" > many.nfunc
fi
upload_run many-1g.so "$BIG_NFUNC functions, padded  "
