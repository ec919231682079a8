// SPDX-License-Identifier: MIT
/*
 * The kernel matrix's known workloads, one binary (tests/kernels/run.sh builds it on the
 * host; the guests run it from there). argv[1] says which; every function a question
 * must name is noinline and built with frame pointers, and makes its own system calls
 * and page faults: where a guest's profiler has no unwind tables yet (its time to read
 * binaries runs out under emulation), frame pointers alone still reach it (libc's
 * wrappers have none and would hide their caller):
 *   burn    busy all the time in burn_cpu                                 (cpu)
 *   nap     8 threads asleep 20 ms at a time in nap                       (wall, threads)
 *   ledger  4 threads taking turns at one futex lock in take_ledger, 2 ms each (locks)
 *   grow    grows its heap by 4 MB every 100 ms in load_dataset           (memory)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;

__attribute__((noinline)) void burn_cpu(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i * i;
}

static long syscall4(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void nap(void)
{
	struct timespec t = { 0, 20000000 };

	syscall4(35 /* nanosleep */, (long)&t, 0, 0, 0);
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

/* A futex lock of its own: 0 free, 1 taken. */
static int ledger;

__attribute__((noinline)) void take_ledger(void)
{
	while (__atomic_exchange_n(&ledger, 1, __ATOMIC_ACQUIRE))
		syscall4(202 /* futex */, (long)&ledger, 0x80 /* FUTEX_WAIT_PRIVATE */, 1, 0);
}

static void give_ledger(void)
{
	__atomic_store_n(&ledger, 0, __ATOMIC_RELEASE);
	syscall4(202, (long)&ledger, 0x81 /* FUTEX_WAKE_PRIVATE */, 1, 0);
}

static void *clerk(void *arg)
{
	(void)arg;
	for (;;) {
		take_ledger();
		work(2000000);
		give_ledger();
	}
	return NULL;
}

__attribute__((noinline)) void load_dataset(size_t bytes)
{
	char *p = malloc(bytes);

	for (size_t i = 0; p && i < bytes; i += 4096)
		p[i] = 1;
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
