// SPDX-License-Identifier: MIT
/*
 * The PostgreSQL workspace where it differs from a data directory, on a real
 * PostgreSQL 15 the test starts itself (helpers/pgserver.h): URLs with a password are
 * refused; a database that cannot be reached, holds another program's tables, or was
 * made by a newer slideops is refused with nothing changed; a database of the previous
 * schema version is brought up to date with its profiles; two processes starting on an
 * empty database at once migrate it once; a process killed in the middle of saving
 * leaves nothing half-written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers/pgserver.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "store/store.h"
#include "store/store_backend.h"

static struct pgserver *pg;
static char dir[64];

static const char *new_db(const char *name)
{
	const char *url;

	if (!pg)
		skip();
	url = pgserver__createdb(pg, name);
	assert_non_null(url);
	return url;
}

/* One value of a query on url, as text ("" when no row). */
static char *query1(const char *url, const char *sql)
{
	static char out[256];
	PGconn *c = PQconnectdb(url);
	PGresult *r;

	assert_int_equal(PQstatus(c), CONNECTION_OK);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	snprintf(out, sizeof(out), "%s", PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	PQfinish(c);
	return out;
}

static struct profile *make_profile(const char *host, int64_t t, uint32_t nsamples)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct prof_mapping m = { .kind = MAPPING_EXE, .language = LANGUAGE_C };

	assert_non_null(p);
	p->header.hostname = profile__intern(p, host);
	p->header.started_at_ns = t * 1000000000LL;
	p->header.duration_ns = 30000000000ULL;
	p->header.sample_hz = 99;
	m.path = profile__intern(p, "/usr/local/bin/app");
	assert_int_equal(profile__add_mapping(p, &m), 0);
	for (uint32_t i = 0; i < nsamples; i++) {
		struct prof_location l = { .mapping = 0, .address = 0x400000 + i * 64 };
		struct prof_labels lb = { .pid = 1, .tid = (int32_t)i + 1 };
		int64_t v[PROFILE_MAX_VALUES] = { 1, 10101010 };
		uint32_t loc = profile__add_location(p, &l), stack;

		stack = profile__add_stack(p, &loc, 1);
		assert_int_equal(profile__add_sample(p, stack, v, &lb), 0);
	}
	return p;
}

static void test_url_with_a_password_is_refused(void **state)
{
	(void)state;
	assert_int_equal(store__check_url("postgresql://u:secret@localhost:5432/db"), -EACCES);
	assert_int_equal(store__check_url("postgresql://u@localhost/db?password=secret"), -EACCES);
	assert_int_equal(store__set_url("postgres://u:secret@localhost/db"), -EACCES);
	assert_null(store__url());
	assert_int_equal(store__check_url("mysql://u@localhost/db"), -EINVAL);
	assert_int_equal(store__check_url("/var/lib/slideops"), -EINVAL);
	assert_int_equal(store__check_url("postgresql://u@localhost:5432/db?sslmode=require"), 0);
	assert_int_equal(store__check_url("postgresql://u@%2Frun%2Fpg:5432/db"), 0);
	errno = 0;
	assert_null(store__open_url("postgresql://u:pw@localhost/db", dir));
	assert_int_equal(errno, EACCES);
}

static void test_unreachable_database(void **state)
{
	struct store *s;

	(void)state;
	if (!pg)
		skip();
	/* No server on that socket; a database that is not there. */
	s = store__open_url("postgresql://slideops@%2Fnonexistent:5432/db", dir);
	assert_null(s);
	assert_int_equal(errno, ECONNREFUSED);
	assert_non_null(strstr(store__problem(NULL), "/nonexistent"));
	s = store__open_url(pgserver__url(pg, "not_there"), dir);
	assert_null(s);
	assert_int_equal(errno, ECONNREFUSED);
	assert_non_null(strstr(store__problem(NULL), "not_there"));
}

