// SPDX-License-Identifier: MIT
/*
 * hung_fs FILE MOUNTPOINT FLAG [every]
 *
 * A FUSE file system at MOUNTPOINT holding one file, FILE's copy under its base name,
 * whose server can stop answering: while the file FLAG exists, every request about that
 * file (its attributes, an open, a read) waits until FLAG is removed, as every request to
 * an NFS hard mount or an sshfs whose server went away waits. The kernel keeps a request
 * that has reached the daemon until it answers, whatever signal its caller gets. The
 * root directory always answers, so the mount can be listed and unmounted. With
 * "every", a request about any other name waits too (a lookup of a file it does not
 * hold, as a directory of debug files on such a mount is searched).
 * Runs in the foreground (one thread a request) until MOUNTPOINT is unmounted or it is
 * killed; killing it ends every waiting request with an error.
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int backing_fd;
static char served[PATH_MAX]; /* "/NAME" */
static const char *flag;
static int every; /* requests about names it does not hold wait too */

/* The server "stops answering" while FLAG exists. */
static void wait_for_server(void)
{
	struct timespec pause = { 0, 10000000 };

	while (access(flag, F_OK) == 0)
		nanosleep(&pause, NULL);
}

static int hf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, "/") == 0) {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, served) != 0) {
		if (every)
			wait_for_server();
		return -ENOENT;
	}
	wait_for_server();
	if (fstat(backing_fd, st))
		return -errno;
	return 0;
}

static int hf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, served + 1, NULL, 0, 0);
	return 0;
}

static int hf_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, served) != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	wait_for_server();
	/* Pages already read stay: the process running the file keeps running from them
	 * while the server is away, as a program run from NFS does. */
	fi->keep_cache = 1;
	return 0;
}

static int hf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path, (void)fi;
	wait_for_server();
	n = pread(backing_fd, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static const struct fuse_operations hung_ops = {
	.getattr = hf_getattr,
	.readdir = hf_readdir,
	.open = hf_open,
	.read = hf_read,
};

int main(int argc, char **argv)
{
	/* attr_timeout=0: every stat asks the server, as on a mount that checks freshness. */
	char *fuse_argv[] = { argv[0], "-f", "-o", "ro,fsname=hung_fs,attr_timeout=0,entry_timeout=0",
			      NULL, NULL };
	char name[PATH_MAX];

	if (argc != 4 && !(argc == 5 && strcmp(argv[4], "every") == 0)) {
		fprintf(stderr, "usage: hung_fs FILE MOUNTPOINT FLAG [every]\n");
		return 2;
	}
	backing_fd = open(argv[1], O_RDONLY);
	if (backing_fd < 0) {
		perror(argv[1]);
		return 1;
	}
	snprintf(name, sizeof(name), "%s", argv[1]);
	snprintf(served, sizeof(served), "/%s", basename(name));
	flag = argv[3];
	every = argc == 5;
	fuse_argv[4] = argv[2];
	return fuse_main(5, fuse_argv, &hung_ops, NULL);
}
