// SPDX-License-Identifier: MIT
/* Spins in rebuilt_spin_new: one of two builds of one layout whose function names differ
 * (spin_rebuilt.c, spin_rebuilt_new.c): tests/integration/serve_profiler.sh. The two
 * files' names differ in length: ld's build id hashes no symbol's name, and the name of
 * the source in .symtab is what moves the section headers, so the builds' ids differ. */
/* build: -O1 -fno-inline */
__attribute__((noinline)) void rebuilt_spin_new(volatile unsigned long *x) { for (;;) (*x)++; }
int main(void) { volatile unsigned long x = 0; rebuilt_spin_new(&x); }
