// SPDX-License-Identifier: MIT
/* Crash-safe file writing. See file.h. */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int file__write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int file__fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	/* Some filesystems cannot fsync a directory; their renames are as durable as it gets. */
	if (fsync(fd) && errno != EINVAL)
		err = -errno;
	close(fd);
	return err;
}

int file__create_tmp(const char *prefix, mode_t mode, char *tmp, size_t size)
{
	for (int tries = 0; tries < 16; tries++) {
		uint64_t r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ (uint64_t)tries;
		if ((size_t)snprintf(tmp, size, "%s" FILE_TMP_MARK "%016llx", prefix,
				     (unsigned long long)r) >= size)
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		return file__fsync_dir(".");
	if (slash == path)
		return file__fsync_dir("/");
	if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return file__fsync_dir(dir);
}

int file__write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	char tmp[PATH_MAX];
	int fd, err;

	fd = file__create_tmp(path, mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	err = file__write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	return fsync_parent(path);
}
