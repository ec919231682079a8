// SPDX-License-Identifier: MIT
/* Threads compute and fetch rates, and poll a queue: tests/integration/wall_answer.sh. */
/* build: -O1 -fno-omit-frame-pointer -pthread */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;

__attribute__((noinline)) void compute_rates(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000);
}

__attribute__((noinline)) void fetch_rates(void)
{
	usleep(19000);
}

__attribute__((noinline)) void *rates(void *arg)
{
	(void)arg;
	for (;;) {
		compute_rates();
		fetch_rates();
	}
	return NULL;
}

__attribute__((noinline)) void *poll_queue(void *arg)
{
	(void)arg;
	for (;;)
		usleep(500000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	for (int i = 0; i < 4 && strcmp(argv[1], "rates") == 0; i++)
		pthread_create(&t, NULL, rates, NULL);
	for (int i = 0; i < 32 && strcmp(argv[1], "pollers") == 0; i++)
		pthread_create(&t, NULL, poll_queue, NULL);
	(void)argc;
	for (;;)
		pause();
}
