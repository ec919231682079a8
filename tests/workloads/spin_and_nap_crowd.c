// SPDX-License-Identifier: MIT
/* Threads spin for ever or nap between work (built with -g): tests/integration/serve_browser.sh. */
/* build: -O1 -g -fno-omit-frame-pointer -pthread */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;

__attribute__((noinline)) void *spin_forever(void *arg)
{
	(void)arg;
	for (;;)
		for (int i = 0; i < 1000000; i++)
			sink += (uint64_t)i * i;
	return NULL;
}

__attribute__((noinline)) void *nap_between_work(void *arg)
{
	struct timespec ts = { 0, 20000000 }, t0, t;

	(void)arg;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 1000; i++)
				sink += (uint64_t)i * i;
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(void)
{
	long spinners = 3 * sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t;

	for (long i = 0; i < spinners; i++)
		pthread_create(&t, NULL, spin_forever, NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, nap_between_work, NULL);
	pthread_join(t, NULL);
	return 0;
}