static void test_database_of_another_program_is_left_alone(void **state)
{
	const char *url = new_db("billing");

	(void)state;
	query1(url, "CREATE TABLE invoices (id int PRIMARY KEY)");
	query1(url, "INSERT INTO invoices VALUES (7)");
	assert_null(store__open_url(url, dir));
	assert_int_equal(errno, EMEDIUMTYPE);
	assert_string_equal(query1(url, "SELECT to_regclass('slideops_meta') IS NULL"), "t");
	assert_string_equal(query1(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
			    "1");
	assert_string_equal(query1(url, "SELECT id FROM invoices"), "7");
}

static void test_newer_schema_is_refused_unchanged(void **state)
{
	const char *url = new_db("newer");
	struct profile *p = make_profile("h", 1796220000, 5);
	char id[STORE_ID_MAX];
	struct store *s;

	(void)state;
	s = store__open_url(url, dir);
	assert_non_null(s);
	assert_int_equal(store__save_profile(s, p, "", id), 0);
	store__close(s);
	profile__free(p);
	query1(url, "UPDATE slideops_meta SET value = '99' WHERE key = 'schema_version'");
	assert_null(store__open_url(url, dir));
	assert_int_equal(errno, EPROTO);
	assert_string_equal(query1(url, "SELECT value FROM slideops_meta"
					" WHERE key = 'schema_version'"),
			    "99");
	assert_string_equal(query1(url, "SELECT count(*) FROM profiles"), "1");
}

/* A database made by the previous schema version (1): opened by this one, brought to
 * the current version, its profiles listed and loaded as they were. */
static void test_previous_schema_is_upgraded(void **state)
{
	const char *url = new_db("previous");
	struct profile *p = make_profile("old-host", 1796220000, 7), *q;
	struct profile_query query = { .question = -1, .server = "old-host" };
	struct profile_entry *e;
	char sql[512], version[16];
	void *blob;
	size_t len, n;
	uint64_t total;
	struct store *s;
	PGconn *c;
	PGresult *r;

	(void)state;
	assert_int_equal(store_pg__create_at(url, 1), 0);
	assert_string_equal(query1(url, "SELECT value FROM slideops_meta"
					" WHERE key = 'schema_version'"),
			    "1");
	/* A profile as version 1 kept it. */
	assert_int_equal(pprof__encode(p, false, &blob, &len), 0);
	c = PQconnectdb(url);
	assert_int_equal(PQstatus(c), CONNECTION_OK);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO profiles (id, question, server, started_at_ns, duration_ns, answer,"
		 " saved_at_ns, bytes) VALUES ('20261202-000000-cpu-0001', 'cpu', 'old-host'::bytea,"
		 " 1796220000000000000, 30000000000, 'kept'::bytea, 1796220000000000001, %zu)",
		 len);
	PQclear(PQexec(c, sql));
	{
		const char *values[1] = { blob };
		int lengths[1] = { (int)len }, formats[1] = { 1 };

		r = PQexecParams(c, "INSERT INTO profile_blobs (id, data) VALUES"
				    " ('20261202-000000-cpu-0001', $1::bytea)",
				 1, NULL, values, lengths, formats, 0);
		assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
		PQclear(r);
	}
	PQfinish(c);
	free(blob);
	profile__free(p);

	s = store__open_url(url, dir);
	assert_non_null(s);
	snprintf(version, sizeof(version), "%s",
		 query1(url, "SELECT value FROM slideops_meta WHERE key = 'schema_version'"));
	assert_int_not_equal(atoi(version), 1);
	/* What the new version added: the list's filters are indexed. */
	assert_string_equal(query1(url, "SELECT count(*) FROM pg_indexes WHERE indexname IN"
					" ('profiles_by_server', 'profiles_by_question')"),
			    "2");
	assert_int_equal(store__query_profiles(s, &query, &e, &n, &total), 0);
	assert_int_equal(n, 1);
	assert_int_equal(total, 1);
	assert_string_equal(e[0].answer, "kept");
	profile_entries__free(e, n);
	assert_int_equal(store__load_profile(s, "20261202-000000-cpu-0001", &q), 0);
	assert_int_equal(q->nsamples, 7);
	profile__free(q);
	store__close(s);
}

/* Several processes opening an empty database at once: each opens it, the schema is
 * made once (a second CREATE TABLE would have failed one of them). */
static void test_processes_starting_at_once_migrate_once(void **state)
{
	const char *url = new_db("race");
	pid_t pids[6];
	int status;

	(void)state;
	for (int i = 0; i < 6; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct store *s = store__open_url(url, dir);
			struct server_entry e = { .hostname = "h" };
			int err;

			if (!s)
				_exit(10 + errno % 100);
			snprintf(e.id, sizeof(e.id), "agent-%d", i);
			err = store__put_server(s, &e);
			store__close(s);
			_exit(err ? 2 : 0);
		}
	}
	for (int i = 0; i < 6; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_string_equal(query1(url, "SELECT count(*) FROM servers"), "6");
	assert_string_equal(query1(url, "SELECT count(*) FROM slideops_meta"
					" WHERE key = 'schema_version'"),
			    "1");
}

/* A process killed (SIGKILL) while it saves: every profile the database lists has its
 * whole blob, and another process reads them all. */
static void test_killed_mid_save_leaves_nothing_half_written(void **state)
{
	const char *url = new_db("killed");
	struct profile_entry *e;
	struct store *s;
	size_t n;
	pid_t pid;
	int status;

	(void)state;
	s = store__open_url(url, dir);
	assert_non_null(s);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *w = store__open_url(url, dir);
		/* Large enough that a save spends time sending its blob. */
		struct profile *p = make_profile("h", 1796220000, 20000);
		char id[STORE_ID_MAX];

		for (;;)
			if (!w || store__save_profile(w, p, "", id))
				_exit(1);
	}
	/* Killed once some saves are in, in the middle of whatever it does then. */
	for (int tries = 0; tries < 600; tries++) {
		if (atoi(query1(url, "SELECT count(*) FROM profiles")) >= 3)
			break;
		usleep(50000);
	}
	usleep(7000);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	/* The database notices the connection gone and rolls back what it was writing. */
	for (int tries = 0; tries < 200; tries++) {
		if (atoi(query1(url, "SELECT count(*) FROM pg_stat_activity"
				     " WHERE datname = 'killed' AND state <> 'idle'"
				     " AND pid <> pg_backend_pid()")) == 0)
			break;
		usleep(50000);
	}
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_true(n >= 3);
	assert_string_equal(query1(url, "SELECT count(*) FROM profiles p LEFT JOIN profile_blobs b"
					" USING (id) WHERE b.id IS NULL"),
			    "0");
	for (size_t i = 0; i < n; i++) {
		struct profile *q;

		assert_int_equal(store__load_profile(s, e[i].id, &q), 0);
		assert_int_equal(q->nsamples, 20000);
		profile__free(q);
	}
	profile_entries__free(e, n);
	store__close(s);
}

