// SPDX-License-Identifier: MIT
/* Spins in resident_spin for ever: tests/integration/serve_profiler.sh. */
/* build: -O1 -fno-inline */
__attribute__((noinline)) void resident_spin(volatile unsigned long *x) { for (;;) (*x)++; }
int main(void) { volatile unsigned long x = 0; resident_spin(&x); }
