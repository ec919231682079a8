// SPDX-License-Identifier: MIT
/*
 * Agents in the workspace store, on both backends (SQLite in a data directory, then a
 * real PostgreSQL 15 the test starts itself): an enrolment token works once, and not
 * after it expires; tokens and credentials are kept only as hashes; a removed server's
 * credential stops working at once; names stay unique among the servers not removed; a
 * workspace from before agents opens, lists its servers, and is brought up to date.
 * What agents deliver and are sent: test_store_agents_data.c.
 */
#include "store_agents_fixture.h"

static void test_enrolment_token_works_once(void **state)
{
	struct fixture *f = *state;
	char token[STORE_SECRET_HEX + 1], cred[STORE_SECRET_HEX + 1], again[STORE_SECRET_HEX + 1];
	struct server_entry srv = agent("web"), other = agent("web");
	struct server_entry *who;
	int64_t expires;

	assert_int_equal(store__new_enrolment(f->s, token, &expires), 0);
	assert_int_equal(strlen(token), STORE_SECRET_HEX);
	assert_true(expires > 0);
	assert_int_equal(store__enrol(f->s, token, &srv, cred), 0);
	assert_string_equal(srv.name, "web");
	assert_int_equal(strlen(cred), STORE_SECRET_HEX);
	/* Used: refused, and nothing is added. */
	assert_int_equal(store__enrol(f->s, token, &other, again), -EACCES);
	assert_string_equal(other.name, "web");
	assert_string_equal(sql1(f, "SELECT count(*) FROM servers WHERE this_server = false"),
			    "1");
	/* Never made here, or not even a token: refused. */
	token[0] = token[0] == 'a' ? 'b' : 'a';
	assert_int_equal(store__enrol(f->s, token, &other, again), -EACCES);
	assert_int_equal(store__enrol(f->s, "'; DROP TABLE servers; --", &other, again), -EACCES);
	/* The credential names its server. */
	assert_int_equal(store__authenticate(f->s, cred, &who), 0);
	assert_string_equal(who->id, srv.id);
	assert_string_equal(who->name, "web");
	assert_string_equal(who->kernel, "6.18.0");
	assert_int_equal(who->cpus, 8);
	server_entries__free(who, 1);
	free(srv.name);
}

static void test_enrolment_token_expires(void **state)
{
	struct fixture *f = *state;
	char token[STORE_SECRET_HEX + 1], cred[STORE_SECRET_HEX + 1];
	struct server_entry srv = agent("late");
	int64_t expires, before = clock__realtime_ns(), after;

	assert_int_equal(store__new_enrolment(f->s, token, &expires), 0);
	after = clock__realtime_ns();
	/* An hour, as the API says. */
	assert_true(expires >= before + 3600 * 1000000000LL);
	assert_true(expires <= after + 3600 * 1000000000LL);
	/* The hour passed. */
	sql1(f, "UPDATE enrolments SET expires_at_ns = 1");
	assert_int_equal(store__enrol(f->s, token, &srv, cred), -EACCES);
	assert_string_equal(sql1(f, "SELECT count(*) FROM credentials"), "0");
}

/* Neither the token nor the credential is anywhere in the workspace: only their hashes. */
static void test_secrets_kept_hashed(void **state)
{
	struct fixture *f = *state;
	char token[STORE_SECRET_HEX + 1], cred[STORE_SECRET_HEX + 1], q[256];
	struct server_entry srv = agent("hashed");
	int64_t expires;

	assert_int_equal(store__new_enrolment(f->s, token, &expires), 0);
	assert_int_equal(store__enrol(f->s, token, &srv, cred), 0);
	snprintf(q, sizeof(q), "SELECT count(*) FROM enrolments WHERE token_hash = '%s'", token);
	assert_string_equal(sql1(f, q), "0");
	snprintf(q, sizeof(q), "SELECT count(*) FROM credentials WHERE hash = '%s'", cred);
	assert_string_equal(sql1(f, q), "0");
	assert_string_equal(sql1(f, "SELECT count(*) FROM enrolments"), "1");
	assert_int_equal(strlen(sql1(f, "SELECT hash FROM credentials")), 64);
	assert_string_not_equal(sql1(f, "SELECT hash FROM credentials"), cred);
	if (!f->url) { /* the file itself holds neither */
		char path[128], *buf = malloc(8 << 20);
		FILE *fp;
		size_t len;

		snprintf(path, sizeof(path), "%s/workspace.db", f->dir);
		fp = fopen(path, "rb");
		assert_non_null(fp);
		len = fread(buf, 1, 8 << 20, fp);
		fclose(fp);
		assert_null(memmem(buf, len, token, STORE_SECRET_HEX));
		assert_null(memmem(buf, len, cred, STORE_SECRET_HEX));
		free(buf);
	}
	free(srv.name);
}

