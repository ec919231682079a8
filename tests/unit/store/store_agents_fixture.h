/* SPDX-License-Identifier: MIT */
/*
 * What the tests of agents in the workspace store share (test_store_agents.c:
 * enrolment, credentials, names, workspaces from before agents; test_store_agents_data.c:
 * what agents deliver and are sent): each test's fresh store, on SQLite (setup) or on a
 * fresh database of a PostgreSQL 15 the test starts itself (setup_pg,
 * store_pg_group.h), a statement's one value, and a server enrolled. Each including
 * file uses what it needs.
 */
#ifndef SLIDEOPS_TESTS_STORE_AGENTS_FIXTURE_H
#define SLIDEOPS_TESTS_STORE_AGENTS_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "store/store.h"
#include "store/store_backend.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/strtab.h"
#include "util/clock.h"

#define STORE_PG_TESTS "agent"
#include "store_pg_group.h"

#define S(p, s) profile__intern((p), (s))

struct fixture {
	char dir[64];
	const char *url;     /* PostgreSQL: the database; NULL: SQLite in dir */
	struct store *s;
};

__attribute__((unused)) static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/slideops-agents.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->url = store__url();
	f->s = store__open(f->dir);
	if (!f->s)
		return -1;
	*state = f;
	return 0;
}

__attribute__((unused)) static int setup_pg(void **state)
{
	if (!pg_fresh_database("agents"))
		return -1;
	return setup(state);
}

__attribute__((unused)) static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	store__close(f->s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", f->dir);
	free(f);
	return 0;
}

/* Runs sql on the workspace behind the store's back; the first value of its first row,
 * as text, or "" when it returns none. */
__attribute__((unused)) static const char *sql1(struct fixture *f, const char *sql)
{
	static char out[512];

	out[0] = '\0';
	if (f->url) {
		PGconn *c = PQconnectdb(f->url);
		PGresult *r;

		assert_int_equal(PQstatus(c), CONNECTION_OK);
		r = PQexec(c, sql);
		if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
			fail_msg("%s: %s", sql, PQerrorMessage(c));
		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
			snprintf(out, sizeof(out), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
		PQfinish(c);
	} else {
		char path[128];
		sqlite3 *db;
		sqlite3_stmt *st;

		snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		sqlite3_busy_timeout(db, 10000);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			fail_msg("%s: %s", sql, sqlite3_errmsg(db));
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(out, sizeof(out), "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	return out;
}

/* What an agent says of itself when it enrols. */
__attribute__((unused)) static struct server_entry agent(const char *name)
{
	return (struct server_entry){ .name = (char *)name, .hostname = "db-host",
				      .machine_id = "0123abcd", .kernel = "6.18.0",
				      .agent_version = "0.1.0", .boot_id = "boot-1",
				      .cpus = 8 };
}

/* Enrols an agent named name with a new token: its server id and credential. */
__attribute__((unused)) static void enrol(struct fixture *f, const char *name, char id[STORE_ID_MAX],
		  char cred[STORE_SECRET_HEX + 1], char kept_name[64])
{
	char token[STORE_SECRET_HEX + 1];
	struct server_entry srv = agent(name);
	int64_t expires;

	assert_int_equal(store__new_enrolment(f->s, token, &expires), 0);
	assert_int_equal(store__enrol(f->s, token, &srv, cred), 0);
	snprintf(id, STORE_ID_MAX, "%s", srv.id);
	snprintf(kept_name, 64, "%s", srv.name);
	free(srv.name);
}

#endif
