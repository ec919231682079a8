// SPDX-License-Identifier: MIT
/* Atomic file output for the views. See outfile.h. */
#include "util/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file.h"

int outfile__write(const char *path, int (*write)(const void *ctx, FILE *out), const void *ctx)
{
	char *data = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	if (strcmp(path, "-") == 0) {
		err = write(ctx, stdout);
		return err ? err : (fflush(stdout) ? -errno : 0);
	}
	fflush(stdout); /* what is printed already goes before anything written to fd 1 */
	/* Whole in memory first (a flame graph is a few MB): the file appears complete or not. */
	mem = open_memstream(&data, &len);
	if (!mem)
		return -errno;
	err = write(ctx, mem);
	if (!err && ferror(mem))
		err = -EIO;
	if (fclose(mem) && !err)
		err = -errno;
	if (!err)
		err = file__write_output(path, data, len, 0644);
	free(data);
	return err;
}
