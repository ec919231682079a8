// SPDX-License-Identifier: MIT
/*
 * An upload streamed to disk as it arrives, never whole in memory: a file in the data
 * directory that has no name (O_TMPFILE), so it is gone when closed, crash or not. The
 * 1 GB cap is counted while streaming: past it nothing more is written, what was is
 * dropped, and the rest of the body is read and ignored so the refusal can be said.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "server/server_internal.h"

struct upload *upload__new(const char *data_dir)
{
	struct upload *u = calloc(1, sizeof(*u));
	char path[PATH_MAX + 32];

	if (!u)
		return NULL;
	u->fd = open(data_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (u->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* A filesystem without O_TMPFILE: a named file, unnamed at once. */
		snprintf(path, sizeof(path), "%s/upload.tmp-XXXXXX", data_dir);
		u->fd = mkostemp(path, O_CLOEXEC);
		if (u->fd >= 0)
			unlink(path);
	}
	if (u->fd < 0) {
		int err = errno;

		free(u);
		errno = err;
		return NULL;
	}
	return u;
}

void upload__write(struct upload *u, const char *data, size_t len)
{
	u->bytes += len;
	if (u->too_large || u->write_err)
		return;
	if (u->bytes > VIEWS_UPLOAD_MAX_BYTES) {
		u->too_large = true;
		/* Give the disk back now rather than when the body ends. */
		if (ftruncate(u->fd, 0))
			u->write_err = errno;
		return;
	}
	while (len) {
		ssize_t n = write(u->fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			u->write_err = n < 0 ? errno : EIO;
			ftruncate(u->fd, 0);
			return;
		}
		data += n;
		len -= (size_t)n;
	}
}

void upload__free(struct upload *u)
{
	if (!u)
		return;
	close(u->fd);
	free(u);
}
