// SPDX-License-Identifier: MIT
/*
 * An upload streamed to disk as it arrives, never whole in memory: a file in the data
 * directory that has no name (O_TMPFILE), so it is gone when closed, crash or not. The
 * 1 GB cap is counted while streaming: past it nothing more is written, what was is
 * dropped, and the rest of the body is read and ignored so the refusal can be said.
 * Every upload being read at once holds part of one budget (SERVER_UPLOADS_HELD_MAX): a
 * declared length up front, a body of unknown length as it streams, given back when the
 * file goes; past it the upload is refused, so many at once cannot fill the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "server/server_internal.h"

/* Takes n more bytes of the budget for u: false when that would pass it. */
static bool budget__take(struct upload *u, uint64_t n)
{
	struct upload_budget *b = u->budget;
	bool ok;

	pthread_mutex_lock(&b->lock);
	ok = b->held + n <= SERVER_UPLOADS_HELD_MAX;
	if (ok) {
		b->held += n;
		u->reserved += n;
	}
	pthread_mutex_unlock(&b->lock);
	return ok;
}

static void budget__give_back(struct upload *u)
{
	pthread_mutex_lock(&u->budget->lock);
	u->budget->held -= u->reserved;
	pthread_mutex_unlock(&u->budget->lock);
	u->reserved = 0;
}

struct upload *upload__new(const char *data_dir, struct upload_budget *budget,
			   uint64_t declared)
{
	struct upload *u = calloc(1, sizeof(*u));
	char path[PATH_MAX + 32];

	if (!u)
		return NULL;
	u->budget = budget;
	if (declared && !budget__take(u, declared)) {
		free(u);
		errno = EBUSY;
		return NULL;
	}
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

		budget__give_back(u);
		free(u);
		errno = err;
		return NULL;
	}
	return u;
}

void upload__write(struct upload *u, const char *data, size_t len)
{
	u->bytes += len;
	if (u->too_large || u->over_budget || u->write_err)
		return;
	if (u->bytes > VIEWS_UPLOAD_MAX_BYTES ||
	    (u->bytes > u->reserved && !budget__take(u, u->bytes - u->reserved))) {
		if (u->bytes > VIEWS_UPLOAD_MAX_BYTES)
			u->too_large = true;
		else
			u->over_budget = true;
		/* Give the disk back now rather than when the body ends. */
		if (ftruncate(u->fd, 0))
			u->write_err = errno;
		budget__give_back(u);
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
	budget__give_back(u);
	free(u);
}