/* A reader of an empty database creates nothing and lists nothing. */
static void test_reading_an_empty_database_creates_nothing(void **state)
{
	const char *url = new_db("empty");
	struct profile_entry *e;
	struct store *s;
	size_t n;

	(void)state;
	assert_int_equal(store__set_url(url), 0);
	s = store__open_read(dir);
	assert_int_equal(store__set_url(NULL), 0);
	assert_non_null(s);
	assert_false(store__exists(s));
	assert_int_equal(store__list_profiles(s, &e, &n), 0);
	assert_int_equal(n, 0);
	store__close(s);
	assert_string_equal(query1(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
			    "0");
}

static int group_setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/slideops-pgcache.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	pg = pgserver__start();
	if (!pg && !pgserver__missing())
		return -1; /* installed, yet not started: a failure, not a skip */
	if (!pg)
		fprintf(stderr, "skipping the PostgreSQL store tests: %s\n", pgserver__why());
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	pgserver__stop(pg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_with_a_password_is_refused),
		cmocka_unit_test(test_unreachable_database),
		cmocka_unit_test(test_database_of_another_program_is_left_alone),
		cmocka_unit_test(test_newer_schema_is_refused_unchanged),
		cmocka_unit_test(test_previous_schema_is_upgraded),
		cmocka_unit_test(test_processes_starting_at_once_migrate_once),
		cmocka_unit_test(test_killed_mid_save_leaves_nothing_half_written),
		cmocka_unit_test(test_reading_an_empty_database_creates_nothing),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
