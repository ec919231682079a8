// SPDX-License-Identifier: MIT
/* Leaks in leak_cache, maps a file in map_file, holds a buffer in hold_buffer: tests/integration/memory_owners.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK (48 << 10)
void *volatile kept;
volatile char sink;

#define LEAK(n)                                                                 \
	__attribute__((noinline)) void leak_##n(void)                           \
	{                                                                       \
		volatile char *p = malloc(CHUNK);                               \
		for (int j = 0; j < CHUNK; j += 4096)                           \
			p[j] = 1##n; /* distinct code */                        \
		kept = (void *)p;                                       \
	}
#define LEAK10(t) LEAK(t##0) LEAK(t##1) LEAK(t##2) LEAK(t##3) LEAK(t##4) \
		  LEAK(t##5) LEAK(t##6) LEAK(t##7) LEAK(t##8) LEAK(t##9)
LEAK10(0) LEAK10(1) LEAK10(2) LEAK10(3) LEAK10(4)
#define CALL10(t) leak_##t##0(); leak_##t##1(); leak_##t##2(); leak_##t##3(); leak_##t##4(); \
		  leak_##t##5(); leak_##t##6(); leak_##t##7(); leak_##t##8(); leak_##t##9();

/* 50 x 48 kB every 100 ms, up to 1 GB; the bytes leaked so far go to progress. */
__attribute__((noinline)) void leak_cache(FILE *progress)
{
	for (long leaked = 0; leaked < (1l << 30); leaked += 50 * CHUNK) {
		CALL10(0) CALL10(1) CALL10(2) CALL10(3) CALL10(4)
		fprintf(progress, "%ld\n", leaked + 50 * CHUNK);
		fflush(progress);
		usleep(100000);
	}
	pause();
}

/* 1 MB more of the file every 100 ms, kept mapped. */
__attribute__((noinline)) void map_file(const char *path, FILE *progress)
{
	int fd = open(path, O_RDONLY);
	long size = lseek(fd, 0, SEEK_END);
	char *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	for (long read = 0; read < size; read += 1 << 20) {
		for (long j = read; j < read + (1 << 20) && j < size; j += 4096)
			sink += p[j];
		fprintf(progress, "%ld\n", read + (1 << 20));
		fflush(progress);
		usleep(100000);
	}
	pause();
}

/* 32 MB touched, then held; ready says so. */
__attribute__((noinline)) void hold_buffer(const char *ready)
{
	volatile char *p = malloc(32 << 20);

	for (int j = 0; j < (32 << 20); j += 4096)
		p[j] = 1;
	fclose(fopen(ready, "w"));
	pause();
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (strcmp(name, "leaker") == 0)
		leak_cache(fopen(argv[1], "w"));
	if (strcmp(name, "filemap") == 0)
		map_file(argv[1], fopen(argv[2], "w"));
	if (strcmp(name, "exiter") == 0 || strcmp(name, "starter") == 0)
		hold_buffer(argv[1]);
	return 0;
}
