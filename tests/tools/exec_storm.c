// SPDX-License-Identifier: MIT
/*
 * exec_storm RATE SECONDS
 *
 * A storm of short-lived processes: RATE times a second for SECONDS, this binary is
 * exec'd again (posix_spawn) as a child that works 0.2 ms, sleeps 3 ms and exits, as a
 * server does when a shell script, a CGI or a health check runs its small programs.
 * Four threads spawn, a fourth of the rate each (posix_spawn waits until its child has
 * exec'd, which on a loaded machine waits for a CPU); one more reaps.
 * Build it static (gcc -static): an exec of a dynamic binary costs the dynamic loader on
 * top, and the storm is about processes, not libraries. Prints "started N exited M in S s"
 * at the end; SECONDS 0 runs until killed (SIGTERM: it stops and prints).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The child: 0.2 ms of work, 3 ms asleep. */
static int child(void)
{
	struct timespec nap = { 0, 3000000 };
	volatile uint64_t x = 1;
	int64_t until = now_ns() + 200000;

	while (now_ns() < until)
		x = x * 6364136223846793005ULL + 1;
	nanosleep(&nap, NULL);
	return 0;
}

#define SPAWNERS 4

static int64_t gap, end;
static char self[4096]; /* our path: a child's name is its file's (exec_storm), not "exe" */
static atomic_uint_fast64_t started, exited;
static atomic_int spawning = SPAWNERS;

static void *spawner(void *arg)
{
	char *child_argv[] = { "storm-child", "child", NULL };
	int64_t next = now_ns() + (int64_t)(uintptr_t)arg * gap / SPAWNERS;

	while (!stop && now_ns() < end) {
		struct timespec at;
		pid_t pid;

		/* Behind (a loaded machine): catch up, but never by more than a burst of 50. */
		if (now_ns() - next > 50 * gap)
			next = now_ns() - 50 * gap;
		if (posix_spawn(&pid, self, NULL, NULL, child_argv, environ) == 0)
			atomic_fetch_add(&started, 1);
		next += gap;
		at.tv_sec = next / 1000000000LL;
		at.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	}
	atomic_fetch_sub(&spawning, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[SPAWNERS];
	double rate, seconds;
	int64_t start;

	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc != 3) {
		fprintf(stderr, "usage: exec_storm RATE SECONDS\n");
		return 2;
	}
	rate = atof(argv[1]);
	seconds = atof(argv[2]);
	if (rate <= 0)
		return 2;
	if (!realpath("/proc/self/exe", self))
		return 1;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	gap = (int64_t)(1e9 * SPAWNERS / rate);
	start = now_ns();
	end = seconds > 0 ? start + (int64_t)(seconds * 1e9) : INT64_MAX;
	for (uintptr_t i = 0; i < SPAWNERS; i++)
		pthread_create(&threads[i], NULL, spawner, (void *)i);
	/* Reaps until every spawner is done and every child waited for. */
	for (;;) {
		pid_t pid = waitpid(-1, NULL, 0);

		if (pid > 0) {
			atomic_fetch_add(&exited, 1);
			continue;
		}
		if (errno == ECHILD && atomic_load(&spawning) == 0)
			break;
		if (errno == ECHILD)
			usleep(1000);
	}
	for (int i = 0; i < SPAWNERS; i++)
		pthread_join(threads[i], NULL);
	while (waitpid(-1, NULL, 0) > 0)
		atomic_fetch_add(&exited, 1);
	printf("started %llu exited %llu in %.2f s\n", (unsigned long long)atomic_load(&started),
	       (unsigned long long)atomic_load(&exited), (now_ns() - start) / 1e9);
	return 0;
}
