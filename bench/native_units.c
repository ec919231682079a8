// SPDX-License-Identifier: MIT
/*
 * The native workload of the benchmarks that compare a runtime's frames with native ones
 * (bench/python, bench/runtimes): a chain of three functions built with frame pointers,
 * outer -> middle -> computeTotals, units of work until SECONDS (argv[1]) have passed,
 * then how many. Built by each benchmark: gcc -O2 -fno-omit-frame-pointer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define KEEP __attribute__((noipa))

KEEP static uint64_t computeTotals(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}
KEEP static uint64_t middle(uint64_t x) { return computeTotals(x) ^ 3; }
KEEP static uint64_t outer(uint64_t x) { return middle(x) + 1; }

int main(int argc, char **argv)
{
	struct timespec ts;
	double until;
	uint64_t x = 1, n = 0;

	(void)argc;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	until = ts.tv_sec + ts.tv_nsec / 1e9 + atof(argv[1]);
	do {
		for (int i = 0; i < 100; i++, n++)
			x = outer(x);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < until);
	printf("%llu\n", (unsigned long long)(n + (x == 42)));
	return 0;
}
