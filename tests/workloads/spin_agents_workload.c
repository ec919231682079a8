// SPDX-License-Identifier: MIT
/* Spins in agents_spin_workload for ever: tests/integration/agents.sh. */
/* build: -O1 -fno-omit-frame-pointer -fno-inline */
__attribute__((noinline)) void agents_spin_workload(volatile unsigned long *x)
{
	for (unsigned long i = 0; i < 100000000UL; i++)
		(*x)++;
}
int main(void) { volatile unsigned long x = 0; for (;;) agents_spin_workload(&x); }
