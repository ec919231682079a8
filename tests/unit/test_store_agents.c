// SPDX-License-Identifier: MIT
/*
 * Agents in the workspace store, on both backends (SQLite in a data directory, then a
 * real PostgreSQL 15 the test starts itself): an enrolment token works once, and not
 * after it expires; tokens and credentials are kept only as hashes; a removed server's
 * credential stops working at once; names stay unique among the servers not removed; a
 * delivered batch is stored once however often it is sent, listed under its server's
 * name, and the spool drops it reports counted once with it, read the same through
 * another open; a workspace from before agents opens, lists its servers, and is brought up
 * to date. Agents' commands queued through one open of the workspace are taken through
 * another (as two workspace processes do), in order, once; their replies and a
 * capture's progress are read back through the first.
 */
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

#include "helpers/pgserver.h"
#include "profile/profile.h"
#include "store/store.h"
#include "store/store_backend.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/strtab.h"
#include "util/clock.h"

#define S(p, s) profile__intern((p), (s))

struct fixture {
	char dir[64];
	const char *url;     /* PostgreSQL: the database; NULL: SQLite in dir */
	struct store *s;
};

static struct pgserver *pg;
static int pg_databases;

static int setup(void **state)
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

static int setup_pg(void **state)
{
	char name[32];
	const char *url;

	if (!pg)
		skip();
	snprintf(name, sizeof(name), "agents_%d", ++pg_databases);
	url = pgserver__createdb(pg, name);
	if (!url || store__set_url(url))
		return -1;
	return setup(state);
}

static int teardown(void **state)
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

