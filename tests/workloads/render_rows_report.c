// SPDX-License-Identifier: MIT
/* Busy in render_rows, called from build_report: tests/integration/show.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) void render_rows(void)
{
	/* Stack of its own, so gcc gives it a frame and its callers stay on the stack. */
	volatile uint64_t row[4] = { 0 };

	for (int i = 0; i < 2000000; i++)
		row[i & 3] += (uint64_t)i * i ^ (row[(i + 1) & 3] >> 7);
	sink += row[0];
}
__attribute__((noinline)) void build_report(void)
{
	render_rows();
}
int main(void)
{
	for (;;)
		build_report();
}
