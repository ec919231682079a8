// SPDX-License-Identifier: MIT
/* Threads wait in read in wait_for_orders; sleepers sleep: tests/integration/capture_threads.sh. */
/* build: -O1 -fno-omit-frame-pointer -pthread */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pipe_fds[2];

/* Its own system call, so the thread's user stack starts here (libc's wrappers have
 * no frame pointers and would hide it). */
__attribute__((noinline)) void wait_for_orders(void)
{
	char c;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(0L), "D"((long)pipe_fds[0]), "S"(&c), "d"(1L)
			 : "rcx", "r11", "memory");
}

__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	for (;;)
		wait_for_orders();
	return NULL;
}

__attribute__((noinline)) void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int n = atoi(argv[1]);
	pthread_attr_t attr;
	pthread_t t;

	pipe(pipe_fds);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &attr, strcmp(name, "orders") == 0 ? worker : sleeper, NULL))
			return 1;
	write(1, "ready\n", 6);
	for (;;)
		pause();
}