static int group_setup_pg(void **state)
{
	(void)state;
	pg = pgserver__start();
	if (!pg && !pgserver__missing())
		return -1;
	if (!pg)
		fprintf(stderr, "skipping the PostgreSQL agent tests: %s\n", pgserver__why());
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

/* Runs sql on the workspace behind the store's back; the first value of its first row,
 * as text, or "" when it returns none. */
static const char *sql1(struct fixture *f, const char *sql)
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
static struct server_entry agent(const char *name)
{
	return (struct server_entry){ .name = (char *)name, .hostname = "db-host",
				      .machine_id = "0123abcd", .kernel = "6.18.0",
				      .agent_version = "0.1.0", .boot_id = "boot-1",
				      .cpus = 8 };
}

/* Enrols an agent named name with a new token: its server id and credential. */
static void enrol(struct fixture *f, const char *name, char id[STORE_ID_MAX],
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
#define BID "b00c0ffee0000000000000000000000000000001"
static const char *named_for(struct fixture *f, const char *server_id, char out[64])
{
	struct server_names by;
	struct symbol_lookup l = store__server_symbol_lookup(&by, f->s, server_id);
	struct symtab *tab = NULL;
	uint64_t off;

	out[0] = '\0';
	if (l.get(l.ctx, BID, &tab) == 0) {
		const char *name = symtab__lookup(tab, 0x1010, &off);

		snprintf(out, 64, "%s", name ? name : "");
	}
	symtab__free(tab);
	return out;
}

static struct symtab *one_symbol(const char *name)
{
	struct symtab *t = symtab__new();

	assert_non_null(t);
	assert_int_equal(symtab__add(t, 0x1000, 0x40, name, strlen(name)), 0);
	assert_int_equal(symtab__finish(t), 0);
	return t;
}

/* Issue 28, 4: an agent's table names its own server's profiles, never another's; an
 * upload names every server's. */
static void test_agent_tables_name_their_server_only(void **state)
{
	struct fixture *f = *state;
	char a[STORE_ID_MAX], b[STORE_ID_MAX], cred[STORE_SECRET_HEX + 1], name[64], got[64];
	struct symtab *ta = one_symbol("fn_from_A"), *tb = one_symbol("b_fn"),
		      *up = one_symbol("uploaded_fn");

	enrol(f, "agent-a", a, cred, name);
	enrol(f, "agent-b", b, cred, name);
	assert_int_equal(store__put_server_symbols(f->s, a, BID, SYMBOLS_SYMTAB, ta), 0);
	assert_string_equal(named_for(f, a, got), "fn_from_A");
	assert_string_equal(named_for(f, b, got), "");
	assert_string_equal(named_for(f, "local", got), "");
	assert_int_equal(store__server_keeps_full_names(f->s, a, BID), 1);
	assert_int_equal(store__server_keeps_full_names(f->s, b, BID), 0);
	assert_int_equal(store__keeps_full_names(f->s, BID), 0);
	assert_int_equal(store__put_server_symbols(f->s, b, BID, SYMBOLS_DYNSYM, tb), 0);
	assert_string_equal(named_for(f, b, got), "b_fn");
	assert_string_equal(named_for(f, a, got), "fn_from_A");
	/* A user's upload names every server's profiles. */
	assert_int_equal(store__put_symbols(f->s, BID, SYMBOLS_UPLOAD, "app.debug", up), 0);
	assert_string_equal(named_for(f, a, got), "uploaded_fn");
	assert_string_equal(named_for(f, b, got), "uploaded_fn");
	assert_string_equal(named_for(f, "local", got), "uploaded_fn");
	assert_int_equal(store__server_keeps_full_names(f->s, b, BID), 1);
	symtab__free(ta);
	symtab__free(tb);
	symtab__free(up);
}

static struct profile *make_profile(const char *host, int64_t t)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct prof_mapping m = { .kind = MAPPING_EXE, .language = LANGUAGE_C,
				  .build_id_recorded = true };
	struct prof_location l = { .mapping = 0, .address = 0x401234 };
	struct prof_labels lb = { .pid = 1, .tid = 1 };
	int64_t v[PROFILE_MAX_VALUES] = { 1, 10101010 };
	uint32_t loc, stack;

	assert_non_null(p);
	p->header.hostname = S(p, host);
	p->header.ncpus = 2;
	p->header.started_at_ns = t * 1000000000LL;
	p->header.duration_ns = 5000000000ULL;
	p->header.sample_hz = 99;
	m.path = S(p, "/usr/bin/app");
	m.build_id = S(p, "b65a313cbf47aa00bb11cc22dd33ee44ff556677");
	assert_int_equal(profile__add_mapping(p, &m), 0);
	loc = profile__add_location(p, &l);
	stack = profile__add_stack(p, &loc, 1);
	assert_int_equal(profile__add_sample(p, stack, v, &lb), 0);
	return p;
}

/* An exact line table of one row: address 0x401234 at file:line. */
static struct line_table *one_line(const char *file, uint32_t line)
{
	struct line_table *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->files = strtab__new();
	t->rows = calloc(1, sizeof(*t->rows));
	assert_non_null(t->files);
	assert_non_null(t->rows);
	strtab__intern(t->files, "");
	t->rows[0] = (struct line_row){ .address = 0x401234,
					.file = strtab__intern(t->files, file), .line = line };
	t->n = 1;
	t->exact = true;
	return t;
}

/* The file a profile's export reads at 0x401234, or "". */
static const char *line_for(struct fixture *f, const char *profile_id, char out[64])
{
	struct server_names by;
	struct lines_lookup l = store__profile_lines_lookup(&by, f->s, profile_id);
	struct line_table *t = NULL;
	const struct line_row *r;

	out[0] = '\0';
	if (l.get(l.ctx, "b65a313cbf47aa00bb11cc22dd33ee44ff556677", &t) == 0 &&
	    (r = line_table__find(t, 0x401234)))
		snprintf(out, 64, "%s", line_table__file(t, r));
	line_table__free(t);
	return out;
}

/* Issue 28, 4: an agent's line tables are its server's alone, as its symbols are. */
static void test_agent_lines_their_server_only(void **state)
{
	struct fixture *f = *state;
	char a[STORE_ID_MAX], b[STORE_ID_MAX], cred[STORE_SECRET_HEX + 1], name_a[64],
		name_b[64], pa[STORE_ID_MAX], pb[STORE_ID_MAX], got[64];
	struct profile *p = make_profile("agent-host", 1796220000);
	struct line_table *la = one_line("from_a.c", 7), *lb = one_line("b.c", 3);
	struct batch_key ka, kb;

	enrol(f, "agent-a", a, cred, name_a);
	enrol(f, "agent-b", b, cred, name_b);
	ka = (struct batch_key){ .server_id = a, .boot_id = "boot", .sequence = 1 };
	kb = (struct batch_key){ .server_id = b, .boot_id = "boot", .sequence = 1 };
	assert_int_equal(store__save_batch(f->s, p, "answer", name_a, &ka, pa), 0);
	assert_int_equal(store__save_batch(f->s, p, "answer", name_b, &kb, pb), 0);
	assert_int_equal(store__put_server_lines(f->s, a, "b65a313cbf47aa00bb11cc22dd33ee44ff556677",
						 la), 0);
	assert_string_equal(line_for(f, pa, got), "from_a.c");
	assert_string_equal(line_for(f, pb, got), "");
	assert_int_equal(store__put_server_lines(f->s, b, "b65a313cbf47aa00bb11cc22dd33ee44ff556677",
						 lb), 0);
	assert_string_equal(line_for(f, pb, got), "b.c");
	assert_string_equal(line_for(f, pa, got), "from_a.c");
	line_table__free(la);
	line_table__free(lb);
	profile__free(p);
}

static void test_batch_stored_once(void **state)
{
	struct fixture *f = *state;
	char id[STORE_ID_MAX], cred[STORE_SECRET_HEX + 1], name[64];
	char first[STORE_ID_MAX], again[STORE_ID_MAX], other[STORE_ID_MAX];
	struct profile *p = make_profile("agent-host", 1796220000);
	struct profile_query q = { .question = -1 };
	struct batch_key key;
	struct profile_entry *e;
	uint64_t total;
	size_t n;

	enrol(f, "db <b>", id, cred, name);
	key = (struct batch_key){ .server_id = id, .boot_id = "boot-1", .sequence = 1 };
	assert_int_equal(store__find_batch(f->s, &key, first), -ENOENT);
	assert_int_equal(store__save_batch(f->s, p, "answer", name, &key, first), 0);
	assert_int_equal(store__find_batch(f->s, &key, again), 0);
	assert_string_equal(again, first);
	/* Sent again (a retry, a replay): the same profile, nothing stored. */
	assert_int_equal(store__save_batch(f->s, p, "answer", name, &key, again), 1);
	assert_string_equal(again, first);
	/* The same sequence after a reboot, and the next one: new captures. */
	key.boot_id = "boot-2";
	assert_int_equal(store__save_batch(f->s, p, "answer", name, &key, other), 0);
	key.sequence = 2;
	assert_int_equal(store__save_batch(f->s, p, "answer", name, &key, other), 0);
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 3);
	/* Listed under its server's name, not the hostname the profile carries. */
	assert_string_equal(e[0].server, "db <b>");
	profile_entries__free(e, n);
	q.server = "db <b>";
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 3);
	profile_entries__free(e, n);
	q.server = "agent-host";
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 0);
	profile_entries__free(e, n);
	/* A key kept already, saved behind the check's back (two requests at once): the
	 * profile is not stored twice. */
	key.sequence = 1;
	key.boot_id = "boot-1";
	assert_int_equal(store__save_row(f->s, p, "answer", name, &key, other), -EALREADY);
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	q.server = NULL;
	profile_entries__free(e, n);
	assert_int_equal(store__query_profiles(f->s, &q, &e, &n, &total), 0);
	assert_int_equal(total, 3);
	profile_entries__free(e, n);
	profile__free(p);
}

