// SPDX-License-Identifier: MIT
/*
 * Guarded reads (src/capture/guarded_read.c) and the mount tables that decide them
 * (src/proc/mounts.c), without root: the reader is this test binary started again (its
 * main() hands GUARDED_READ_ARG over, as slideops's does). A file is copied whole and is
 * the same bytes; a path that is another file is refused; a file over the copy cap is not
 * copied; an open that never returns (a FIFO nobody writes: the kernel holds the reader
 * in open() as a dead mount would) gives "did not answer" to the caller, which never
 * waits on it past GUARDED_READ_ANSWER_S; a read left running is taken over by the next
 * caller of the same file rather than started again; a cancel ends a wait at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/guarded_read.h"
#include "proc/mounts.h"
#include "util/clock.h"

static void test_mountinfo(void **state)
{
	static const char text[] =
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"40 22 0:44 / /srv/app rw,relatime shared:20 - nfs4 fs:/export rw,vers=4.2\n"
		"41 22 0:45 / /mnt/my\\040box rw,nosuid - fuse.sshfs me@box: rw,user_id=0\n"
		"42 22 0:46 / /tmp rw - tmpfs tmpfs rw\n"
		"garbage without a separator\n"
		"43 22 0:47 / /mnt/dup rw - 9p share rw\n";
	struct mounts m = { 0 };
	const struct mount_entry *e;
	size_t n;

	(void)state;
	assert_int_equal(mounts__parse(&m, text), 0);
	assert_int_equal(m.n, 5);
	e = mounts__find(&m, makedev(8, 1));
	assert_non_null(e);
	assert_string_equal(e->fstype, "ext4");
	assert_false(e->may_hang);
	e = mounts__find(&m, makedev(0, 44));
	assert_non_null(e);
	assert_string_equal(e->point, "/srv/app");
	assert_true(e->may_hang);
	e = mounts__find(&m, makedev(0, 45));
	assert_non_null(e);
	assert_string_equal(e->point, "/mnt/my box");
	assert_true(e->may_hang);
	assert_false(mounts__find(&m, makedev(0, 46))->may_hang);
	assert_true(mounts__find(&m, makedev(0, 47))->may_hang);
	assert_null(mounts__find(&m, makedev(0, 99)));
	/* A path's mount by its words: the longest mount point, whole components only. */
	assert_string_equal(mounts__of_path(&m, "/srv/app/bin/billing")->fstype, "nfs4");
	assert_string_equal(mounts__of_path(&m, "/srv/app")->fstype, "nfs4");
	assert_string_equal(mounts__of_path(&m, "/srv/application")->fstype, "ext4");
	assert_string_equal(mounts__of_path(&m, "/mnt/my box/x")->fstype, "fuse.sshfs");
	assert_null(mounts__of_path(&m, "relative/path"));
	/* A lookup waits where a mount that may hang is on its way, not beside it. */
	assert_string_equal(mounts__hang_on_path(&m, "/srv/app/lib/debug")->fstype, "nfs4");
	assert_string_equal(mounts__hang_on_path(&m, "/srv/app")->fstype, "nfs4");
	assert_null(mounts__hang_on_path(&m, "/srv/application/debug"));
	assert_null(mounts__hang_on_path(&m, "/usr/lib/debug"));
	assert_null(mounts__hang_on_path(&m, "srv/app"));
	/* A device listed again (another namespace's table) keeps its first entry. */
	assert_int_equal(mounts__parse(&m, "50 1 0:44 / /elsewhere rw - ext4 x rw\n"), 0);
	assert_string_equal(mounts__find(&m, makedev(0, 44))->point, "/srv/app");
	/* A bind mount of one that may hang: a path under it waits as under the first. */
	assert_int_equal(mounts__parse(&m, "51 22 0:44 / /usr/lib/debug rw - nfs4 fs:/export rw\n"), 0);
	assert_string_equal(mounts__hang_on_path(&m, "/usr/lib/debug")->fstype, "nfs4");
	/* The same device at the same point (the same table read again) is not listed twice. */
	n = m.n;
	assert_int_equal(mounts__parse(&m, text), 0);
	assert_int_equal(m.n, n);
	assert_true(mounts__may_hang("fuse.gcsfuse") && mounts__may_hang("cifs") &&
		    mounts__may_hang("ceph") && !mounts__may_hang("xfs") &&
		    !mounts__may_hang("overlay") && !mounts__may_hang(NULL));
	/* The types the operator trusts to answer are read in-process; no other is. */
	setenv("SLIDEOPS_TRUSTED_MOUNTS", "9p,nfs4", 1);
	assert_true(!mounts__may_hang("9p") && !mounts__may_hang("nfs4") &&
		    mounts__may_hang("nfs") && mounts__may_hang("fuse"));
	setenv("SLIDEOPS_TRUSTED_MOUNTS", "nfs", 1);
	assert_true(!mounts__may_hang("nfs") && mounts__may_hang("nfs4"));
	unsetenv("SLIDEOPS_TRUSTED_MOUNTS");
	assert_true(mounts__may_hang("9p"));
	mounts__clear(&m);
	/* Ours, read from the kernel. */
	assert_int_equal(mounts__read(&m, "/proc/self/mountinfo"), 0);
	assert_true(m.n > 0);
	mounts__clear(&m);
}

