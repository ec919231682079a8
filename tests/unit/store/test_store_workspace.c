// SPDX-License-Identifier: MIT
/*
 * The workspace itself: made private and versioned, however deep; refused when another
 * user's, linked, or emptied with blobs left; reading creates nothing; a damaged blob
 * is refused, not crashed on; a full disk lists nothing half written; a read-only or
 * full workspace is still read; the default directory.
 *
 * What the store promises whatever keeps it runs twice: on SQLite in the data directory,
 * then on a real PostgreSQL 15 (store_fixture.h). Each test gets a fresh data directory.
 */
#include "store_fixture.h"

static void test_open_makes_a_versioned_private_workspace(void **state)
{
	struct fixture *f = *state;
	char path[256];
	sqlite3 *db;
	sqlite3_stmt *st;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/profiles", f->dir);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_string_equal(store__dir(f->s), f->dir);

	snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 9);
	sqlite3_finalize(st);
	/* A rollback journal: readers need no shared-memory file, so a read-only or full
	 * workspace can still be read. */
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "delete");
	sqlite3_finalize(st);
	/* Its owner's alone. */
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(stat(f->dir, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);

	/* A workspace made by a newer slideops is refused, not misread. */
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	errno = 0;
	assert_null(store__open(f->dir));
	assert_int_equal(errno, EPROTO);

	/* A data dir that cannot be made says why. */
	errno = 0;
	assert_null(store__open("/proc/self/slideops"));
	assert_int_not_equal(errno, 0);
}

static void test_a_dir_many_levels_deep_is_made(void **state)
{
	struct fixture *f = *state;
	char path[256];
	struct store *s;

	snprintf(path, sizeof(path), "%s/a/b/c", f->dir);
	s = store__open(path);
	assert_non_null(s);
	store__close(s);
}


static void test_emptied_index_with_blobs_is_refused(void **state)
{
	struct fixture *f = *state;
	struct profile *p = make_profile("h", 1796223845, 5);
	char path[256], dir[128], id[STORE_ID_MAX], blob[STORE_ID_MAX + 8];

	assert_int_equal(store__save_profile(f->s, p, "", id), 0);
	store__close(f->s);
	f->s = NULL;
	snprintf(dir, sizeof(dir), "%s/profiles", f->dir);
	snprintf(blob, sizeof(blob), "%s.pb.gz", id);
	snprintf(path, sizeof(path), "%s/workspace.db", f->dir);

	write_file(path, "", 0);
	errno = 0;
	assert_null(store__open(f->dir));
	assert_int_equal(errno, EUCLEAN);
	assert_null(store__open_read(f->dir));
	assert_int_equal(errno, EUCLEAN);
	assert_int_equal(unlink(path), 0);
	assert_null(store__open(f->dir));
	assert_int_equal(errno, EUCLEAN);
	assert_false(exists(f->dir, "workspace.db"));
	{
		static const char damaged[] = "SQLite format 3\0 but not really: damaged bytes";

		write_file(path, damaged, sizeof(damaged));
	}
	assert_null(store__open(f->dir));
	assert_int_equal(errno, EUCLEAN);
	assert_true(exists(dir, blob));
	profile__free(p);
}

/* A workspace another user owns, or with links planted in it: refused before anything
 * is opened through it. A workspace others may read is made its owner's alone. */
static void test_workspace_of_another_user_or_with_links_is_refused(void **state)
{
	struct fixture *f = *state;
	char path[256], target[256];
	struct stat sb;

	store__close(f->s);
	f->s = NULL;
	snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
	snprintf(target, sizeof(target), "%s.target", f->dir);
	write_file(target, "x", 1);

	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(path, 0644), 0);
	f->s = store__open_read(f->dir);
	assert_non_null(f->s);
	assert_int_equal(stat(f->dir, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	store__close(f->s);
	f->s = NULL;

	assert_int_equal(chmod(f->dir, 0777), 0);
	errno = 0;
	assert_null(store__open(f->dir));
	assert_int_equal(errno, EACCES);
	assert_int_equal(chmod(f->dir, 0700), 0);

	/* workspace.db planted as a link to a file root must not write. */
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	errno = 0;
	assert_null(store__open(f->dir));
	assert_int_equal(errno, ELOOP);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rename(target, path), 0);

	if (geteuid() == 0) {
		/* Owned by another user (nobody), as a --data DIR someone else prepared. */
		assert_int_equal(chown(f->dir, 65534, 65534), 0);
		errno = 0;
		assert_null(store__open(f->dir));
		assert_int_equal(errno, EPERM);
		assert_null(store__open_read(f->dir));
		assert_int_equal(errno, EPERM);
		assert_int_equal(chown(f->dir, 0, 0), 0);
		snprintf(path, sizeof(path), "%s/profiles", f->dir);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_null(store__open(f->dir));
		assert_int_equal(errno, EPERM);
		assert_non_null(strstr(store__problem(NULL), "/profiles"));
		assert_int_equal(chown(path, 0, 0), 0);
	}
	/* The data directory itself a link: not followed. */
	snprintf(path, sizeof(path), "%s.link", f->dir);
	assert_int_equal(symlink(f->dir, path), 0);
	errno = 0;
	assert_null(store__open(path));
	assert_int_equal(errno, ELOOP);
	unlink(path);
	unlink(target);
	f->s = store__open(f->dir);
	assert_non_null(f->s);
}

