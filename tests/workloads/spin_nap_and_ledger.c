// SPDX-License-Identifier: MIT
/* Threads spin, nap between work, and update a ledger under a mutex: tests/integration/wall_reasons.sh. */
/* build: -O1 -fno-omit-frame-pointer -pthread */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;
static pthread_mutex_t ledger = PTHREAD_MUTEX_INITIALIZER;

static void work_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000);
}

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
	struct timespec ts = { 0, 20000000 };

	(void)arg;
	for (;;) {
		work_ms(1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

__attribute__((noinline)) void *update_ledger(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&ledger);
		work_ms(2);
		pthread_mutex_unlock(&ledger);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 4;
	void *(*fn)(void *) = strcmp(argv[1], "crowd") == 0 ? spin_forever :
			      strcmp(argv[1], "nappers") == 0 ? nap_between_work : update_ledger;
	pthread_t t;

	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, fn, NULL);
	for (;;)
		pause();
}
