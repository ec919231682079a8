// SPDX-License-Identifier: MIT
#include "helpers/procmem.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int procmem__read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	int fd = *(int *)ctx;

	return pread(fd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -EFAULT;
}

uint64_t procmem__blocked_sp(pid_t pid)
{
	char path[64], line[512];
	unsigned long long nr, a[6], sp, pc;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fgets(line, sizeof(line), f) ? sscanf(line, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
						 &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &sp, &pc)
					 : 0;
	fclose(f);
	return n == 9 && nr == 0 && a[0] == 0 ? sp : 0;
}
