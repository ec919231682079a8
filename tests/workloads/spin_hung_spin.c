// SPDX-License-Identifier: MIT
/* Spins in hung_spin for ever: tests/integration/hung_mount.sh. */
/* build: -O1 -fno-inline -fno-omit-frame-pointer */
__attribute__((noinline)) void hung_spin(volatile unsigned long *x) { for (;;) (*x)++; }
int main(void) { volatile unsigned long x = 0; hung_spin(&x); }
