// SPDX-License-Identifier: MIT
/*
 * Programs of one question interrupting each other on a CPU (tests/integration/overlap.sh):
 * threads of two families, alpha and beta, each in its own chain of functions
 * (FAMILY_outer -> FAMILY_middle -> FAMILY_inner), built without frame pointers so that
 * every stack is the walker's. Each inner function does everything the questions sample,
 * over and over: CPU work (cpu, wall's ticks), a short sleep (wall's switches), a
 * contended mutex (locks: futex waits and wakes) and fresh pages (memory). A stack torn
 * by two walks in one place would hold both families, or a chain out of order.
 */
/* build: -O2 -fomit-frame-pointer -pthread */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define SPIN(name) volatile uint64_t name##_sink
SPIN(alpha);
SPIN(beta);

static pthread_mutex_t alpha_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t beta_lock = PTHREAD_MUTEX_INITIALIZER;

static void nap(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

/* 256 KB of fresh pages, given back: faults every time. */
static void touch(void)
{
	char *p = mmap(NULL, 256 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	memset(p, 1, 256 << 10);
	munmap(p, 256 << 10);
}

#define FAMILY(f)                                                                  \
	__attribute__((noinline)) void f##_inner(void)                              \
	{                                                                          \
		for (int i = 0; i < 200000; i++)                                   \
			f##_sink += (uint64_t)i * i;                               \
		pthread_mutex_lock(&f##_lock);                                     \
		for (int i = 0; i < 50000; i++)                                    \
			f##_sink += (uint64_t)i;                                   \
		pthread_mutex_unlock(&f##_lock);                                   \
		touch();                                                           \
		nap(200000);                                                       \
	}                                                                          \
	__attribute__((noinline)) void f##_middle(void)                             \
	{                                                                          \
		f##_inner();                                                       \
		__asm__ volatile("" ::: "memory");                                 \
	}                                                                          \
	__attribute__((noinline)) void *f##_outer(void *arg)                        \
	{                                                                          \
		(void)arg;                                                         \
		for (;;)                                                           \
			f##_middle();                                              \
		return NULL;                                                       \
	}

FAMILY(alpha)
FAMILY(beta)

int main(void)
{
	pthread_t t[6];

	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, i % 2 ? beta_outer : alpha_outer, NULL);
	pthread_join(t[0], NULL);
	return 0;
}
