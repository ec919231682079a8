// SPDX-License-Identifier: MIT
/* Crash-safe file writing. See file.h. */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

/* "/dev/stdout", "/dev/fd/N", "/proc/self/fd/N": one of our own descriptors, or -1. */
static int own_fd(const char *path)
{
	const char *n = NULL;
	char *end;
	long fd;

	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		n = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		n = path + 14;
	if (!n || !*n)
		return -1;
	fd = strtol(n, &end, 10);
	if (*end || fd < 0 || fd > INT_MAX || fcntl((int)fd, F_GETFD) < 0)
		return -1;
	return (int)fd;
}

bool file__is_stdout(const char *path)
{
	return own_fd(path) == STDOUT_FILENO;
}

/* Writes a new version of the regular file at path (or a new file there), keeping the
 * mode and owner of the one it replaces. */
static int replace_regular(const char *path, const void *data, size_t len, mode_t mode,
			   const struct stat *old)
{
	char tmp[PATH_MAX];
	int fd, err;

	fd = file__create_tmp(path, old ? (old->st_mode & 07777) : mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	err = 0;
	if (old && (fchmod(fd, old->st_mode & 07777) ||
		    (geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid))))
		err = -errno;
	if (!err)
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

int file__write_output(const char *path, const void *data, size_t len, mode_t mode)
{
	char *real = NULL;
	struct stat st, lst;
	int fd, err;

	if (!*path)
		return -ENOENT;
	fd = own_fd(path);
	if (fd >= 0)
		return file__write_all(fd, data, len);
	/* A link someone else made (in /tmp, say) is not followed: root would write where
	 * they point it. It is replaced, as a new file would be. */
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && lst.st_uid != geteuid())
		return replace_regular(path, data, len, mode, NULL);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		/* /dev/null, a FIFO, a terminal: written in place, never replaced. */
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		err = file__write_all(fd, data, len);
		if (close(fd) && !err)
			err = -errno;
		return err;
	}
	if (lstat(path, &lst) == 0) {
		/* A link to a regular file: the file gets the new version, the link stays. */
		if (S_ISLNK(lst.st_mode)) {
			real = realpath(path, NULL);
			if (!real)
				return -errno;
			path = real;
		}
	} else if (errno != ENOENT) {
		return -errno;
	}
	err = replace_regular(path, data, len, mode, stat(path, &st) == 0 ? &st : NULL);
	free(real);
	return err;
}

/* The directory that holds path (a new file there needs to be written in it). */
static int parent_dir(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return snprintf(dir, size, ".") >= (int)size ? -ENAMETOOLONG : 0;
	if (slash == path)
		return snprintf(dir, size, "/") >= (int)size ? -ENAMETOOLONG : 0;
	if ((size_t)(slash - path) >= size)
		return -ENAMETOOLONG;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return 0;
}

static int writable_dir(const char *dir)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		return -errno;
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		return -EROFS;
	return 0;
}

int file__check_output(const char *path)
{
	char dir[PATH_MAX], *real = NULL;
	struct statvfs vfs;
	struct stat st;
	int err;

	if (!*path)
		return -ENOENT;
	if (own_fd(path) >= 0)
		return 0;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
			return -errno;
		if (!S_ISREG(st.st_mode))
			return 0; /* written in place */
		if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
			return -EROFS;
		real = realpath(path, NULL);
		if (!real)
			return -errno;
		err = parent_dir(real, dir, sizeof(dir));
		free(real);
	} else if (errno == ENOENT) {
		err = parent_dir(path, dir, sizeof(dir));
	} else {
		return -errno;
	}
	return err ? err : writable_dir(dir);
}

int file__free_bytes(int fd, uint64_t *bytes)
{
	struct statvfs vfs;

	if (fstatvfs(fd, &vfs))
		return -errno;
	/* Root may use the reserved blocks too, and it is root that captures. */
	*bytes = (uint64_t)(geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail) * vfs.f_frsize;
	return 0;
}
