/* SPDX-License-Identifier: MIT */
/*
 * A real PostgreSQL 15 server for a test (tests/tools/pg-server.sh): initdb into a
 * temporary directory as an unprivileged user, started on a unix socket directory,
 * password authentication through PGPASSFILE. A watchdog process stops it and removes
 * the directory when the test process ends, however it ends (an assertion, a crash).
 *
 *	struct pgserver *pg = pgserver__start();   NULL: pgserver__why() says why
 *	const char *url = pgserver__createdb(pg, "t1");
 *	...
 *	pgserver__stop(pg);
 */
#ifndef SLIDEOPS_TESTS_PGSERVER_H
#define SLIDEOPS_TESTS_PGSERVER_H

struct pgserver;

/* NULL when PostgreSQL cannot be started; pgserver__why() then says why, and
 * pgserver__missing() is true when it is not installed (a test then skips). */
struct pgserver *pgserver__start(void);
const char *pgserver__why(void);
int pgserver__missing(void);
/* postgresql://slideops@SOCKET:5432/name of a new empty database (valid until stop). */
const char *pgserver__createdb(struct pgserver *pg, const char *name);
/* The URL of a database that is not there (to connect to and fail). */
const char *pgserver__url(struct pgserver *pg, const char *name);
void pgserver__stop(struct pgserver *pg);

#endif
