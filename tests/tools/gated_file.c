// SPDX-License-Identifier: MIT
/*
 * gated_file FILE MOUNTPOINT OFFSET DIR
 *
 * A FUSE file system at MOUNTPOINT holding one file, FILE's copy under its base name (its
 * contents read from FILE as they are asked for), with a gate for the children of one
 * process: when a thread of a process whose parent is the one DIR/pid names reads at or
 * past OFFSET, the read creates DIR/reached and, until DIR/open exists, is answered one
 * byte every 50 ms. Any other thread reads at once. A capture reads a file of a FUSE
 * mount only in reader processes of its own (src/capture/guarded_read.c), and waits for
 * such a reader for as long as it goes on answering: a test holds the capture where it
 * waits for the file (its main thread does once it has stopped sampling), however fast or
 * loaded the machine, without the reader ever looking stuck.
 * Runs in the foreground until MOUNTPOINT is unmounted or it is killed.
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <libgen.h>
#include <stdbool.h>
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

/* The process DIR/pid names, -1 until it names one. */
static pid_t gated_parent(void)
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

/* The parent of thread tid's process (FUSE names the thread that asked). */
static pid_t parent_of(pid_t tid)
{
	char path[64], line[256];
	pid_t ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid;
}

/* Whether the gate is closed for this read: it then waits 50 ms and gives one byte. */
static bool at_gate(void)
{
	char reached[PATH_MAX], open_[PATH_MAX];
	struct timespec pause = { 0, 50000000 };
	int fd;

	snprintf(reached, sizeof(reached), "%s/reached", gate_dir);
	snprintf(open_, sizeof(open_), "%s/open", gate_dir);
	if (access(open_, F_OK) == 0)
		return false;
	fd = open(reached, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	nanosleep(&pause, NULL);
	return access(open_, F_OK) != 0;
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
		pid_t gated = gated_parent();

		if (gated > 0 && parent_of(fuse_get_context()->pid) == gated && at_gate() &&
		    size > 1)
			size = 1;
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
