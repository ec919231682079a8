// SPDX-License-Identifier: MIT
/* Burns a CPU in burn_normal, or a tenth of one in burn_lightly: tests/integration/capture_engine.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* About a tenth of a CPU (2 ms of work, then 8 to 28 ms asleep, 18 on average): some 20
 * samples in 2 s, so never none even on a loaded machine (a fiftieth drew none there), never
 * the busiest. The sleep varies: a fixed 20 ms period is nearly twice the 99 Hz sampling
 * period, and a process that wakes in step with the sampling timer can miss every tick of a
 * 2 s capture (CI saw it draw none). */
__attribute__((noinline)) void burn_lightly(void)
{
	static uint32_t seed;
	struct timespec pause = { 0, 0 };

	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i * i;
	if (!seed)
		seed = 2463534242u ^ (uint32_t)getpid();
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	pause.tv_nsec = 8000000 + (long)(seed % 20000001u);
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
