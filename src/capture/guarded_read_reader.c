// SPDX-License-Identifier: MIT
/*
 * A guarded read's reader (guarded_read.h): the process of its own, exec'd from this
 * binary for one file, that says hello, opens the file asked for (checking it is that
 * file), says so with its size, copies it into the memory file it was given in chunks,
 * and says done. Whatever a dead mount does to it, the caller is not kept waiting.
 */
#include "capture/guarded_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/guarded_read_protocol.h"

/* Small enough that a reader on a slow but living server shows progress well within
 * GUARDED_READ_ANSWER_S. */
#define GR_CHUNK (256u << 10)

static void reader__send(int sock, uint32_t kind, int err, uint64_t size)
{
	struct gr_message msg = { .kind = kind, .err = err, .size = size };

	/* The caller gone: nothing to do but end. */
	if (send(sock, &msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t)sizeof(msg))
		_exit(1);
}

/* Opens the first path that is the file asked for. The descriptor, or -errno. */
static int reader__open(const struct gr_request *req, struct stat *st)
{
	int err = -ENOENT;

	for (uint32_t i = 0; i < req->npaths && i < GR_PATHS; i++) {
		int fd = open(req->paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);

		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (fstat(fd, st) == 0 && S_ISREG(st->st_mode) && (uint64_t)st->st_dev == req->dev &&
		    (uint64_t)st->st_ino == req->ino)
			return fd;
		err = -ENOENT;
		close(fd);
	}
	return err;
}

static int reader__copy(int fd, int copy, uint64_t size)
{
	char *buf = malloc(GR_CHUNK);
	uint64_t done = 0;

	if (!buf)
		return -ENOMEM;
	while (done < size) {
		size_t want = size - done < GR_CHUNK ? (size_t)(size - done) : GR_CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break; /* it shrank: what there was */
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(copy, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				free(buf);
				return -errno;
			}
			off += w;
		}
		done += (uint64_t)n;
	}
	free(buf);
	return 0;
}

_Noreturn void guarded_read__main(void)
{
	struct gr_request *req = calloc(1, sizeof(*req));
	struct stat st;
	int fd, err;

	if (!req)
		_exit(1);
	reader__send(GR_SOCK_FD, GR_HELLO, 0, 0);
	if (recv(GR_SOCK_FD, req, sizeof(*req), 0) != (ssize_t)sizeof(*req) ||
	    req->version != GR_VERSION)
		_exit(2);
	for (uint32_t i = 0; i < GR_PATHS; i++)
		req->paths[i][PATH_MAX - 1] = '\0';
	/* Where a dead mount keeps us: in here, or in the copy's reads. */
	fd = reader__open(req, &st);
	if (fd < 0) {
		reader__send(GR_SOCK_FD, GR_DONE, fd, 0);
		_exit(0);
	}
	reader__send(GR_SOCK_FD, GR_OPENED, 0, (uint64_t)st.st_size);
	if ((uint64_t)st.st_size > req->max_bytes)
		err = -EFBIG;
	else
		err = reader__copy(fd, GR_COPY_FD, (uint64_t)st.st_size);
	reader__send(GR_SOCK_FD, GR_DONE, err, (uint64_t)st.st_size);
	_exit(0);
}
