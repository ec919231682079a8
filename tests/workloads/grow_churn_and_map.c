// SPDX-License-Identifier: MIT
/* Grows the heap in load_dataset, churns buffers, maps a file: tests/integration/capture_memory.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

volatile char sink;

__attribute__((noinline)) void load_dataset(FILE *progress)
{
	for (long grown = 0;; grown += 4 << 20) {
		char *p = malloc(4 << 20);

		for (int j = 0; j < (4 << 20); j += 4096)
			p[j] = 1;
		fprintf(progress, "%ld\n", grown + (4 << 20));
		fflush(progress);
		usleep(100000);
	}
}

__attribute__((noinline)) void churn_buffers(void)
{
	for (;;) {
		char *p = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		for (int j = 0; j < (8 << 20); j += 4096)
			p[j] = 1;
		munmap(p, 8 << 20);
		usleep(20000);
	}
}

/* Maps 32 MB of the file (less when it is smaller) and reads every page, once a second. */
__attribute__((noinline)) void map_file(const char *path)
{
	for (;;) {
		int fd = open(path, O_RDONLY);
		struct stat st;
		size_t len = 32 << 20;
		char *p;

		if (fd < 0 || fstat(fd, &st) != 0)
			exit(1);
		if ((size_t)st.st_size < len)
			len = (size_t)st.st_size & ~(size_t)4095;
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			exit(1);
		for (size_t j = 0; j < len; j += 4096)
			sink += p[j];
		sleep(1);
		munmap(p, len);
	}
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (strcmp(name, "grower") == 0)
		load_dataset(fopen(argv[1], "w"));
	if (strcmp(name, "churner") == 0)
		churn_buffers();
	if (strcmp(name, "mapper") == 0)
		map_file(argv[1]);
	return 0;
}
