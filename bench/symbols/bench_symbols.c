// SPDX-License-Identifier: MIT
/*
 * The symbol side of SlideOps, timed from inside: what `slideops symbols upload` and
 * the symbolizer do with a file, without the command line around them.
 *
 *   bench_symbols parse FILE [ROUNDS]       read + index .symtab: best wall time of ROUNDS
 *   bench_symbols sample FUNCS N            N addresses inside the functions of FUNCS ("addr
 *                                          size" in hex a line, as nm -S prints them): a
 *                                          random function, a random offset in it (seed 42)
 *   bench_symbols lookup FILE ADDRS [OUT]   look up every address of ADDRS (one hex a line)
 *                                          twice; report the second (warm) pass; OUT gets
 *                                          the names, to compare with the peers' answers
 *
 * Prints one line of "key=value" pairs for run.sh to read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "symbols/symtab.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct symtab *load(const char *path, double *seconds)
{
	struct elf_info info;
	struct symtab *tab = NULL;
	double t0 = now();
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	err = elf_info__read(fd, &info);
	if (!err)
		err = symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab);
	close(fd);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		exit(1);
	}
	*seconds = now() - t0;
	return tab;
}

static int parse(const char *path, int rounds)
{
	double best = 1e9, t;

	for (int i = 0; i < rounds; i++) {
		struct symtab *tab = load(path, &t);

		if (t < best)
			best = t;
		if (i == rounds - 1)
			printf("functions=%zu parse_ms=%.2f\n", tab->nsyms, best * 1e3);
		symtab__free(tab);
	}
	return 0;
}

static int lookup(const char *path, const char *addrs_path, const char *out_path)
{
	FILE *f = fopen(addrs_path, "r"), *out = NULL;
	uint64_t *addrs = NULL, a;
	size_t n = 0, cap = 0, named = 0;
	const char **names;
	double load_s, t0, cold, warm;
	struct symtab *tab;

	if (!f) {
		perror(addrs_path);
		return 1;
	}
	while (fscanf(f, "%" SCNx64, &a) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			addrs = realloc(addrs, cap * sizeof(*addrs));
			if (!addrs)
				return 1;
		}
		addrs[n++] = a;
	}
	fclose(f);
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return 1;

	tab = load(path, &load_s);
	t0 = now();
	for (size_t i = 0; i < n; i++)
		names[i] = symtab__lookup(tab, addrs[i], NULL);
	cold = now() - t0;
	t0 = now();
	for (size_t i = 0; i < n; i++)
		names[i] = symtab__lookup(tab, addrs[i], NULL);
	warm = now() - t0;
	for (size_t i = 0; i < n; i++)
		named += names[i] != NULL;

	if (out_path) {
		out = fopen(out_path, "w");
		for (size_t i = 0; out && i < n; i++)
			fprintf(out, "%s\n", names[i] ? names[i] : "??");
		if (out)
			fclose(out);
	}
	printf("addresses=%zu named=%zu load_ms=%.2f first_pass_ms=%.2f warm_ms=%.2f "
	       "warm_ns_per_address=%.1f\n",
	       n, named, load_s * 1e3, cold * 1e3, warm * 1e3, warm * 1e9 / (double)(n ? n : 1));
	symtab__free(tab);
	free(names);
	free(addrs);
	return 0;
}

static int sample(const char *funcs_path, long n)
{
	FILE *f = fopen(funcs_path, "r");
	uint64_t *addr = NULL, *size = NULL, a, s;
	size_t count = 0, cap = 0;

	if (!f) {
		perror(funcs_path);
		return 1;
	}
	while (fscanf(f, "%" SCNx64 " %" SCNx64, &a, &s) == 2) {
		if (s == 0)
			continue;
		if (count == cap) {
			cap = cap ? 2 * cap : 4096;
			addr = realloc(addr, cap * sizeof(*addr));
			size = realloc(size, cap * sizeof(*size));
			if (!addr || !size)
				return 1;
		}
		addr[count] = a;
		size[count++] = s;
	}
	fclose(f);
	if (!count)
		return 1;
	srandom(42);
	for (long i = 0; i < n; i++) {
		size_t k = (size_t)random() % count;

		printf("0x%" PRIx64 "\n", addr[k] + (uint64_t)random() % size[k]);
	}
	free(addr);
	free(size);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "sample") == 0)
		return sample(argv[2], atol(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "parse") == 0)
		return parse(argv[2], argc > 3 ? atoi(argv[3]) : 5);
	if (argc >= 4 && strcmp(argv[1], "lookup") == 0)
		return lookup(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
	fprintf(stderr, "usage: bench_symbols parse FILE [ROUNDS] | sample FUNCS N | "
		"lookup FILE ADDRS [OUT]\n");
	return 2;
}
