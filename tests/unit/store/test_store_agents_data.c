// SPDX-License-Identifier: MIT
/*
 * What agents deliver to the workspace store and are sent, on both backends (SQLite in a
 * data directory, then a real PostgreSQL 15 the test starts itself): an agent's symbol
 * and line tables name its own server's profiles only; a delivered batch is stored once
 * however often it is sent, listed under its server's name, and the spool drops it
 * reports counted once with it, read the same through another open. Agents' commands
 * queued through one open of the workspace are taken through another (as two workspace
 * processes do), in order, once; their replies and a capture's progress are read back
 * through the first.
 */
#include "store_agents_fixture.h"

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
		cmocka_unit_test_setup_teardown(test_agent_tables_name_their_server_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_agent_lines_their_server_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_batch_stored_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_spool_drops_counted_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_commands_handed_over, setup, teardown),
	};
	const struct CMUnitTest on_postgresql[] = {
		cmocka_unit_test_setup_teardown(test_agent_tables_name_their_server_only,
						setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_agent_lines_their_server_only, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_batch_stored_once, setup_pg, teardown),
		cmocka_unit_test_setup_teardown(test_batch_spool_drops_counted_once, setup_pg,
						teardown),
		cmocka_unit_test_setup_teardown(test_commands_handed_over, setup_pg, teardown),
	};
	int failed = cmocka_run_group_tests_name("postgresql", on_postgresql, group_setup_pg,
						 group_teardown_pg);

	return failed + cmocka_run_group_tests_name("sqlite", tests, NULL, NULL);
}
