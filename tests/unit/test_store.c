// SPDX-License-Identifier: MIT
/*
 * The workspace store: profiles saved, listed newest first, loaded whole; a full disk
 * lists nothing half written; a damaged blob is refused, not crashed on; symbol tables
 * by build id with uploads first; uploads replaced by build and deleted by prefix;
 * Services. Each test gets a fresh data directory.
 *
 * What the store promises whatever keeps it runs twice: on SQLite in the data directory,
 * then on a real PostgreSQL 15 the test starts itself (helpers/pgserver.h), a fresh
 * database each test (skipped, saying so, only where PostgreSQL is not installed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers/pgserver.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symtab.h"
#include "util/clock.h"

#define S(p, s) profile__intern((p), (s))

struct fixture {
	char dir[64];
	struct store *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/slideops-store.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->s = store__open(f->dir);
	if (!f->s)
		return -1;
	*state = f;
	return 0;
}

static struct pgserver *pg;
static int pg_databases;

/* The same fixture on a fresh PostgreSQL database: store__open(dir) then opens it, and
 * dir holds only this machine's caches. */
static int setup_pg(void **state)
{
	char name[32];
	const char *url;

	if (!pg)
		skip();
	snprintf(name, sizeof(name), "store_%d", ++pg_databases);
	url = pgserver__createdb(pg, name);
	if (!url || store__set_url(url))
		return -1;
	if (setup(state)) {
		fprintf(stderr, "cannot open %s: %s (%s)\n", url, strerror(errno),
			store__problem(NULL));
		return -1;
	}
	return 0;
}

static int group_setup_pg(void **state)
{
	(void)state;
	pg = pgserver__start();
	if (!pg && !pgserver__missing())
		return -1; /* installed, yet not started: a failure, not a skip */
	if (!pg)
		fprintf(stderr, "skipping the PostgreSQL store tests: %s\n", pgserver__why());
	return 0;
}

static int group_teardown_pg(void **state)
{
	(void)state;
	store__set_url(NULL);
	pgserver__stop(pg);
	pg = NULL;
	return 0;
}

static void rm_rf(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char mnt[128];

	store__close(f->s);
	/* The full-disk test's tmpfs, if an assertion left it mounted. */
	snprintf(mnt, sizeof(mnt), "%s/tiny", f->dir);
	umount2(mnt, MNT_DETACH);
	rm_rf(f->dir);
	free(f);
	return 0;
}

/* A small cpu profile from host, started at second t; samples random addresses so its
 * blob does not compress to nothing. */
static struct profile *make_profile(const char *host, int64_t t, uint32_t nsamples)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct prof_mapping m = { .kind = MAPPING_EXE, .language = LANGUAGE_C,
				  .build_id_recorded = true };
	uint32_t seed = (uint32_t)t * 2654435761u + 1;

	assert_non_null(p);
	p->header.hostname = S(p, host);
	p->header.ncpus = 2;
	p->header.started_at_ns = t * 1000000000LL;
	p->header.duration_ns = 30000000000ULL - 400000000ULL; /* rounds to 30 s */
	p->header.sample_hz = 99;
	m.path = S(p, "/usr/local/bin/app");
	m.build_id = S(p, "b65a313cbf47aa00bb11cc22dd33ee44ff556677");
	assert_int_equal(profile__add_mapping(p, &m), 0);
	for (uint32_t i = 0; i < nsamples; i++) {
		struct prof_location l = { .mapping = 0 };
		struct prof_labels lb = { .pid = (int32_t)(i % 1000) + 1, .tid = (int32_t)i + 1,
					  .group = S(p, "Service billing"),
					  .group_kind = GROUP_SERVICE };
		int64_t v[PROFILE_MAX_VALUES] = { 1, 10101010 };
		uint32_t loc, stack;

		seed = seed * 1103515245u + 12345u;
		l.address = 0x400000 + seed;
		loc = profile__add_location(p, &l);
		assert_int_not_equal(loc, UINT32_MAX);
		stack = profile__add_stack(p, &loc, 1);
		assert_int_not_equal(stack, UINT32_MAX);
		assert_int_equal(profile__add_sample(p, stack, v, &lb), 0);
	}
	return p;
}

static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			n++;
	closedir(d);
	return n;
}

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