static void test_removed_server_credential_revoked(void **state)
{
	struct fixture *f = *state;
	char id[STORE_ID_MAX], cred[STORE_SECRET_HEX + 1], name[64];
	char id2[STORE_ID_MAX], cred2[STORE_SECRET_HEX + 1], name2[64];
	struct server_entry *who, *e;
	size_t n;

	enrol(f, "api", id, cred, name);
	assert_int_equal(store__authenticate(f->s, cred, &who), 0);
	server_entries__free(who, 1);
	assert_int_equal(store__remove_server(f->s, id), 0);
	assert_int_equal(store__authenticate(f->s, cred, &who), -EKEYREVOKED);
	assert_null(who);
	/* Once only; this server is never removed; an unknown one is none. */
	assert_int_equal(store__remove_server(f->s, id), -ENOENT);
	assert_int_equal(store__remove_server(f->s, "local"), -EPERM);
	assert_int_equal(store__remove_server(f->s, "s0000000000000000"), -ENOENT);
	/* Still listed, as removed, and its name stays its own: profiles are listed by
	 * name, so a new server of that name would take its history (issue 28). */
	assert_int_equal(store__get_server(f->s, id, &e), 0);
	assert_true(e->removed_at_ns > 0);
	assert_string_equal(e->name, "api");
	server_entries__free(e, 1);
	enrol(f, "api", id2, cred2, name2);
	assert_string_equal(name2, "api-2");
	assert_string_not_equal(id2, id);
	assert_int_equal(store__list_servers(f->s, &e, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].id, id2); /* not removed first */
	server_entries__free(e, n);
}

