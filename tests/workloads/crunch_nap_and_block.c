// SPDX-License-Identifier: MIT
/* Threads crunch, nap, and block in wait_for_request: tests/integration/capture_wall.sh. */
/* build: -O1 -fno-omit-frame-pointer -pthread */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;
static int fd;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void crunch(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000);
}

/* Its own system calls, so the thread's user stack starts in the function (libc's
 * wrappers have no frame pointers and would hide it). */
__attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, 20000000 };

	sys3(35, (long)&ts, 0, 0); /* nanosleep */
}

__attribute__((noinline)) void wait_for_request(void)
{
	char c;

	sys3(0, fd, (long)&c, 1); /* read */
}

__attribute__((noinline)) void *sleeper(void *arg)
{
	(void)arg;
	for (;;) {
		crunch();
		nap();
	}
	return NULL;
}

__attribute__((noinline)) void *blocker(void *arg)
{
	(void)arg;
	for (;;)
		wait_for_request();
	return NULL;
}

__attribute__((noinline)) void *idler(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	for (;;)
		pthread_cond_wait(&never, &m);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	pthread_t t;

	if (strcmp(name, "sleeper") == 0)
		for (int i = 0; i < atoi(argv[1]); i++)
			pthread_create(&t, NULL, sleeper, NULL);
	if (strcmp(name, "blocker") == 0) {
		fd = open(argv[1], O_RDWR);
		pthread_create(&t, NULL, blocker, NULL);
	}
	if (strcmp(name, "idle") == 0)
		for (int i = 0; i < 8; i++)
			pthread_create(&t, NULL, idler, NULL);
	if (strcmp(name, "pingpong") == 0) {
		int a[2], b[2];
		char c = 0;

		pipe(a);
		pipe(b);
		if (fork() == 0)
			for (;;) {
				read(a[0], &c, 1);
				write(b[1], &c, 1);
			}
		for (;;) {
			write(a[1], &c, 1);
			read(b[0], &c, 1);
		}
	}
	for (;;)
		pause();
}