static void test_profiles_save_list_load(void **state)
{
	struct fixture *f = *state;
	static const int64_t starts[] = { 1796223845, 1796230000, 1796220000 };
	char ids[3][STORE_ID_MAX], answer[64];
	struct profile_entry *e;
	struct profile *p, *q;
	size_t n;

	for (int i = 0; i < 3; i++) {
		char host[16];

		snprintf(host, sizeof(host), "host-%d", i);
		snprintf(answer, sizeof(answer), "answer %d", i);
		p = make_profile(host, starts[i], 50);
		assert_int_equal(store__save_profile(f->s, p, answer, ids[i]), 0);
		profile__free(p);
	}
	/* "20261202-150405-cpu-1a2b": start time (UTC), question, 4 hex. */
	assert_int_equal(strlen(ids[0]), strlen("20261202-150405-cpu-1a2b"));
	assert_memory_equal(ids[0], "20261202-150405-cpu-", 20);

	assert_int_equal(store__list_profiles(f->s, &e, &n), 0);
	assert_int_equal(n, 3);
	/* Newest first, whatever the order of saving. */
	assert_string_equal(e[0].id, ids[1]);
	assert_string_equal(e[1].id, ids[0]);
	assert_string_equal(e[2].id, ids[2]);
	assert_string_equal(e[0].server, "host-1");
	assert_string_equal(e[0].answer, "answer 1");
	assert_int_equal(e[0].question, QUESTION_CPU);
	assert_int_equal(e[0].started_at_ns, starts[1] * 1000000000LL);
	assert_int_equal(e[0].duration_ns, 29600000000ULL);
	profile_entries__free(e, n);

	assert_int_equal(store__load_profile(f->s, ids[2], &q), 0);
	assert_string_equal(profile__str(q, q->header.hostname), "host-2");
	assert_int_equal(q->nsamples, 50);
	assert_int_equal(profile__total(q, 0), 50);
	profile__free(q);

	assert_int_equal(store__set_answer(f->s, ids[2], "renamed answer"), 0);
	assert_int_equal(store__set_answer(f->s, "nope", "x"), -ENOENT);
	assert_int_equal(store__list_profiles(f->s, &e, &n), 0);
	assert_string_equal(e[2].answer, "renamed answer");
	profile_entries__free(e, n);

	assert_int_equal(store__load_profile(f->s, "20000101-000000-cpu-0000", &q), -ENOENT);
	assert_null(q);
	assert_int_equal(store__delete_profile(f->s, ids[0]), 0);
	assert_int_equal(store__delete_profile(f->s, ids[0]), -ENOENT);
	assert_int_equal(store__load_profile(f->s, ids[0], &q), -ENOENT);
	assert_int_equal(store__list_profiles(f->s, &e, &n), 0);
	assert_int_equal(n, 2);
	profile_entries__free(e, n);
	if (!store__is_shared(f->s)) {
		char dir[128];

		snprintf(dir, sizeof(dir), "%s/profiles", f->dir);
		assert_int_equal(count_files(dir), 2); /* its blob went with it */
	} else {
		/* In a database, the data directory keeps nothing of the workspace. */
		assert_int_equal(count_files(f->dir), 0);
	}
}

/* Two profiles started in the same second get distinct ids, and a second handle on
 * the same workspace sees what the first saved. */
