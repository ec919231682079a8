// SPDX-License-Identifier: MIT
/* Spins in same_build_spin for ever (with a build id): tests/integration/serve_profiler.sh. */
/* build: -O1 -fno-inline -Wl,--build-id */
__attribute__((noinline)) void same_build_spin(volatile unsigned long *x) { for (;;) (*x)++; }
int main(void) { volatile unsigned long x = 0; same_build_spin(&x); }
