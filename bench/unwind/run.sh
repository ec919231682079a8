#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Unwind tables: build time and size for Debian's libc.so.6, python3.11 and the largest
# binary on the machine (by file size; LARGEST=PATH to choose), side by side with the
# tools that read the same .eh_frame today, in one run, interleaved:
#
#   slideops   unwind_table__build (bench_unwind.c): parse, sort, merge; best of 3
#   readelf    readelf --debug-dump=frames-interp FILE > /dev/null; best of 3
#   dwarfdump  llvm-dwarfdump --eh-frame FILE > /dev/null; best of 3
#
# Reports per file: our rows, FDEs, table bytes (48-byte header + 8 bytes a row, as on
# disk and in the BPF map), the size of the file's .eh_frame, and the time ratios
# readelf/slideops and llvm-dwarfdump/slideops (how many times faster we are).
#
# Then the BPF cost of one walk (walk_cost.c, root): tables vs frame pointers on the
# same stacks of a frame-pointer program, interleaved, each walk timed in BPF.
# Target (issue 9): table unwinding <= 2x the frame-pointer path.
#
#   bench/unwind/run.sh                (make bench-deps first: llvm, binutils)
#
# Not a test: the figures move with whatever else the machine runs.
set -euo pipefail
# A failure says what failed (bench/lib.sh).
source "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
bench_catch_failures

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'bench_report_failure $?; rm -rf "$work"' EXIT

for tool in gcc readelf llvm-dwarfdump; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench-deps)" >&2; exit 1; }
done
[ -f "$top/build/libslideops.a" ] || { echo "bench: build first (make)" >&2; exit 1; }

gcc -O2 -std=c11 -D_GNU_SOURCE -I"$top/src" -I"$top/bpf" -I"$top/build/gen" \
	-o "$work/bench_unwind" "$top/bench/unwind/bench_unwind.c" "$top/build/libslideops.a" \
	-lbpf -lelf -ldw -lz -lsqlite3 -ljansson -lprotobuf-c -lm

libc=$(readlink -f "$(gcc -print-file-name=libc.so.6)")
# The largest ELF files: the largest of all, and the largest with an .eh_frame (the
# largest is often a stripped Go binary with no frame information at all).
find /usr/bin /usr/sbin /usr/lib /usr/local /opt -xdev -type f -size +1M -printf '%s %p\n' \
	2>/dev/null | sort -rn | head -200 > "$work/big" || true
largest= largest_eh=
while read -r _ f; do
	head -c 4 "$f" 2>/dev/null | grep -q 'ELF' || continue
	[ -n "$largest" ] || largest=$f
	# (readelf's output taken whole: grep -q leaving early would kill it with SIGPIPE,
	# which pipefail calls a failure)
	if grep -q ' \.eh_frame ' <<<"$(readelf -SW "$f" 2>/dev/null)"; then largest_eh=$f; break; fi
done < "$work/big"
largest=${LARGEST:-$largest}
files=("$libc" /usr/bin/python3.11 "$largest")
[ -n "$largest_eh" ] && [ "$largest_eh" != "$largest" ] && files+=("$largest_eh")

# best_ms CMD...: best wall time of 3 runs, in milliseconds (output discarded)
best_ms() {
	local best= t0 t
	for _ in 1 2 3; do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1; t=$(( ($(date +%s%N) - t0) / 1000000 ))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.01; printf "%.1f", a / b }'; }
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }

printf '%-40s %8s %7s %10s %10s %9s %9s %9s %8s %8s\n' file rows fdes table_KB eh_frame_KB \
	ours_ms readelf dwarfdump x_readelf x_dwarfdump
for f in "${files[@]}"; do
	[ -f "$f" ] || { echo "bench: no $f, skipped" >&2; continue; }
	line=$("$work/bench_unwind" --runs 3 "$f")
	if [[ $line == *not-read* ]]; then
		echo "$line"
		continue
	fi
	rows=$(echo "$line" | kv rows)
	fdes=$(echo "$line" | kv fdes)
	bytes=$(echo "$line" | kv bytes)
	ours=$(echo "$line" | kv ms)
	eh=$(readelf -SW "$f" | awk '$2 == ".eh_frame" { print $6 }')
	eh=$(( 16#${eh:-0} ))
	re=$(best_ms readelf --debug-dump=frames-interp "$f")
	dd=$(best_ms llvm-dwarfdump --eh-frame "$f")
	printf '%-40s %8s %7s %10s %10s %9s %9s %9s %8s %8s\n' "$f" "$rows" "$fdes" \
		$((bytes / 1024)) $((eh / 1024)) "$ours" "$re" "$dd" \
		"$(ratio "$re" "$ours")x" "$(ratio "$dd" "$ours")x"
done
echo "(times in ms, best of 3; x_TOOL = TOOL's time / ours: how many times faster the table builds)"

# ---- BPF time per walk ----
if [ "$(id -u)" != 0 ]; then
	echo "bench: the BPF walk cost needs root; skipped" >&2
	exit 0
fi
[ -f "$top/build/bpf/unwind_check.skel.h" ] || { echo "bench: make first" >&2; exit 1; }
cat > "$work/chain.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define KEEP __attribute__((noipa))
static int fds[2];
#include <sys/syscall.h>
static int spin;
KEEP int wait_on_pipe(int d) { char b[64]; memset(b, d, sizeof(b));
  if (spin) for (;;) syscall(SYS_getppid);
  if (read(fds[0], b, 1) < 0) abort(); return b[3]; }
KEEP int level_6(int d) { return wait_on_pipe(d + 1) + 1; }
KEEP int level_5(int d) { return level_6(d + 1) + 1; }
KEEP int level_4(int d) { return level_5(d + 1) + 1; }
KEEP int level_3(int d) { return level_4(d + 1) + 1; }
KEEP int level_2(int d) { return level_3(d + 1) + 1; }
KEEP int level_1(int d) { return level_2(d + 1) + 1; }
int main(int argc, char **argv) { spin = argc > 1 && !strcmp(argv[1], "spin");
  if (pipe(fds) < 0) return 1; return level_1(argc); }
C
gcc -O2 -fno-omit-frame-pointer -o "$work/chain" "$work/chain.c"
gcc -O2 -std=c11 -D_GNU_SOURCE -I"$top/src" -I"$top/bpf" -I"$top/build/gen" -I"$top/build/bpf" \
	-o "$work/walk_cost" "$top/bench/unwind/walk_cost.c" "$top/build/libslideops.a" \
	-lbpf -lelf -ldw -lz -lsqlite3 -ljansson -lprotobuf-c -lm
echo
echo "BPF ns per walk at each syscall of a frame-pointer program 7 calls deep (+ libc, _start):"
"$work/walk_cost" "$work/chain" "${ROUNDS:-20}"
