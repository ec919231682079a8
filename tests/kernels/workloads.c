// SPDX-License-Identifier: MIT
/*
 * The kernel matrix's known workloads, one binary (tests/kernels/run.sh builds it on the
 * host; the guests run it from there). argv[1] says which; every function a question
 * must name is noinline and built with frame pointers:
 *   burn    busy all the time in burn_cpu                                 (cpu)
 *   nap     8 threads asleep 20 ms at a time in nap                       (wall, threads)
 *   ledger  4 threads taking turns at one mutex in take_ledger, 2 ms each (locks)
 *   grow    grows its heap by 4 MB every 100 ms in load_dataset           (memory)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;
static pthread_mutex_t ledger = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void burn_cpu(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i * i;
}

__attribute__((noinline)) void nap(void)
{
	struct timespec t = { 0, 20000000 };

	nanosleep(&t, NULL);
}

static void *napper(void *arg)
{
	(void)arg;
	for (;;)
		nap();
	return NULL;
}

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

static void *clerk(void *arg)
{
	(void)arg;
	for (;;) {
		take_ledger();
		work(2000000);
		pthread_mutex_unlock(&ledger);
	}
	return NULL;
}

__attribute__((noinline)) void load_dataset(size_t bytes)
{
	char *p = malloc(bytes);

	if (p)
		memset(p, 1, bytes);
	sink += (uintptr_t)p; /* kept: the heap only grows */
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	void *(*fn)(void *) = NULL;
	int n = 0;
	pthread_t t;

	if (strcmp(what, "burn") == 0)
		for (;;)
			burn_cpu();
	if (strcmp(what, "grow") == 0)
		for (;;) {
			load_dataset(4 << 20);
			usleep(100000);
		}
	if (strcmp(what, "nap") == 0)
		fn = napper, n = 8;
	if (strcmp(what, "ledger") == 0)
		fn = clerk, n = 4;
	if (!fn)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, fn, NULL);
	for (;;)
		pause();
}
