// SPDX-License-Identifier: MIT
/*
 * many_tasks PROCESSES THREADS
 *
 * A huge machine's task list on a small one: PROCESSES processes alive at once, THREADS
 * threads in all among them (each process its share, its main thread counted), every
 * thread asleep (one in a hundred wakes every 100 ms for a moment, as idle pools do).
 * Small thread stacks (64 KB), so that 50,000 threads fit a test machine's memory.
 * Prints "ready P processes T threads" once all are up, then waits for SIGTERM or
 * SIGINT, which ends all of them (they are its process group).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	struct timespec nap = { 0, 100000000 };

	if ((long)arg % 100 == 0)
		for (;;)
			nanosleep(&nap, NULL);
	for (;;)
		pause();
	return NULL;
}

/* One process: its threads, then word to the parent on fd, then asleep. */
static int child(int threads, int fd, long first)
{
	pthread_attr_t attr;
	char ok = 1;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 1; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, sleeper, (void *)(first + i))) {
			ok = 0;
			break;
		}
	}
	if (write(fd, &ok, 1) != 1)
		return 1;
	close(fd);
	sleeper((void *)first);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int procs, threads, fds[2], up = 0, failed = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: many_tasks PROCESSES THREADS\n");
		return 2;
	}
	procs = atoi(argv[1]);
	threads = atoi(argv[2]);
	if (procs < 1 || threads < procs) {
		fprintf(stderr, "many_tasks: THREADS must be at least PROCESSES\n");
		return 2;
	}
	setpgid(0, 0);
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	if (pipe(fds))
		return 1;
	for (int i = 0; i < procs && !stop; i++) {
		int mine = threads / procs + (i < threads % procs);
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "many_tasks: fork %d: %s\n", i, strerror(errno));
			break;
		}
		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			close(fds[0]);
			_exit(child(mine, fds[1], (long)i * mine));
		}
	}
	close(fds[1]);
	for (;;) {
		char ok;
		ssize_t n = read(fds[0], &ok, 1);

		if (n == 1) {
			up++;
			failed += !ok;
			continue;
		}
		if (n < 0 && errno == EINTR && !stop)
			continue;
		break;
	}
	printf("ready %d processes %d threads%s\n", up, threads,
	       failed ? " (some threads could not start)" : "");
	fflush(stdout);
	while (!stop)
		pause();
	signal(SIGTERM, SIG_IGN);
	kill(0, SIGTERM);
	while (wait(NULL) > 0)
		;
	return failed ? 1 : 0;
}
