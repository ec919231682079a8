#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Builds the fuzz target's seed corpus: small real ELF files of every shape the reader
# meets. Usage: fuzz/make-seeds.sh [DIR] (default build/fuzz/seeds/elf, where
# tests/run.sh looks; make builds it with the target). Needs gcc, clang,
# ld.lld, binutils; a shape whose tool is missing is left out with a note.
# With a second argument "unwind" (build/fuzz/seeds/unwind, for fuzz_unwind): the same
# files plus a program with only .debug_frame, libc.so.6 whole, and the raw .eh_frame /
# .debug_frame sections of these and of python3.11 (fuzz_unwind also reads raw sections).
set -euo pipefail

out=${1:-build/fuzz/seeds/elf}
kind=${2:-elf}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static int helper(int x) { return x * 3 + 1; }
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += helper(i); return s; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", work(argc * 1000)); return 0; }
C
cat > "$work/lib.c" <<'C'
int lib_add(int a, int b) { return a + b; }
static int lib_hidden(int a) { return a * 7; }
int lib_mul(int a, int b) { return lib_hidden(a) * b; }
C
cat > "$work/bare.c" <<'C'
int bare_func(int x) { return x + 2; }
void _start(void) { for (;;) bare_func(1); }
C

# name: command, run in $work; each leaves $work/$name
build() {
	local name=$1
	shift
	if (cd "$work" && "$@") >/dev/null 2>&1; then
		cp "$work/$name" "$out/$name"
	else
		echo "make-seeds: left out $name (tool missing?)" >&2
	fi
}

build exe      gcc -O1 -g0 -no-pie -o exe prog.c
build pie      gcc -O1 -g0 -pie -fPIE -o pie prog.c
build debug    sh -c 'gcc -O1 -g -o dbg-src prog.c && objcopy --only-keep-debug dbg-src debug'
build stripped sh -c 'gcc -O1 -o stripped-src prog.c && strip -o stripped stripped-src'
build lib.so   gcc -O1 -shared -fPIC -o lib.so lib.c
build lib-stripped.so sh -c 'gcc -O1 -shared -fPIC -o l.so lib.c && strip -o lib-stripped.so l.so'
build zdebug   sh -c 'gcc -O1 -g -o z-src prog.c && objcopy --compress-debug-sections=zlib z-src zdebug'
build zdebug-gnu sh -c 'gcc -O1 -g -o zg-src prog.c && objcopy --compress-debug-sections=zlib-gnu zg-src zdebug-gnu'
build zdebug-only sh -c 'gcc -O1 -g -o zo-src prog.c && objcopy --only-keep-debug --compress-debug-sections=zlib zo-src zdebug-only'
build no-build-id gcc -O1 -Wl,--build-id=none -o no-build-id prog.c
build static32 gcc -m32 -O1 -nostdlib -static -Wl,--build-id -o static32 bare.c
build arm-thumb clang --target=armv7-linux-gnueabihf -mthumb -O1 -nostdlib -static -fuse-ld=lld -Wl,--build-id -o arm-thumb bare.c
build ppc64-be clang --target=powerpc64-linux-gnu -O1 -nostdlib -static -fuse-ld=lld -Wl,--build-id -o ppc64-be bare.c
build object.o gcc -O1 -c -o object.o lib.c
# No section headers at all, as sstrip leaves a file: e_shoff, e_shnum, e_shstrndx zeroed.
build sstripped sh -c 'gcc -O1 -o sstripped prog.c &&
	dd if=/dev/zero of=sstripped bs=1 seek=40 count=8 conv=notrunc &&
	dd if=/dev/zero of=sstripped bs=1 seek=60 count=4 conv=notrunc'
if [ "$kind" = unwind ]; then
	build debug-frame-only gcc -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-o debug-frame-only prog.c
	build omit-fp gcc -O2 -fomit-frame-pointer -o omit-fp prog.c
	libc=$(gcc -print-file-name=libc.so.6)
	[ -f "$libc" ] && cp "$(readlink -f "$libc")" "$out/libc.so.6"
	for f in "$out"/* /usr/bin/python3.11; do
		[ -f "$f" ] || continue
		for sec in .eh_frame .debug_frame; do
			rm -f "$work/sec"; objcopy --dump-section "$sec=$work/sec" "$f" "$work/junk" 2>/dev/null || continue
			[ -s "$work/sec" ] && cp "$work/sec" "$out/$(basename "$f")$sec"
		done
	done
fi
# Not ELF at all: the reader must say so, not crash.
printf '!<arch>\n' > "$out/archive"
cp "$work/prog.c" "$out/source.c"
echo "make-seeds: $(ls "$out" | wc -l) seeds in $out" >&2