static char dir[] = "/tmp/slideops-guarded-test.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct guarded_file *start_path(const char *path, const char *as)
{
	struct stat st;
	const char *paths[] = { path };

	assert_int_equal(stat(as, &st), 0);
	return guarded_file__start(st.st_dev, st.st_ino, paths, 1);
}

static void test_copy(void **state)
{
	char path[128], *want, *got;
	size_t size = (3u << 20) + 12345; /* several of the reader's chunks, and a part */
	struct guarded_file *g;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/binary", dir);
	want = malloc(size);
	got = malloc(size);
	assert_non_null(want);
	assert_non_null(got);
	for (size_t i = 0; i < size; i++)
		want[i] = (char)(i * 7 + i / 4096);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, want, size), (ssize_t)size);
	close(fd);

	g = start_path(path, path);
	assert_non_null(g);
	assert_int_equal(guarded_file__wait(g, NULL, 0), 0);
	fd = guarded_file__fd(g);
	assert_true(fd >= 0);
	assert_int_equal(guarded_file__size(g), size);
	assert_int_equal(pread(fd, got, size, 0), (ssize_t)size);
	assert_memory_equal(got, want, size);
	/* The outcome stays. */
	assert_int_equal(guarded_file__wait(g, NULL, 0), 0);
	guarded_file__close(g);
	free(want);
	free(got);
}

static void test_another_file(void **state)
{
	char a[128], b[128];
	struct guarded_file *g;

	(void)state;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	close(open(a, O_WRONLY | O_CREAT, 0644));
	close(open(b, O_WRONLY | O_CREAT, 0644));
	/* a's identity, b's path: refused as not the file. */
	g = start_path(b, a);
	assert_int_equal(guarded_file__wait(g, NULL, 0), -ENOENT);
	assert_int_equal(guarded_file__fd(g), -1);
	guarded_file__close(g);
}

static void test_over_cap(void **state)
{
	char path[128];
	struct guarded_file *g;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/huge", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	/* Sparse: nothing is written, nothing copied. */
	assert_int_equal(ftruncate(fd, (off_t)GUARDED_READ_FILE_MAX + 1), 0);
	close(fd);
	g = start_path(path, path);
	assert_int_equal(guarded_file__wait(g, NULL, 0), -EFBIG);
	guarded_file__close(g);
}

static void test_no_answer(void **state)
{
	struct guarded_read_stats stats;
	char path[128];
	struct guarded_file *g;
	int64_t start;
	atomic_bool cancel = true;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	g = start_path(path, path);
	/* A cancel ends the wait at once; the read goes on. */
	assert_int_equal(guarded_file__wait(g, &cancel, 0), -ETIMEDOUT);
	start = clock__monotonic_ns();
	assert_int_equal(guarded_file__wait(g, NULL, 0), GUARDED_READ_HUNG);
	/* Not before its reader had been silent that long. */
	assert_true(clock__monotonic_ns() - start >= (GUARDED_READ_ANSWER_S - 1) * 1000000000LL);
	assert_int_equal(guarded_file__fd(g), -1);
	guarded_file__close(g);
	/* Its reader, killed, is gone once swept (a FIFO's open ends on SIGKILL; a FUSE
	 * daemon's would not: tests/integration/hung_mount.sh). */
	for (int i = 0; i < 200; i++) {
		guarded_read__stats(&stats);
		if (!stats.running)
			break;
		usleep(10000);
	}
	assert_int_equal(stats.running, 0);
}

static void test_taken_over(void **state)
{
	struct guarded_read_stats before, after;
	char path[128];
	struct guarded_file *g, *again;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo2", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	guarded_read__stats(&before);
	g = start_path(path, path);
	guarded_file__close(g); /* left running: the open waits */
	again = start_path(path, path);
	guarded_read__stats(&after);
	assert_int_equal(after.started, before.started + 1);
	/* The writer comes: the open returns; a FIFO is no regular file. */
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(guarded_file__wait(again, NULL, 0), -ENOENT);
	close(fd);
	guarded_file__close(again);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_another_file),
		cmocka_unit_test(test_over_cap),
		cmocka_unit_test(test_no_answer),
		cmocka_unit_test(test_taken_over),
	};

	if (argc == 2 && strcmp(argv[1], GUARDED_READ_ARG) == 0)
		guarded_read__main();
	return cmocka_run_group_tests(tests, setup, teardown);
}
