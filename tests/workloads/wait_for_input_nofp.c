// SPDX-License-Identifier: MIT
/* Threads wait for input in read, without frame pointers: tests/integration/threads_stacks.sh. */
/* build: -O2 -fomit-frame-pointer -pthread */
#include <pthread.h>
#include <unistd.h>

static int pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile long reads;

/* The counter after the call keeps read() a call, not a tail jump. */
__attribute__((noinline)) void wait_for_input(void)
{
	char c;

	if (read(pipe_fds[0], &c, 1) > 0)
		reads++;
	reads++;
}

__attribute__((noinline)) void *idle_worker(void *arg)
{
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return arg;
}

/* Wakes main once a second, so that wall counts it as a thread that ran. */
static void *ticker(void *arg)
{
	for (;;) {
		sleep(1);
		if (write(pipe_fds[1], "x", 1) < 0)
			break;
	}
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pipe(pipe_fds) || pthread_create(&t, NULL, idle_worker, NULL) ||
	    pthread_create(&t, NULL, ticker, NULL))
		return 1;
	for (;;)
		wait_for_input();
}
