// SPDX-License-Identifier: MIT
/* THREADS threads each busy DUTY% of every 10 ms: tests/integration/owners.sh. */
/* build: -O1 -pthread */
/* spin REPORT DUTY THREADS: THREADS threads each busy DUTY% of every 10 ms. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int duty;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (;;) {
		double start = now();

		while (now() - start < duty / 100.0 * 0.010)
			x++;
		usleep((100 - duty) * 100 + 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	duty = argc > 1 ? atoi(argv[1]) : 10;
	if (argc > 2)
		for (int i = 1; i < atoi(argv[2]); i++)
			pthread_create(&t, NULL, work, NULL);
	work(NULL);
}
