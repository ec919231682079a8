#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Seeds for fuzz_python: small libraries shaped like libpython (Py_Version, _PyRuntime
# with or without 3.13's _Py_DebugOffsets, _PyEval_EvalFrameDefault), so that mutations
# start from files the reader accepts. Usage: fuzz/make-python-seeds.sh [DIR] (default
# build/fuzz/seeds/python, where tests/run.sh looks). Needs gcc.
set -euo pipefail

out=${1:-build/fuzz/seeds/python}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/fake.c" <<'C'
#include <stdint.h>
const unsigned long Py_Version = PYV;
struct dbg { char cookie[8]; uint64_t w[72]; };
struct dbg _PyRuntime = { COOKIE, { PYV, 0, 0, 0, 632, 0, 0, 7264, 7344,
  [20] = 8, [22] = 72, [23] = 152, [24] = 160, [28] = 8, [29] = 0, [30] = 56,
  [32] = 70, [34] = 112, [35] = 120, [36] = 128, [37] = 136, [38] = 68, [42] = 200,
  [64] = 16, [65] = 32, [67] = 32, [68] = 16, [69] = 40 } };
void _PyEval_EvalFrameDefault(void) { __asm__(".skip 5000, 0x90"); }
C
gcc -shared -fPIC -O1 -DPYV=0x030d02f0 -DCOOKIE='"xdebugpy"' -o "$out/libpython3.13.so" "$work/fake.c"
gcc -shared -fPIC -O1 -DPYV=0x030b07f0 -DCOOKIE='""' -o "$out/libpython3.11.so" "$work/fake.c"
gcc -shared -fPIC -O1 -DPYV=0x030b07f0 -DCOOKIE='""' -o "$work/s.so" "$work/fake.c"
strip -o "$out/libpython3.11-stripped.so" "$work/s.so"