/* Listing creates nothing: a --data DIR that is not there stays not there. */
static void test_reading_creates_nothing(void **state)
{
	struct fixture *f = *state;
	struct profile_entry *e;
	char path[256];
	size_t n;
	struct store *s;

	snprintf(path, sizeof(path), "%s/not-yet", f->dir);
	s = store__open_read(path);
	assert_non_null(s);
	assert_false(store__exists(s));
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_int_equal(n, 0);
	store__close(s);
	assert_false(exists(f->dir, "not-yet"));
	/* And `remove` finds no workspace there to clean. */
	assert_null(store__open_existing(path));
	assert_int_equal(errno, ENOENT);
}

static void test_damaged_blob_is_refused(void **state)
{
	struct fixture *f = *state;
	struct profile *p = make_profile("h", 1796223845, 200), *q;
	char id[STORE_ID_MAX], path[256];
	struct stat sb;
	FILE *fp;
	char *buf;

	assert_int_equal(store__save_profile(f->s, p, "", id), 0);
	snprintf(path, sizeof(path), "%s/profiles/%s.pb.gz", f->dir, id);
	assert_int_equal(stat(path, &sb), 0);
	buf = malloc((size_t)sb.st_size);
	fp = fopen(path, "r");
	assert_int_equal(fread(buf, 1, (size_t)sb.st_size, fp), (size_t)sb.st_size);
	fclose(fp);

	/* Cut in half (a crash mid-copy, a full disk by hand): refused whole. */
	write_file(path, buf, (size_t)sb.st_size / 2);
	assert_int_equal(store__load_profile(f->s, id, &q), -EBADMSG);
	assert_null(q);
	write_file(path, "not a profile at all", 20);
	assert_int_equal(store__load_profile(f->s, id, &q), -EBADMSG);
	write_file(path, "", 0);
	assert_int_equal(store__load_profile(f->s, id, &q), -EBADMSG);
	/* Listed, but the blob is gone: said as such, not as damage. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(store__load_profile(f->s, id, &q), -ENODATA);
	/* Put back, it reads again. */
	write_file(path, buf, (size_t)sb.st_size);
	assert_int_equal(store__load_profile(f->s, id, &q), 0);
	profile__free(q);
	free(buf);
	profile__free(p);
}

/*
 * A full disk: the data dir on a small tmpfs, then a profile larger than what is left.
 * The save fails with -ENOSPC and nothing is listed or left behind; with room again,
 * the same save works.
 */
