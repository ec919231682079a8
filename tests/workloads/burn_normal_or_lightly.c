// SPDX-License-Identifier: MIT
/* Burns a CPU in burn_normal, or a tenth of one in burn_lightly: tests/integration/capture_engine.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifndef VARIANT
#define VARIANT 0
#endif

volatile uint64_t sink;
volatile int variant = VARIANT; /* -DVARIANT=N: a copy of another build id */

__attribute__((noinline)) void burn_normal(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i * i;
}

/* About a tenth of a CPU (2 ms of work, then 18 ms asleep): some 20 samples in 2 s, so
 * never none even on a loaded machine (a fiftieth drew none there), never the busiest. */
__attribute__((noinline)) void burn_lightly(void)
{
	struct timespec pause = { 0, 18000000 };

	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i * i;
	nanosleep(&pause, NULL);
}

int main(int argc, char **argv)
{
	int light = argc > 1 && strcmp(argv[1], "light") == 0;

	for (;;) {
		if (light)
			burn_lightly();
		else
			burn_normal();
	}
}
