// SPDX-License-Identifier: MIT
/* Spins in hot_loop (built with -g: its lines are read): tests/integration/hostile.sh. */
/* build: -g -O1 -fno-omit-frame-pointer -Wl,--build-id */
static volatile unsigned long sink;
__attribute__((noinline)) void hot_loop(void)
{
	for (unsigned long i = 0; i < 100000000UL; i++)
		sink += i * 7;
}
int main(void)
{
	for (;;)
		hot_loop();
}
