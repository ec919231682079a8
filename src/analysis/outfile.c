// SPDX-License-Identifier: MIT
/* Atomic file output for the views. See outfile.h. */
#include "analysis/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int outfile__write(const char *path, int (*write)(const void *ctx, FILE *out), const void *ctx)
{
	char *tmp;
	FILE *f;
	int err;

	if (strcmp(path, "-") == 0) {
		err = write(ctx, stdout);
		return err ? err : (fflush(stdout) ? -errno : 0);
	}
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		goto out_free;
	}
	err = write(ctx, f);
	if (!err && ferror(f))
		err = -EIO;
	if ((fflush(f) || fsync(fileno(f))) && !err)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out_free:
	free(tmp);
	return err;
}