static void test_same_second_distinct_ids_and_shared_workspace(void **state)
{
	struct fixture *f = *state;
	struct profile *p = make_profile("h", 1796223845, 5);
	char id[64][STORE_ID_MAX];
	struct store *other = store__open(f->dir);
	struct profile_entry *e;
	size_t n;

	assert_non_null(other);
	for (int i = 0; i < 64; i++)
		assert_int_equal(store__save_profile(i % 2 ? other : f->s, p, "", id[i]), 0);
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < i; j++)
			assert_string_not_equal(id[i], id[j]);
	assert_int_equal(store__list_profiles(other, &e, &n), 0);
	assert_int_equal(n, 64);
	profile_entries__free(e, n);
	store__close(other);
	profile__free(p);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static bool exists(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void make_old_file(const char *dir, const char *name, time_t age)
{
	struct timespec times[2] = { { .tv_sec = time(NULL) - age },
				     { .tv_sec = time(NULL) - age } };
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, "x", 1);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* Notes a save in progress in the index, as a save that crashed would have left it. */
static void add_pending(const char *dir, const char *blob, const char *tmp, int64_t age_s)
{
	char path[256], sql[512];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/workspace.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO pending (blob, tmp, started_at_ns) VALUES ('%s', '%s', %lld)", blob,
		 tmp, (long long)(time(NULL) - age_s) * 1000000000LL);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* What a crash left (a temporary blob; a blob renamed but never indexed) is swept by a
 * later save once it is old enough not to be another process's save in progress; and
 * only that: a file the index does not say this workspace was making stays. */
static void test_save_sweeps_only_what_the_index_began(void **state)
{
	struct fixture *f = *state;
	struct profile *p = make_profile("h", 1796223845, 5);
	char dir[128], id[STORE_ID_MAX], old_id[STORE_ID_MAX], blob[STORE_ID_MAX + 8];

	snprintf(dir, sizeof(dir), "%s/profiles", f->dir);
	assert_int_equal(store__save_profile(f->s, p, "", old_id), 0);
	snprintf(blob, sizeof(blob), "%s.pb.gz", old_id);
	/* Indexed blobs stay however old they are. */
	make_old_file(dir, blob, 7200);
	make_old_file(dir, "20200101-000000-cpu-dead.pb.gz.tmp-0123456789abcdef", 7200);
	make_old_file(dir, "20200101-000000-cpu-dead.pb.gz", 7200);
	add_pending(f->dir, "20200101-000000-cpu-dead.pb.gz",
		    "20200101-000000-cpu-dead.pb.gz.tmp-0123456789abcdef", 7200);
	make_old_file(dir, "20200101-000000-cpu-beef.pb.gz.tmp-fedcba9876543210", 10);
	add_pending(f->dir, "20200101-000000-cpu-beef.pb.gz",
		    "20200101-000000-cpu-beef.pb.gz.tmp-fedcba9876543210", 10);
	/* Not ours: old, named like ours, but never in the index. */
	make_old_file(dir, ".tmp-0123456789abcdef", 7200);
	make_old_file(dir, "20200101-000000-cpu-f00d.pb.gz", 7200);
	make_old_file(dir, "notes.txt", 7200);
	/* An edited index cannot lead the sweep out of the directory. */
	add_pending(f->dir, "../notes.txt", "../../etc/passwd", 7200);

	assert_int_equal(store__save_profile(f->s, p, "", id), 0);
	assert_false(exists(dir, "20200101-000000-cpu-dead.pb.gz.tmp-0123456789abcdef"));
	assert_false(exists(dir, "20200101-000000-cpu-dead.pb.gz"));
	assert_true(exists(dir, "20200101-000000-cpu-beef.pb.gz.tmp-fedcba9876543210"));
	assert_true(exists(dir, ".tmp-0123456789abcdef"));
	assert_true(exists(dir, "20200101-000000-cpu-f00d.pb.gz"));
	assert_true(exists(dir, "notes.txt"));
	assert_true(exists(dir, blob));
	profile__free(p);
}

/* An index emptied, deleted or replaced while blobs are there: refused, never recreated
 * over them (the next save's sweep would have taken them all), and nothing touched. */
/* A page of the list from the index: filters, limit and offset, and the total. */
static void test_profiles_a_page_at_a_time(void **state)
{
	struct fixture *f = *state;
	struct profile_query q = { .question = -1 };
	char ids[7][STORE_ID_MAX];
	struct profile_entry *e;
	uint64_t total;
	size_t n;

	for (int i = 0; i < 7; i++) {
		struct profile *p = make_profile(i % 2 ? "odd" : "even", 1796220000 + i, 3);

		assert_int_equal(store__save_profile(f->s, p, "", ids[i]), 0);
		profile__free(p);
	}
	q.limit = 3;
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(n, 3);
	assert_int_equal(total, 7);
	assert_string_equal(e[0].id, ids[6]); /* newest first */
	assert_string_equal(e[2].id, ids[4]);
	profile_entries__free(e, n);
	q.offset = 6;
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].id, ids[0]);
	profile_entries__free(e, n);
	q.offset = 7;
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(n, 0);
	assert_int_equal(total, 7);
	profile_entries__free(e, n);

	q = (struct profile_query){ .question = -1, .server = "odd", .limit = 2, .offset = 1 };
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 3);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].id, ids[3]);
	assert_string_equal(e[1].id, ids[1]);
	profile_entries__free(e, n);
	q = (struct profile_query){ .question = QUESTION_WALL };
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 0);
	assert_int_equal(n, 0);
	profile_entries__free(e, n);
	q = (struct profile_query){ .question = QUESTION_CPU, .server = "even" };
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 4);
	assert_int_equal(n, 4); /* no limit: all from the offset */
	profile_entries__free(e, n);
}

/* Opened again (the server, per request): no profile's file is looked at until it is
 * read, and then it is checked as an open checks it; an index emptied since the first
 * open is refused, not made anew over the profiles. */
