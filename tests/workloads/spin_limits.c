// SPDX-License-Identifier: MIT
/* Spins in limits_spin for ever: tests/integration/agent_limits.sh. */
/* build: -O1 -fno-omit-frame-pointer -fno-inline */
__attribute__((noinline)) void limits_spin(volatile unsigned long *x) { for (;;) (*x)++; }
int main(void) { volatile unsigned long x = 0; limits_spin(&x); }