/* The spool drops server id's stored batches reported, as s lists them. */
static uint64_t spool_dropped_of(struct store *s, const char *id)
{
	struct server_entry *e;
	uint64_t n;

	assert_int_equal(store__get_server(s, id, &e), 0);
	n = e->spool_dropped;
	server_entries__free(e, 1);
	return n;
}

/* The drops a batch reports are counted once, with the batch: not again when it is sent
 * again (however it meets the batch kept before), not when the batch is not stored, and
 * kept in the workspace, so another open of it (another workspace process, or serve
 * started again) reads the same total. An overstated count stops at the largest kept. */
static void test_batch_spool_drops_counted_once(void **state)
{
	struct fixture *f = *state;
	char id[STORE_ID_MAX], other_id[STORE_ID_MAX], cred[STORE_SECRET_HEX + 1], name[64];
	char first[STORE_ID_MAX], again[STORE_ID_MAX], other_name[64];
	struct profile *p = make_profile("agent-host", 1796220000);
	struct batch_key key;
	struct store *b;

	enrol(f, "web-1", id, cred, name);
	enrol(f, "web-2", other_id, cred, other_name);
	assert_int_equal(spool_dropped_of(f->s, id), 0);
	key = (struct batch_key){ .server_id = id, .boot_id = "boot-1", .sequence = 1,
				  .spool_dropped = 3 };
	assert_int_equal(store__save_batch(f->s, p, "answer", name, &key, first), 0);
	assert_int_equal(spool_dropped_of(f->s, id), 3);
	/* Sent again: the same profile, the drops not counted twice. */
	assert_int_equal(store__save_batch(f->s, p, "answer", name, &key, again), 1);
	assert_string_equal(again, first);
	/* A retry racing the first, past its check: nothing kept, nothing counted. */
	assert_int_equal(store__save_row(f->s, p, "answer", name, &key, again), -EALREADY);
	assert_int_equal(spool_dropped_of(f->s, id), 3);
	/* Another open of the workspace reads the same total, and adds to it. */
	b = f->url ? store__open_url(f->url, f->dir) : store__open(f->dir);
	assert_non_null(b);
	assert_int_equal(spool_dropped_of(b, id), 3);
	key.sequence = 2;
	key.spool_dropped = 4;
	assert_int_equal(store__save_batch(b, p, "answer", name, &key, again), 0);
	store__close(b);
	assert_int_equal(spool_dropped_of(f->s, id), 7);
	/* Each server its own; a batch reporting none changes nothing. */
	assert_int_equal(spool_dropped_of(f->s, other_id), 0);
	key = (struct batch_key){ .server_id = other_id, .boot_id = "b", .sequence = 1 };
	assert_int_equal(store__save_batch(f->s, p, "answer", other_name, &key, again), 0);
	assert_int_equal(spool_dropped_of(f->s, other_id), 0);
	/* Hostile: a count no spool could reach stops at the largest kept, and the batch is
	 * stored rather than refused for ever. */
	key.sequence = 2;
	key.spool_dropped = UINT64_MAX;
	assert_int_equal(store__save_batch(f->s, p, "answer", other_name, &key, again), 0);
	key.sequence = 3;
	key.spool_dropped = UINT64_MAX - 1;
	assert_int_equal(store__save_batch(f->s, p, "answer", other_name, &key, again), 0);
	assert_int_equal(spool_dropped_of(f->s, other_id), INT64_MAX);
	assert_int_equal(spool_dropped_of(f->s, id), 7);
	profile__free(p);
}

