/* SPDX-License-Identifier: MIT */
/*
 * The PostgreSQL group the store's tests share (store_fixture.h, store_agents_fixture.h):
 * a PostgreSQL 15 the test binary starts itself for its "postgresql" group
 * (group_setup_pg, group_teardown_pg; helpers/pgserver.h), skipped, saying so, only where
 * PostgreSQL is not installed, and a fresh database of it for each test
 * (pg_fresh_database). The including file defines STORE_PG_TESTS, what its tests are
 * called in the skip message ("store", "agent").
 */
#ifndef SLIDEOPS_TESTS_STORE_PG_GROUP_H
#define SLIDEOPS_TESTS_STORE_PG_GROUP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "helpers/pgserver.h"
#include "store/store.h"

#ifndef STORE_PG_TESTS
#error "define STORE_PG_TESTS (what the skip message calls these tests) before including"
#endif

__attribute__((unused)) static struct pgserver *pg;
__attribute__((unused)) static int pg_databases;

/* A fresh database named prefix_N, made the store's (store__set_url): its URL, NULL on
 * failure; skips the test when no PostgreSQL runs. */
__attribute__((unused)) static const char *pg_fresh_database(const char *prefix)
{
	char name[32];
	const char *url;

	if (!pg)
		skip();
	snprintf(name, sizeof(name), "%s_%d", prefix, ++pg_databases);
	url = pgserver__createdb(pg, name);
	if (!url || store__set_url(url))
		return NULL;
	return url;
}

__attribute__((unused)) static int group_setup_pg(void **state)
{
	(void)state;
	pg = pgserver__start();
	if (!pg && !pgserver__missing())
		return -1; /* installed, yet not started: a failure, not a skip */
	if (!pg)
		fprintf(stderr, "skipping the PostgreSQL " STORE_PG_TESTS " tests: %s\n",
			pgserver__why());
	return 0;
}

__attribute__((unused)) static int group_teardown_pg(void **state)
{
	(void)state;
	store__set_url(NULL);
	pgserver__stop(pg);
	pg = NULL;
	return 0;
}

#endif
