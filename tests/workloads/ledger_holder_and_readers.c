// SPDX-License-Identifier: MIT
/* One thread holds the ledger mutex for 20 ms stretches in apply_batch; three read under
 * it in read_balance and wait: tests/integration/capture_lock_holders.sh. */
/* build: -O1 -pthread -fno-omit-frame-pointer */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static pthread_mutex_t ledger = PTHREAD_MUTEX_INITIALIZER;
volatile uint64_t sink;

static void work(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

/* Holds the ledger for 20 ms, then lets go for 2 ms. */
__attribute__((noinline)) void apply_batch(void)
{
	pthread_mutex_lock(&ledger);
	work(20000000);
	pthread_mutex_unlock(&ledger);
	struct timespec gap = { 0, 2000000 };
	nanosleep(&gap, NULL);
}

/* Reads under the ledger for a moment, 200 times a second. */
__attribute__((noinline)) void read_balance(void)
{
	pthread_mutex_lock(&ledger);
	sink++;
	pthread_mutex_unlock(&ledger);
	struct timespec gap = { 0, 5000000 };
	nanosleep(&gap, NULL);
}

static void *batcher(void *arg)
{
	(void)arg;
	for (;;)
		apply_batch();
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	for (;;)
		read_balance();
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	pthread_create(&t[0], NULL, batcher, NULL);
	for (int i = 1; i < 4; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	pthread_join(t[0], NULL);
	return 0;
}
