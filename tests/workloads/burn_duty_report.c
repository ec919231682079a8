// SPDX-License-Identifier: MIT
/* THREADS threads each busy DUTY% of every 10 ms, reporting their CPU time: tests/integration/top.sh. */
/* build: -O1 -pthread */
/* burn REPORT DUTY THREADS: THREADS threads each busy DUTY% of every 10 ms; every
 * 50 ms REPORT gets "CPU_SECONDS WALL_SECONDS" as the process counts them itself. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int duty;

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (;;) {
		double start = now(CLOCK_MONOTONIC);

		while (now(CLOCK_MONOTONIC) - start < duty / 100.0 * 0.010)
			x++;
		if (duty < 100)
			usleep((100 - duty) * 100);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double t0 = now(CLOCK_MONOTONIC);
	char tmp[4096];
	pthread_t t;

	if (argc != 4)
		return 2;
	duty = atoi(argv[2]);
	for (int i = 0; i < atoi(argv[3]); i++)
		pthread_create(&t, NULL, work, NULL);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	for (;;) {
		FILE *f = fopen(tmp, "w");

		if (f) {
			fprintf(f, "%.3f %.3f\n", now(CLOCK_PROCESS_CPUTIME_ID),
				now(CLOCK_MONOTONIC) - t0);
			fclose(f);
			rename(tmp, argv[1]);
		}
		usleep(50000);
	}
}
