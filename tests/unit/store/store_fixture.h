/* SPDX-License-Identifier: MIT */
/*
 * What the store's tests share (test_store.c: profiles; test_store_workspace.c: the
 * workspace itself; test_store_catalog.c: symbol tables, uploads, servers, services):
 * each test's fresh data directory and store, on SQLite (setup) or on a fresh database
 * of a PostgreSQL 15 the test starts itself (setup_pg, store_pg_group.h), a small cpu
 * profile, and files made by hand. Each including file uses what it needs.
 */
#ifndef SLIDEOPS_TESTS_STORE_FIXTURE_H
#define SLIDEOPS_TESTS_STORE_FIXTURE_H

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

#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symtab.h"
#include "util/clock.h"

#define STORE_PG_TESTS "store"
#include "store_pg_group.h"

#define S(p, s) profile__intern((p), (s))


struct fixture {
	char dir[64];
	struct store *s;
};

__attribute__((unused)) static int setup(void **state)
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

/* The same fixture on a fresh PostgreSQL database: store__open(dir) then opens it, and
 * dir holds only this machine's caches. */
__attribute__((unused)) static int setup_pg(void **state)
{
	const char *url = pg_fresh_database("store");

	if (!url)
		return -1;
	if (setup(state)) {
		fprintf(stderr, "cannot open %s: %s (%s)\n", url, strerror(errno),
			store__problem(NULL));
		return -1;
	}
	return 0;
}

__attribute__((unused)) static void rm_rf(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

__attribute__((unused)) static int teardown(void **state)
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
__attribute__((unused)) static struct profile *make_profile(const char *host, int64_t t, uint32_t nsamples)
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

__attribute__((unused)) static size_t count_files(const char *dir)
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

__attribute__((unused)) static void write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

__attribute__((unused)) static bool exists(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

__attribute__((unused)) static void make_old_file(const char *dir, const char *name, time_t age)
{
	struct timespec times[2] = { { .tv_sec = time(NULL) - age },
				     { .tv_sec = time(NULL) - age } };
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, "x", 1);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* Notes a save in progress in the index, as a save that crashed would have left it. */
__attribute__((unused)) static void add_pending(const char *dir, const char *blob, const char *tmp, int64_t age_s)
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

#endif