static void test_open_again_checks_each_profile_as_it_is_read(void **state)
{
	struct fixture *f = *state;
	struct profile *p = make_profile("h", 1796223845, 5), *q;
	char path[256], id[STORE_ID_MAX];
	struct store *again;

	assert_int_equal(store__save_profile(f->s, p, "", id), 0);
	profile__free(p);
	again = store__open_again(f->dir);
	assert_non_null(again);
	assert_int_equal(store__load_profile(again, id, &q), 0);
	profile__free(q);
	store__close(again);

	snprintf(path, sizeof(path), "%s/profiles/%s.pb.gz", f->dir, id);
	assert_int_equal(chmod(path, 0666), 0);
	again = store__open_again(f->dir);
	assert_non_null(again); /* a full open refuses this: here the read does */
	assert_int_equal(store__load_profile(again, id, &q), -EACCES);
	assert_null(q);
	assert_non_null(strstr(store__problem(NULL), id));
	store__close(again);
	assert_int_equal(chmod(path, 0600), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		again = store__open_again(f->dir);
		assert_non_null(again);
		assert_int_equal(store__load_profile(again, id, &q), -EPERM);
		store__close(again);
		assert_int_equal(chown(path, 0, 0), 0);
	}

	store__close(f->s);
	f->s = NULL;
	snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
	write_file(path, "", 0);
	errno = 0;
	assert_null(store__open_again(f->dir));
	assert_int_equal(errno, EUCLEAN);
	assert_int_equal(unlink(path), 0);
	assert_null(store__open_again(f->dir));
	assert_int_equal(errno, EUCLEAN);
	assert_false(exists(f->dir, "workspace.db"));
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

static struct symtab *make_symtab(const char *prefix, int n)
{
	struct symtab *tab = symtab__new();

	assert_non_null(tab);
	for (int i = 0; i < n; i++) {
		char name[64];
		int len = snprintf(name, sizeof(name), "%s_%d", prefix, i);

		assert_int_equal(symtab__add(tab, 0x1000 + (uint64_t)i * 0x100, 0x80, name,
					     (size_t)len),
				 0);
	}
	assert_int_equal(symtab__finish(tab), 0);
	return tab;
}

#define BID_A "b65a313cbf47aa00bb11cc22dd33ee44ff556677"
#define BID_B "b65a99999999aa00bb11cc22dd33ee44ff556677"
#define BID_C "0123456789abcdef0123456789abcdef01234567"

static void test_symbols_by_build_id_uploads_first(void **state)
{
	struct fixture *f = *state;
	struct symtab *own = make_symtab("own", 10), *up = make_symtab("uploaded", 20), *got;
	enum symbol_source src;
	uint64_t off;

	assert_int_equal(store__has_symbols(f->s, BID_A, SYMBOLS_SYMTAB), 0);
	assert_int_equal(store__get_symbols(f->s, BID_A, &got, &src), -ENOENT);
	assert_null(got);

	assert_int_equal(store__put_symbols(f->s, BID_A, SYMBOLS_SYMTAB, NULL, own), 0);
	assert_int_equal(store__has_symbols(f->s, BID_A, SYMBOLS_SYMTAB), 1);
	assert_int_equal(store__has_symbols(f->s, BID_A, SYMBOLS_UPLOAD), 0);
	assert_int_equal(store__get_symbols(f->s, BID_A, &got, &src), 0);
	assert_int_equal(src, SYMBOLS_SYMTAB);
	assert_string_equal(symtab__lookup(got, 0x1210, &off), "own_2");
	assert_int_equal(off, 0x10);
	symtab__free(got);

	/* An upload names the build first; the binary's own table stays kept beneath it. */
	assert_int_equal(store__put_symbols(f->s, BID_A, SYMBOLS_UPLOAD, "app.debug", up), 0);
	assert_int_equal(store__get_symbols(f->s, BID_A, &got, &src), 0);
	assert_int_equal(src, SYMBOLS_UPLOAD);
	assert_string_equal(symtab__lookup(got, 0x1210, &off), "uploaded_2");
	symtab__free(got);
	/* Build ids are matched whatever their case. */
	assert_int_equal(store__has_symbols(f->s, "B65A313CBF47AA00BB11CC22DD33EE44FF556677",
					    SYMBOLS_UPLOAD),
			 1);

	assert_int_equal(store__put_symbols(f->s, "", SYMBOLS_UPLOAD, "x", up), -EINVAL);
	symtab__free(own);
	symtab__free(up);
}

static void test_damaged_symbol_table_is_refused(void **state)
{
	struct fixture *f = *state;
	struct symtab *tab = make_symtab("f", 5), *got;
	char path[256];
	sqlite3 *db;

	assert_int_equal(store__put_symbols(f->s, BID_C, SYMBOLS_DYNSYM, NULL, tab), 0);
	snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE symbols SET data = x'0102030405'", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store__get_symbols(f->s, BID_C, &got, NULL), -EBADMSG);
	assert_null(got);
	symtab__free(tab);
}

static void test_uploads_replace_list_delete_by_prefix(void **state)
{
	struct fixture *f = *state;
	struct symtab *t5 = make_symtab("a", 5), *t7 = make_symtab("b", 7);
	struct symtab *t3 = make_symtab("c", 3);
	struct upload_entry *u;
	char deleted[BUILD_ID_HEX_MAX + 1];
	size_t n;

	assert_int_equal(store__put_symbols(f->s, BID_A, SYMBOLS_UPLOAD, "app", t5), 0);
	/* The same build again replaces the earlier upload. */
	assert_int_equal(store__put_symbols(f->s, BID_A, SYMBOLS_UPLOAD, "app.debug", t7), 0);
	assert_int_equal(store__put_symbols(f->s, BID_B, SYMBOLS_UPLOAD, "other.debug", t3), 0);
	/* A binary's own table is not an upload. */
	assert_int_equal(store__put_symbols(f->s, BID_C, SYMBOLS_SYMTAB, NULL, t3), 0);

	assert_int_equal(store__list_uploads(f->s, &u, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(u[i].build_id, BID_A) == 0) {
			assert_string_equal(u[i].file_name, "app.debug");
			assert_int_equal(u[i].functions, 7);
		} else {
			assert_string_equal(u[i].build_id, BID_B);
			assert_string_equal(u[i].file_name, "other.debug");
			assert_int_equal(u[i].functions, 3);
		}
		assert_true(u[i].uploaded_at_ns > 1700000000000000000LL);
	}
	upload_entries__free(u, n);

	/* "b65a" starts both: ambiguous. Nothing matches "ffff", nor the symtab-only build. */
	assert_int_equal(store__delete_upload(f->s, "b65a", deleted), -EEXIST);
	assert_string_equal(deleted, "");
	assert_int_equal(store__delete_upload(f->s, "ffff", deleted), -ENOENT);
	assert_int_equal(store__delete_upload(f->s, "0123", deleted), -ENOENT);
	assert_int_equal(store__delete_upload(f->s, "", deleted), -ENOENT);
	/* A unique prefix, typed in capitals, deletes that one and says which. */
	assert_int_equal(store__delete_upload(f->s, "B65A31", deleted), 0);
	assert_string_equal(deleted, BID_A);
	assert_int_equal(store__list_uploads(f->s, &u, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(u[0].build_id, BID_B);
	upload_entries__free(u, n);
	/* The binary's own table for that build is not touched by deleting the upload. */
	assert_int_equal(store__has_symbols(f->s, BID_C, SYMBOLS_SYMTAB), 1);
	/* Now "b65a" is unique; a whole id works too. */
	assert_int_equal(store__delete_upload(f->s, BID_B, deleted), 0);
	assert_string_equal(deleted, BID_B);
	assert_int_equal(store__list_uploads(f->s, &u, &n), 0);
	assert_int_equal(n, 0);
	upload_entries__free(u, n);

	symtab__free(t5);
	symtab__free(t7);
	symtab__free(t3);
}

/* A whole build id wins over the longer ids it is a prefix of (Go build ids vary). */
static void test_whole_id_wins_over_longer(void **state)
{
	struct fixture *f = *state;
	struct symtab *t = make_symtab("a", 2);
	char deleted[BUILD_ID_HEX_MAX + 1];

	assert_int_equal(store__put_symbols(f->s, "abcdef", SYMBOLS_UPLOAD, "short", t), 0);
	assert_int_equal(store__put_symbols(f->s, "abcdef01", SYMBOLS_UPLOAD, "long", t), 0);
	assert_int_equal(store__delete_upload(f->s, "abcd", deleted), -EEXIST);
	assert_int_equal(store__delete_upload(f->s, "abcdef", deleted), 0);
	assert_string_equal(deleted, "abcdef");
	assert_int_equal(store__delete_upload(f->s, "abcd", deleted), 0);
	assert_string_equal(deleted, "abcdef01");
	symtab__free(t);
}

/* This server is kept once however often serve starts, and renamed with its host. */
static void test_servers(void **state)
{
	struct fixture *f = *state;
	struct server_entry srv = { .id = "local", .hostname = "db-1", .this_server = true };
	struct server_entry other = { .id = "agent-7", .hostname = "app-1" };
	struct server_entry *e;
	size_t n;

	assert_int_equal(store__put_server(f->s, &srv), 0);
	srv.hostname = "db-2";
	assert_int_equal(store__put_server(f->s, &srv), 0);
	assert_int_equal(store__put_server(f->s, &other), 0);
	assert_int_equal(store__list_servers(f->s, &e, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].id, "local");
	assert_string_equal(e[0].hostname, "db-2");
	assert_true(e[0].this_server);
	assert_string_equal(e[1].hostname, "app-1");
	assert_false(e[1].this_server);
	server_entries__free(e, n);
}

static void test_services(void **state)
{
	struct fixture *f = *state;
	struct service billing = { "billing", SERVICE_BY_UNIT, "billing.service" };
	struct service redis = { "redis", SERVICE_BY_CONTAINER, "/redis" };
	struct service api = { "api", SERVICE_BY_EXE, "/usr/local/bin/api" };
	struct service again = { "billing", SERVICE_BY_EXE, "/usr/bin/other" };
	struct service *v;
	size_t n;

	assert_int_equal(store__list_services(f->s, &v, &n), 0);
	assert_int_equal(n, 0);
	services__free(v, n);
	assert_int_equal(store__add_service(f->s, &billing), 0);
	assert_int_equal(store__add_service(f->s, &redis), 0);
	assert_int_equal(store__add_service(f->s, &api), 0);
	assert_int_equal(store__add_service(f->s, &again), -EEXIST);

	assert_int_equal(store__list_services(f->s, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "api");
	assert_int_equal(v[0].match, SERVICE_BY_EXE);
	assert_string_equal(v[0].value, "/usr/local/bin/api");
	assert_string_equal(v[1].name, "billing");
	assert_int_equal(v[1].match, SERVICE_BY_UNIT);
	assert_string_equal(v[1].value, "billing.service");
	assert_string_equal(v[2].name, "redis");
	assert_int_equal(v[2].match, SERVICE_BY_CONTAINER);
	services__free(v, n);

	assert_int_equal(store__remove_service(f->s, "billing"), 0);
	assert_int_equal(store__remove_service(f->s, "billing"), -ENOENT);
	/* The name is free again. */
	assert_int_equal(store__add_service(f->s, &again), 0);

	/* Kept across opens. */
	store__close(f->s);
	f->s = store__open(f->dir);
	assert_non_null(f->s);
	assert_int_equal(store__list_services(f->s, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[1].name, "billing");
	assert_int_equal(v[1].match, SERVICE_BY_EXE);
	services__free(v, n);
}

/* Pages by a cursor walk every profile once, newest first, even when a profile is saved
 * during the walk (an offset would show one of them twice); limit and total stay. */
static void test_profiles_by_cursor(void **state)
{
	struct fixture *f = *state;
	struct profile_query q = { .question = -1, .limit = 3 };
	char ids[8][STORE_ID_MAX], seen[16][STORE_ID_MAX], cursor[STORE_CURSOR_MAX];
	struct profile_entry *e;
	uint64_t total;
	size_t n, walked = 0;

	for (int i = 0; i < 8; i++) {
		/* Two profiles in each second: the cursor orders them as the list does. */
		struct profile *p = make_profile("h", 1796220000 + i / 2, 3);

		assert_int_equal(store__save_profile(f->s, p, "", ids[i]), 0);
		profile__free(p);
	}
	for (int page = 0;; page++) {
		assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
		assert_int_equal(total, page == 0 ? 8 : 9);
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < walked; j++)
				assert_string_not_equal(seen[j], e[i].id);
			assert_true(walked < 16);
			strcpy(seen[walked++], e[i].id);
		}
		if (n)
			store__cursor(&e[n - 1], cursor);
		profile_entries__free(e, n);
		if (n < q.limit)
			break;
		q.after = cursor;
		if (page == 0) {
			/* A newer profile arrives while the list is read: it is not on the
			 * pages after, and nothing shifts. */
			struct profile *p = make_profile("h", 1796229999, 3);
			char id[STORE_ID_MAX];

			assert_int_equal(store__save_profile(f->s, p, "", id), 0);
			profile__free(p);
		}
	}
	assert_int_equal(walked, 8);
	/* Newest first; in one second, the one saved last first. */
	for (int i = 0; i < 8; i++)
		assert_string_equal(seen[i], ids[7 - i]);
	q.after = "not-a-cursor";
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), -EINVAL);
	q = (struct profile_query){ .question = -1, .after = cursor, .offset = 1 };
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), -EINVAL);
}