/* A data directory of the version before agents: read as it is, then brought up to date
 * with its servers named by their hostnames. */
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
static struct store *open_other(struct fixture *f)
{
	struct store *s = f->url ? store__open_url(f->url, f->dir) : store__open(f->dir);

	assert_non_null(s);
	return s;
}

static void test_commands_handed_over(void **state)
{
	struct fixture *f = *state;
	char id[STORE_ID_MAX], other_id[STORE_ID_MAX], cred[STORE_SECRET_HEX + 1], name[64];
	struct store *b = open_other(f);
	char **texts, **waiting, *doc, *state_text;
	size_t n;
	int status;

	enrol(f, "web-1", id, cred, name);
	enrol(f, "web-2", other_id, cred, name);
	/* Queued through one open... */
	assert_int_equal(store__queue_command(f->s, id, "c1", "{\"kind\":1}"), 0);
	assert_int_equal(store__queue_command(f->s, id, "c2", "{\"kind\":4}"), 0);
	assert_int_equal(store__queue_command(f->s, other_id, "c3", "{\"kind\":3}"), 0);
	assert_int_equal(store__queue_command(f->s, id, "c1", "{}"), -EEXIST);
	assert_int_equal(store__servers_waiting(b, &waiting, &n), 0);
	assert_int_equal(n, 2);
	store__free_strings(waiting, n);
	/* ...taken through the other, oldest first, at most as many as asked, once. */
	assert_int_equal(store__take_commands(b, id, 1, &texts, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(texts[0], "{\"kind\":1}");
	store__free_strings(texts, n);
	assert_int_equal(store__take_commands(b, id, 16, &texts, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(texts[0], "{\"kind\":4}");
	store__free_strings(texts, n);
	assert_int_equal(store__take_commands(f->s, id, 16, &texts, &n), 0);
	assert_int_equal(n, 0);
	store__free_strings(texts, n);
	/* Only the other server's waits now. */
	assert_int_equal(store__servers_waiting(f->s, &waiting, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(waiting[0], other_id);
	store__free_strings(waiting, n);
	/* A delivered command is not taken back; one waiting is, and is then gone. */
	assert_int_equal(store__unqueue_command(f->s, id, "c1"), -ENOENT);
	assert_int_equal(store__unqueue_command(f->s, id, "c3"), -ENOENT);
	assert_int_equal(store__unqueue_command(f->s, other_id, "c3"), 0);
	assert_int_equal(store__take_commands(b, other_id, 16, &texts, &n), 0);
	assert_int_equal(n, 0);
	store__free_strings(texts, n);

	/* The reply comes to the other open; the first reads it. Another server's agent
	 * cannot answer it, and the first answer counts. */
	assert_int_equal(store__command_reply(f->s, id, "c2", &status, &doc), -EAGAIN);
	assert_int_equal(store__reply_command(b, other_id, "c2", 200, "{}"), -ENOENT);
	assert_int_equal(store__reply_command(b, id, "c2", 200, "{\"top\":[]}"), 0);
	assert_int_equal(store__reply_command(b, id, "c2", 500, "{}"), -ENOENT);
	assert_int_equal(store__command_reply(f->s, id, "c2", &status, &doc), 0);
	assert_int_equal(status, 200);
	assert_string_equal(doc, "{\"top\":[]}");
	free(doc);
	assert_int_equal(store__command_reply(f->s, id, "nope", &status, &doc), -ENOENT);

	/* A capture's state, replaced and read back through either open. */
	assert_int_equal(store__get_agent_capture(f->s, id, &state_text), -ENOENT);
	assert_int_equal(store__put_agent_capture(f->s, id, "{\"phase\":\"sampling\"}"), 0);
	assert_int_equal(store__put_agent_capture(b, id, "{\"phase\":\"done\"}"), 0);
	assert_int_equal(store__get_agent_capture(f->s, id, &state_text), 0);
	assert_string_equal(state_text, "{\"phase\":\"done\"}");
	free(state_text);
	assert_int_equal(store__get_agent_capture(b, other_id, &state_text), -ENOENT);
	store__close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enrolment_token_works_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enrolment_token_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_kept_hashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_server_credential_revoked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_names_unique_and_listing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_tables_name_their_server_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_agent_lines_their_server_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_batch_stored_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_spool_drops_counted_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_workspace_before_agents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands_handed_over, setup, teardown),
	};
	const struct CMUnitTest on_postgresql[] = {
		cmocka_unit_test_setup_teardown(test_enrolment_token_works_once, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_enrolment_token_expires, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_kept_hashed, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_removed_server_credential_revoked, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_names_unique_and_listing, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_agent_tables_name_their_server_only,
						setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_agent_lines_their_server_only, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_batch_stored_once, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_batch_spool_drops_counted_once, setup_pg,
						teardown),
		cmocka_unit_test(test_database_before_agents),
		cmocka_unit_test_setup_teardown(test_commands_handed_over, setup_pg, teardown),
	};
	int failed = cmocka_run_group_tests_name("postgresql", on_postgresql, group_setup_pg,
						 group_teardown_pg);

	return failed + cmocka_run_group_tests_name("sqlite", tests, NULL, NULL);
}