static void test_full_disk_lists_nothing(void **state)
{
	struct fixture *f = *state;
	char mnt[128], filler[192], dir[192], id[STORE_ID_MAX];
	struct profile *big, *small;
	struct profile_entry *e;
	struct store *s;
	size_t n;
	int fd, err;

	if (geteuid() != 0) {
		fprintf(stderr, "skipping the full-disk test: mounting a tmpfs needs root\n");
		skip();
	}
	snprintf(mnt, sizeof(mnt), "%s/tiny", f->dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("slideops-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=512k")) {
		fprintf(stderr, "skipping the full-disk test: cannot mount a tmpfs: %s\n",
			strerror(errno));
		skip();
	}
	snprintf(dir, sizeof(dir), "%s/ws", mnt);
	s = store__open(dir);
	assert_non_null(s);
	small = make_profile("h", 1796223845, 10);
	assert_int_equal(store__save_profile(s, small, "fits", id), 0);

	/* Fill all but ~40 kB; the big profile's blob is far larger than that. */
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	fd = open(filler, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	{
		static char block[4096];

		while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
			;
	}
	close(fd);
	{
		struct stat sb;

		assert_int_equal(stat(filler, &sb), 0);
		assert_int_equal(truncate(filler, sb.st_size - 40 * 1024), 0);
	}

	big = make_profile("h", 1796223900, 20000);
	err = store__save_profile(s, big, "too big", id);
	assert_int_equal(err, -ENOSPC);
	assert_string_equal(id, "");
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_int_equal(n, 1); /* only the one that fit */
	assert_string_equal(e[0].answer, "fits");
	profile_entries__free(e, n);
	snprintf(dir, sizeof(dir), "%s/ws/profiles", mnt);
	assert_int_equal(count_files(dir), 1); /* no temporary file left behind */

	/* Room again: the same save goes through. */
	assert_int_equal(unlink(filler), 0);
	assert_int_equal(store__save_profile(s, big, "now it fits", id), 0);
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_int_equal(n, 2);
	profile_entries__free(e, n);

	store__close(s);
	profile__free(big);
	profile__free(small);
	assert_int_equal(umount2(mnt, MNT_DETACH), 0);
}

/* A workspace on a filesystem that is full, then read-only: still listed and shown. */
static void test_read_only_and_full_workspace_still_read(void **state)
{
	struct fixture *f = *state;
	char mnt[128], filler[192], dir[192], id[STORE_ID_MAX];
	struct profile *p, *q;
	struct profile_entry *e;
	struct store *s;
	size_t n;
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "skipping: mounting a tmpfs needs root\n");
		skip();
	}
	snprintf(mnt, sizeof(mnt), "%s/tiny", f->dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("slideops-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=512k,mode=0700")) {
		fprintf(stderr, "skipping: cannot mount a tmpfs: %s\n", strerror(errno));
		skip();
	}
	snprintf(dir, sizeof(dir), "%s/ws", mnt);
	s = store__open(dir);
	assert_non_null(s);
	p = make_profile("h", 1796223845, 10);
	assert_int_equal(store__save_profile(s, p, "kept", id), 0);
	store__close(s);

	/* Full to the last block. */
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	fd = open(filler, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	{
		static char block[512];

		while (write(fd, block, sizeof(block)) > 0)
			;
	}
	close(fd);
	s = store__open_read(dir);
	assert_non_null(s);
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_int_equal(n, 1);
	profile_entries__free(e, n);
	assert_int_equal(store__load_profile(s, id, &q), 0);
	profile__free(q);
	{
		uint64_t avail;

		assert_int_equal(store__free_space(s, STORE_SAVE_BYTES_MIN, &avail), -ENOSPC);
		assert_true(avail < STORE_SAVE_BYTES_MIN);
	}
	store__close(s);

	/* Read-only. */
	assert_int_equal(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	s = store__open_read(dir);
	assert_non_null(s);
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].answer, "kept");
	profile_entries__free(e, n);
	assert_int_equal(store__load_profile(s, id, &q), 0);
	profile__free(q);
	assert_int_equal(store__refresh_answer(s, id, "new words"), -EROFS);
	store__close(s);
	profile__free(p);
	assert_int_equal(umount2(mnt, MNT_DETACH), 0);
}

static void test_default_dir(void **state)
{
	char *saved = getenv("SLIDEOPS_DATA") ? strdup(getenv("SLIDEOPS_DATA")) : NULL;

	(void)state;
	setenv("SLIDEOPS_DATA", "/srv/slideops-data", 1);
	assert_string_equal(store__default_dir(), "/srv/slideops-data");
	unsetenv("SLIDEOPS_DATA");
	if (geteuid() == 0) {
		assert_string_equal(store__default_dir(), "/var/lib/slideops");
	} else {
		setenv("XDG_DATA_HOME", "/home/x/.data", 1);
		assert_string_equal(store__default_dir(), "/home/x/.data/slideops");
	}
	if (saved) {
		setenv("SLIDEOPS_DATA", saved, 1);
		free(saved);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_emptied_index_with_blobs_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_workspace_of_another_user_or_with_links_is_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_reading_creates_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_and_full_workspace_still_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_open_makes_a_versioned_private_workspace, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_dir_many_levels_deep_is_made, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_blob_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_disk_lists_nothing, setup, teardown),
		cmocka_unit_test(test_default_dir),
	};
	return cmocka_run_group_tests_name("sqlite", tests, NULL, NULL);
}