static int count_prune(void *ctx, uint64_t deleted)
{
	(*(int *)ctx)++;
	assert_true(deleted > 0);
	return 0;
}

/* Pruning deletes what started before the cut, oldest first, in bounded batches (each
 * reported), blobs with rows; what is newer stays whole. */
static void test_prune_older_than(void **state)
{
	struct fixture *f = *state;
	char ids[10][STORE_ID_MAX];
	struct profile_entry *e;
	struct profile *p;
	uint64_t deleted;
	int batches = 0;
	size_t n;

	for (int i = 0; i < 10; i++) {
		p = make_profile("h", 1796220000 + i * 86400, 3);
		assert_int_equal(store__save_profile(f->s, p, "", ids[i]), 0);
		profile__free(p);
	}
	/* Before day 7: seven profiles, in batches of three (3, 3, 1). */
	assert_int_equal(store__prune_profiles(f->s, (1796220000LL + 7 * 86400) * 1000000000LL,
					       3, count_prune, &batches, &deleted),
			 0);
	assert_int_equal(deleted, 7);
	assert_int_equal(batches, 3);
	assert_int_equal(store__list_profiles(f->s, &e, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(e[2].id, ids[7]);
	profile_entries__free(e, n);
	{
		struct profile_query q = { .question = -1, .server = "h", .limit = 1 };
		uint64_t total;

		/* The exact total follows what was deleted. */
		assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
		assert_int_equal(total, 3);
		profile_entries__free(e, n);
		q = (struct profile_query){ .question = QUESTION_CPU, .limit = 1 };
		assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
		assert_int_equal(total, 3);
		profile_entries__free(e, n);
	}
	assert_int_equal(store__load_profile(f->s, ids[0], &p), -ENOENT);
	assert_int_equal(store__load_profile(f->s, ids[7], &p), 0);
	profile__free(p);
	if (!store__is_shared(f->s)) {
		char dir[128];

		snprintf(dir, sizeof(dir), "%s/profiles", f->dir);
		assert_int_equal(count_files(dir), 3);
	}
	/* Nothing older left: nothing more to do. */
	assert_int_equal(store__prune_profiles(f->s, (1796220000LL + 7 * 86400) * 1000000000LL,
					       0, NULL, NULL, &deleted),
			 0);
	assert_int_equal(deleted, 0);
}

/* What a process or a user wrote is kept byte for byte, whatever its encoding: a host
 * name that is not UTF-8, quotes, an answer with control bytes. */
static void test_hostile_strings_kept_as_written(void **state)
{
	struct fixture *f = *state;
	static const char host[] = "h\xff\xfe'; DROP TABLE profiles; --\"x";
	static const char answer[] = "<script>\x01\x7f\xc3(</script>";
	struct service svc = { "\xff\xfename", SERVICE_BY_EXE, "/usr/bin/\xe9t\xe9" };
	struct server_entry srv = { .id = "agent-\xff", .hostname = "\xc0\xaf" };
	struct profile_query q = { .question = -1, .server = host };
	struct server_entry *se;
	struct profile_entry *e;
	struct service *sv;
	struct profile *p = make_profile(host, 1796220000, 3);
	char id[STORE_ID_MAX];
	uint64_t total;
	size_t n;

	assert_int_equal(store__save_profile(f->s, p, answer, id), 0);
	profile__free(p);
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].server, host);
	assert_string_equal(e[0].answer, answer);
	profile_entries__free(e, n);
	assert_int_equal(store__load_profile(f->s, id, &p), 0);
	assert_string_equal(profile__str(p, p->header.hostname), host);
	profile__free(p);
	assert_int_equal(store__add_service(f->s, &svc), 0);
	assert_int_equal(store__list_services(f->s, &sv, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(sv[0].name, svc.name);
	assert_string_equal(sv[0].value, svc.value);
	services__free(sv, n);
	assert_int_equal(store__put_server(f->s, &srv), 0);
	assert_int_equal(store__list_servers(f->s, &se, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(se[0].hostname, srv.hostname);
	assert_string_equal(se[0].id, srv.id);
	server_entries__free(se, n);
}

/* A workspace of an earlier schema version (3: no index by server or question, no
 * settings) is brought up to date by a writer, its profiles as they were; a reader reads
 * it as it is. */
static void test_previous_schema_is_upgraded(void **state)
{
	struct fixture *f = *state;
	struct profile *p = make_profile("old-host", 1796220000, 5);
	struct profile_query q = { .question = -1, .server = "old-host" };
	struct profile_entry *e;
	char path[256], id[STORE_ID_MAX];
	uint64_t total;
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t n;

	assert_int_equal(store__save_profile(f->s, p, "kept", id), 0);
	profile__free(p);
	store__close(f->s);
	f->s = NULL;
	snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP INDEX profiles_by_server; DROP INDEX"
					  " profiles_by_question; DROP TABLE settings;"
					  " DROP TABLE enrolments; DROP TABLE credentials;"
					  " DROP TABLE batches; DROP TABLE agent_commands;"
					  " DROP TABLE agent_captures;"
					  " DROP TABLE server_symbols;"
					  " DROP TABLE server_lines;"
					  " ALTER TABLE servers DROP COLUMN name;"
					  " ALTER TABLE servers DROP COLUMN machine_id;"
					  " ALTER TABLE servers DROP COLUMN kernel;"
					  " ALTER TABLE servers DROP COLUMN agent_version;"
					  " ALTER TABLE servers DROP COLUMN boot_id;"
					  " ALTER TABLE servers DROP COLUMN cpus;"
					  " ALTER TABLE servers DROP COLUMN last_seen_ns;"
					  " ALTER TABLE servers DROP COLUMN removed_at_ns;"
					  " ALTER TABLE servers DROP COLUMN spool_dropped;"
					  " ALTER TABLE servers DROP COLUMN batches_refused;"
					  " ALTER TABLE servers DROP COLUMN last_refusal;"
					  " ALTER TABLE servers DROP COLUMN last_refusal_ns;"
					  " PRAGMA user_version = 3",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	f->s = store__open_read(f->dir);
	assert_non_null(f->s);
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(n, 1);
	profile_entries__free(e, n);
	store__close(f->s);
	f->s = store__open(f->dir);
	assert_non_null(f->s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM"
						" pragma_user_version), (SELECT count(*) FROM"
						" sqlite_master WHERE type = 'index' AND name IN"
						" ('profiles_by_server', 'profiles_by_question'))",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 9);
	assert_int_equal(sqlite3_column_int(st, 1), 2);
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].id, id);
	assert_string_equal(e[0].answer, "kept");
	profile_entries__free(e, n);
}

/* A workspace that keeps profiles for a time: each save drops, in a bounded batch, what
 * aged out; without the setting nothing is dropped. */
static void test_retention_setting(void **state)
{
	struct fixture *f = *state;
	int64_t now_s = clock__realtime_ns() / 1000000000LL, keep;
	char old_id[STORE_ID_MAX], new_id[STORE_ID_MAX];
	struct profile *p;

	assert_int_equal(store__retention(f->s, &keep), 0);
	assert_int_equal(keep, 0);
	p = make_profile("h", now_s - 60 * 86400, 3);
	assert_int_equal(store__save_profile(f->s, p, "", old_id), 0);
	profile__free(p);
	p = make_profile("h", now_s - 60, 3);
	assert_int_equal(store__save_profile(f->s, p, "", new_id), 0);
	profile__free(p);
	assert_int_equal(store__load_profile(f->s, old_id, &p), 0); /* no retention: kept */
	profile__free(p);

	assert_int_equal(store__set_retention(f->s, 30 * 86400), 0);
	assert_int_equal(store__set_retention(f->s, -1), -EINVAL);
	assert_int_equal(store__retention(f->s, &keep), 0);
	assert_int_equal(keep, 30 * 86400);
	p = make_profile("h", now_s, 3);
	assert_int_equal(store__save_profile(f->s, p, "", new_id), 0);
	profile__free(p);
	assert_int_equal(store__load_profile(f->s, old_id, &p), -ENOENT);
	assert_int_equal(store__load_profile(f->s, new_id, &p), 0);
	profile__free(p);
	/* Kept across opens; 0 turns it off. */
	store__close(f->s);
	f->s = store__open(f->dir);
	assert_non_null(f->s);
	assert_int_equal(store__retention(f->s, &keep), 0);
	assert_int_equal(keep, 30 * 86400);
	assert_int_equal(store__set_retention(f->s, 0), 0);
	p = make_profile("h", now_s - 90 * 86400, 3);
	assert_int_equal(store__save_profile(f->s, p, "", old_id), 0);
	assert_int_equal(store__save_profile(f->s, p, "", new_id), 0);
	profile__free(p);
	assert_int_equal(store__load_profile(f->s, old_id, &p), 0);
	profile__free(p);
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
		cmocka_unit_test_setup_teardown(test_profiles_save_list_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiles_a_page_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_again_checks_each_profile_as_it_is_read,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_second_distinct_ids_and_shared_workspace,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_blob_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_sweeps_only_what_the_index_began, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_full_disk_lists_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbols_by_build_id_uploads_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_symbol_table_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_uploads_replace_list_delete_by_prefix, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_whole_id_wins_over_longer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_services, setup, teardown),
		cmocka_unit_test_setup_teardown(test_servers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiles_by_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_previous_schema_is_upgraded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_older_than, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retention_setting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_strings_kept_as_written, setup,
						teardown),
		cmocka_unit_test(test_default_dir),
	};
	/* What every backend promises, on PostgreSQL. */
	const struct CMUnitTest on_postgresql[] = {
		cmocka_unit_test_setup_teardown(test_profiles_save_list_load, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_profiles_a_page_at_a_time, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_profiles_by_cursor, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_same_second_distinct_ids_and_shared_workspace,
						setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_prune_older_than, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_retention_setting, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_strings_kept_as_written, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_symbols_by_build_id_uploads_first, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_uploads_replace_list_delete_by_prefix,
						setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_whole_id_wins_over_longer, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_services, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_servers, setup_pg, teardown),
	};
	/* PostgreSQL first: tests/run.sh reads the last group's count, and the SQLite group
	 * always runs, where PostgreSQL may be skipped. */
	int failed = cmocka_run_group_tests_name("postgresql", on_postgresql, group_setup_pg,
						 group_teardown_pg);

	return failed + cmocka_run_group_tests_name("sqlite", tests, NULL, NULL);
}
