// SPDX-License-Identifier: MIT
/* Chains of calls to check whole stacks by (tests/integration/stacks.sh says which):
 * nofp_outer -> nofp_middle -> nofp_inner, memcpy, qsort, a pipe and a dlopen'd plugin;
 * built with frame pointers (stack_chains_nofp.c, stack_chains_nofp_nopie.c: without). */
/* build: -O2 -fno-omit-frame-pointer -ldl */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define KEEP __attribute__((noipa))
volatile uint64_t sink;

/* Built without frame pointers: a chain whose callers only tables can find. */
KEEP uint64_t nofp_inner(uint64_t x)
{
	volatile char pad[40];

	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	pad[0] = (char)x;
	return x + pad[0];
}
KEEP uint64_t nofp_middle(uint64_t x) { volatile long pad[5]; pad[1] = (long)x; return nofp_inner(x + pad[1]) * 3; }
KEEP uint64_t nofp_outer(uint64_t x) { return nofp_middle(x ^ 7) + 1; }

static char src[1 << 16], dst[1 << 16];
KEEP void copy_block(int n) { for (int i = 0; i < n; i++) { memcpy(dst, src, sizeof(dst)); sink += dst[i & 4095]; } }
KEEP void copy_loop(void) { for (;;) copy_block(64); }

KEEP int compare_items(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	/* Work of its own, so that the program's time is mostly here. */
	for (int i = 0; i < 40; i++) {
		x = x * 1103515245u + 12345u;
		y = y * 1103515245u + 12345u;
	}
	sink += x ^ y;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : *(const uint32_t *)a > *(const uint32_t *)b;
}
KEEP void sort_loop(void)
{
	static uint32_t v[4096];

	for (uint32_t seed = 1;; seed++) {
		for (int i = 0; i < 4096; i++)
			v[i] = (seed += 2654435761u) >> 7;
		qsort(v, 4096, sizeof(v[0]), compare_items);
	}
}

/* It reads what it got, byte by byte: the reader's time, not the writer's (main, in the
 * same group), is what the group's "most of it in" weighs. */
KEEP void read_chunk(int fd)
{
	static char buf[1 << 16];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n <= 0)
		exit(1);
	for (ssize_t i = 0; i < n; i++)
		sink += buf[i];
}
KEEP void read_loop(int fd) { for (;;) read_chunk(fd); }

KEEP void run_plugin(const char *path)
{
	void *h;
	uint64_t (*work)(uint64_t);

	/* Loaded once sampling has begun: its mapping is new to the profiler. */
	sleep(2);
	h = dlopen(path, RTLD_NOW);
	if (!h || !(work = (uint64_t (*)(uint64_t))dlsym(h, "plugin_work")))
		exit(1);
	for (uint64_t x = 1;; x++)
		sink += work(x);
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (strncmp(name, "nofp", 4) == 0)
		for (uint64_t x = 1;; x++)
			sink += nofp_outer(x);
	if (strcmp(name, "memcpy") == 0)
		copy_loop();
	if (strcmp(name, "qsort") == 0)
		sort_loop();
	if (strcmp(name, "pipe") == 0) {
		int fds[2];

		if (pipe(fds))
			return 1;
		if (fork() == 0) {
			static char buf[1 << 16];

			/* The writer is not what is checked: a name of its own. */
			prctl(PR_SET_NAME, "pipe-writer");
			close(fds[0]);
			for (;;)
				if (write(fds[1], buf, sizeof(buf)) < 0)
					_exit(0);
		}
		close(fds[1]);
		read_loop(fds[0]);
	}
	if (strcmp(name, "plugin") == 0 && argc > 1)
		run_plugin(argv[1]);
	return 2;
}
