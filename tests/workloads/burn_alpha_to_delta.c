// SPDX-License-Identifier: MIT
/* Burns the CPU in burn_alpha, burn_beta (in the kernel), burn_gamma and burn_delta: tests/integration/capture_cpu.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void burn_alpha(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i * i;
}

/* Its own system call, so the kernel's frames sit right under it (libc's wrappers
 * have no frame pointers and would hide it). */
__attribute__((noinline)) void burn_beta(double until)
{
	while (now() < until) {
		long ret;

		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i * i;
		__asm__ volatile("syscall" : "=a"(ret) : "a"(39L) : "rcx", "r11", "memory");
		sink += ret;
	}
}

__attribute__((noinline)) void burn_gamma(double seconds)
{
	double until = now() + seconds;

	while (now() < until)
		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i * i;
}

__attribute__((noinline)) void burn_delta(double seconds)
{
	double until = now() + seconds;

	while (now() < until)
		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i * i;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (strcmp(name, "alpha") == 0)
		for (;;)
			burn_alpha();
	if (strcmp(name, "beta") == 0)
		for (;;) {
			burn_beta(now() + 0.020);
			usleep(20000);
		}
	if (strcmp(name, "gamma") == 0)
		burn_gamma(0.030);
	if (strcmp(name, "delta") == 0) {
		struct timespec cpu0, cpu;
		FILE *f;

		/* The process's CPU time before this image (the shell that exec'd it) is not
		 * burn_delta's. */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
		burn_delta(2.0);
		/* What it really got: on a busy machine, less than 2 s. */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		f = fopen(argc > 1 ? argv[1] : "/dev/null", "w");
		if (f) {
			fprintf(f, "%.3f\n", (double)(cpu.tv_sec - cpu0.tv_sec) +
						 (cpu.tv_nsec - cpu0.tv_nsec) / 1e9);
			fclose(f);
		}
	}
	return 0;
}
