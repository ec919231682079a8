// SPDX-License-Identifier: MIT
/* Clerks contend for the ledger mutex in ledger_post (built with -g): tests/integration/serve_browser.sh. */
/* build: -O1 -g -fno-omit-frame-pointer -pthread */
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

__attribute__((noinline)) void ledger_post(void)
{
	pthread_mutex_lock(&ledger);
	work(2000000);
	pthread_mutex_unlock(&ledger);
}

static void *clerk(void *arg)
{
	(void)arg;
	for (;;)
		ledger_post();
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, clerk, NULL);
	pthread_join(t[0], NULL);
	return 0;
}
