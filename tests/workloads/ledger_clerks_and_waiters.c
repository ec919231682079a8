// SPDX-License-Identifier: MIT
/* Clerks contend for the ledger mutex in ledger_post; workers wait for orders: tests/integration/capture_locks.sh. */
/* build: -O1 -fno-omit-frame-pointer -pthread */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t ledger = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t orders_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t orders = PTHREAD_COND_INITIALIZER;
static int pending;
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

__attribute__((noinline)) void take_ledger(void)
{
	pthread_mutex_lock(&ledger);
}

__attribute__((noinline)) void ledger_post(void)
{
	take_ledger();
	work(2000000);
	pthread_mutex_unlock(&ledger);
}

__attribute__((noinline)) void *clerk(void *arg)
{
	(void)arg;
	for (;;)
		ledger_post();
	return NULL;
}

__attribute__((noinline)) void wait_for_orders(void)
{
	pthread_mutex_lock(&orders_lock);
	while (!pending)
		pthread_cond_wait(&orders, &orders_lock);
	pending--;
	pthread_mutex_unlock(&orders_lock);
}

__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	for (;;)
		wait_for_orders();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	pthread_t t[4];

	(void)argc;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, strcmp(name, "ledger") == 0 ? clerk : worker, NULL);
	/* The pool: an order every 50 ms, one worker woken for it. */
	for (;;) {
		usleep(50000);
		pthread_mutex_lock(&orders_lock);
		pending++;
		pthread_mutex_unlock(&orders_lock);
		pthread_cond_signal(&orders);
	}
}
