// SPDX-License-Identifier: MIT
/*
 * gated_file FILE MOUNTPOINT OFFSET DIR
 *
 * A FUSE file system at MOUNTPOINT holding one file, FILE's copy under its base name (its
 * contents read from FILE as they are asked for), with a gate for one thread: when the
 * thread whose id DIR/pid holds (a process's main thread has the process's pid) reads at
 * or past OFFSET, the read creates DIR/reached and waits until DIR/open exists. Any other
 * thread reads at once. A test sees when a thread has come to a given part of a file (a
 * binary's section headers, which a capture's main thread reads only once it has stopped
 * sampling) and holds it there, however fast or loaded the machine.
 * Runs in the foreground until MOUNTPOINT is unmounted or it is killed.
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
static char served[PATH_MAX];	/* "/NAME" */
static off_t gate_offset;
static const char *gate_dir;

/* The thread DIR/pid names, -1 until it names one. */
static pid_t gated_thread(void)
{
	char path[PATH_MAX];
	int pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pid", gate_dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

static void wait_at_gate(void)
{
	char reached[PATH_MAX], open_[PATH_MAX];
	struct timespec pause = { 0, 10000000 };
	int fd;

	snprintf(reached, sizeof(reached), "%s/reached", gate_dir);
	snprintf(open_, sizeof(open_), "%s/open", gate_dir);
	fd = open(reached, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	while (access(open_, F_OK) != 0)
		nanosleep(&pause, NULL);
}

static int gf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, "/") == 0) {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, served) != 0)
		return -ENOENT;
	if (fstat(backing_fd, st))
		return -errno;
	return 0;
}

static int gf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
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

static int gf_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, served) != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	/* Every read comes here: none is answered from pages another process read (a
	 * copy's mapping, being private, still has its pages). */
	fi->direct_io = 1;
	return 0;
}

static int gf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n;

	(void)path, (void)fi;
	if (off + (off_t)size > gate_offset) {
		pid_t gated = gated_thread();

		/* FUSE names the thread that asked, not its process. */
		if (gated > 0 && fuse_get_context()->pid == gated)
			wait_at_gate();
	}
	n = pread(backing_fd, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static const struct fuse_operations gated_ops = {
	.getattr = gf_getattr,
	.readdir = gf_readdir,
	.open = gf_open,
	.read = gf_read,
};

int main(int argc, char **argv)
{
	char *fuse_argv[] = { argv[0], "-f", "-o", "ro,fsname=gated_file", NULL, NULL };
	char name[PATH_MAX];

	if (argc != 5) {
		fprintf(stderr, "usage: gated_file FILE MOUNTPOINT OFFSET DIR\n");
		return 2;
	}
	backing_fd = open(argv[1], O_RDONLY);
	if (backing_fd < 0) {
		perror(argv[1]);
		return 1;
	}
	snprintf(name, sizeof(name), "%s", argv[1]);
	snprintf(served, sizeof(served), "/%s", basename(name));
	gate_offset = strtoll(argv[3], NULL, 0);
	gate_dir = argv[4];
	fuse_argv[4] = argv[2];
	return fuse_main(5, fuse_argv, &gated_ops, NULL);
}
