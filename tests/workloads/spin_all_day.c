// SPDX-License-Identifier: MIT
/* Spins in spin_all_day: tests/integration/cpu_idle.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>

volatile uint64_t sink;

__attribute__((noinline)) void spin_all_day(void)
{
	for (;;)
		sink++;
}

int main(void) { spin_all_day(); }
