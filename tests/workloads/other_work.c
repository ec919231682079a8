// SPDX-License-Identifier: MIT
/* Busy in other_work: tests/integration/show.sh. */
/* build: -O1 */
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) void other_work(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i;
}
int main(void)
{
	for (;;)
		other_work();
}