static void test_names_unique_and_listing(void **state)
{
	struct fixture *f = *state;
	struct server_entry local = { .id = "local", .hostname = "ws-host", .this_server = true };
	char id[3][STORE_ID_MAX], cred[3][STORE_SECRET_HEX + 1], name[3][64];
	struct server_entry *e, *who;
	size_t n;

	assert_int_equal(store__put_server(f->s, &local), 0);
	enrol(f, "db", id[0], cred[0], name[0]);
	enrol(f, "db", id[1], cred[1], name[1]);
	/* An agent on the workspace's own machine is a server of its own. */
	enrol(f, "ws-host", id[2], cred[2], name[2]);
	assert_string_equal(name[0], "db");
	assert_string_equal(name[1], "db-2");
	assert_string_equal(name[2], "ws-host-2");
	assert_int_equal(store__list_servers(f->s, &e, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(e[0].id, "local");
	assert_true(e[0].this_server);
	assert_string_equal(e[0].name, "ws-host");
	assert_string_equal(e[1].name, "db");
	assert_string_equal(e[2].name, "db-2");
	assert_false(e[1].this_server);
	assert_string_equal(e[1].machine_id, "0123abcd");
	assert_true(e[1].last_seen_ns > 0);
	server_entries__free(e, n);
	/* A poll: last seen moves, what the agent says now is kept. */
	sql1(f, "UPDATE servers SET last_seen_ns = 5");
	assert_int_equal(store__server_seen(f->s, id[1], "6.19.1", NULL, "boot-2"), 0);
	assert_int_equal(store__authenticate(f->s, cred[1], &who), 0);
	assert_true(who->last_seen_ns > 5);
	assert_string_equal(who->kernel, "6.19.1");
	assert_string_equal(who->agent_version, "0.1.0");
	assert_string_equal(who->boot_id, "boot-2");
	server_entries__free(who, 1);
	assert_int_equal(store__server_seen(f->s, "s-none", NULL, NULL, NULL), -ENOENT);
	/* Batches refused for what they held: counted, the last reason kept. */
	assert_int_equal(store__server_refused(f->s, id[1], "too many samples"), 0);
	assert_int_equal(store__server_refused(f->s, id[1], "a start in 2262"), 0);
	assert_int_equal(store__get_server(f->s, id[1], &e), 0);
	assert_int_equal(e->batches_refused, 2);
	assert_string_equal(e->last_refusal, "a start in 2262");
	assert_true(e->last_refusal_ns > 0);
	server_entries__free(e, 1);
	assert_int_equal(store__get_server(f->s, id[0], &e), 0);
	assert_int_equal(e->batches_refused, 0);
	assert_string_equal(e->last_refusal, "");
	server_entries__free(e, 1);
}

/* The name server_id's profiles read at 0x1010 of build BID, or "" when none. */

static void test_workspace_before_agents(void **state)
{
	struct fixture *f = *state;
	struct server_entry local = { .id = "local", .hostname = "old-host", .this_server = true };
	struct server_entry *e;
	size_t n;

	assert_int_equal(store__put_server(f->s, &local), 0);
	store__close(f->s);
	f->s = NULL;
	sql1(f, "DROP TABLE enrolments");
	sql1(f, "DROP TABLE credentials");
	sql1(f, "DROP TABLE batches");
	sql1(f, "DROP TABLE agent_commands");
	sql1(f, "DROP TABLE agent_captures");
	sql1(f, "DROP TABLE server_symbols");
	sql1(f, "DROP TABLE server_lines");
	for (const char *const *c = (const char *const[]){ "name", "machine_id", "kernel",
			"agent_version", "boot_id", "cpus", "last_seen_ns", "removed_at_ns",
			"spool_dropped", "batches_refused", "last_refusal", "last_refusal_ns",
			NULL }; *c; c++) {
		char q[96];

		snprintf(q, sizeof(q), "ALTER TABLE servers DROP COLUMN %s", *c);
		sql1(f, q);
	}
	sql1(f, "PRAGMA user_version = 5");
	f->s = store__open_read(f->dir);
	assert_non_null(f->s);
	assert_int_equal(store__list_servers(f->s, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].name, "old-host");
	assert_int_equal(e[0].spool_dropped, 0);
	server_entries__free(e, n);
	store__close(f->s);
	f->s = store__open(f->dir);
	assert_non_null(f->s);
	assert_string_equal(sql1(f, "PRAGMA user_version"), "9");
	/* What v7 added: agents' commands and captures, none yet; v8: no drops counted. */
	assert_string_equal(sql1(f, "SELECT count(*) FROM agent_commands"), "0");
	assert_string_equal(sql1(f, "SELECT count(*) FROM agent_captures"), "0");
	assert_string_equal(sql1(f, "SELECT spool_dropped FROM servers"), "0");
	assert_int_equal(store__list_servers(f->s, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].name, "old-host");
	assert_int_equal(e[0].removed_at_ns, 0);
	assert_int_equal(e[0].spool_dropped, 0);
	server_entries__free(e, n);
}

/* The same on PostgreSQL: a database of schema 3 holding this server. */
static void test_database_before_agents(void **state)
{
	struct server_entry *e;
	struct store *s;
	char name[32];
	const char *url;
	size_t n;
	PGconn *c;

	(void)state;
	if (!pg)
		skip();
	snprintf(name, sizeof(name), "agents_%d", ++pg_databases);
	url = pgserver__createdb(pg, name);
	assert_non_null(url);
	assert_int_equal(store_pg__create_at(url, 3), 0);
	c = PQconnectdb(url);
	assert_int_equal(PQstatus(c), CONNECTION_OK);
	PQclear(PQexec(c, "INSERT INTO servers (id, hostname, this_server, added_at_ns) VALUES"
			  " ('local'::bytea, 'old-host'::bytea, true, 1)"));
	PQfinish(c);
	s = store__open_url(url, "/tmp");
	assert_non_null(s);
	assert_int_equal(store__list_servers(s, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].name, "old-host");
	assert_true(e[0].this_server);
	assert_int_equal(e[0].spool_dropped, 0);
	server_entries__free(e, n);
	store__close(s);
}

/* Another process of the workspace: its own open of the store. */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enrolment_token_works_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enrolment_token_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_kept_hashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_server_credential_revoked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_names_unique_and_listing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workspace_before_agents, setup, teardown),
	};
	const struct CMUnitTest on_postgresql[] = {
		cmocka_unit_test_setup_teardown(test_enrolment_token_works_once, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_enrolment_token_expires, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_kept_hashed, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_removed_server_credential_revoked, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_names_unique_and_listing, setup_pg, teardown),
		cmocka_unit_test(test_database_before_agents),
	};
	int failed = cmocka_run_group_tests_name("postgresql", on_postgresql, group_setup_pg,
						 group_teardown_pg);

	return failed + cmocka_run_group_tests_name("sqlite", tests, NULL, NULL);
}
