// SPDX-License-Identifier: MIT
/*
 * The workspace's catalog: symbol tables by build id with uploads first (a damaged one
 * refused), uploads replaced by build and deleted by prefix (a whole id winning over a
 * longer one), servers and Services.
 *
 * What the store promises whatever keeps it runs twice: on SQLite in the data directory,
 * then on a real PostgreSQL 15 (store_fixture.h). Each test gets a fresh data directory.
 */
#include "store_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_symbols_by_build_id_uploads_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_symbol_table_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_uploads_replace_list_delete_by_prefix, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_whole_id_wins_over_longer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_services, setup, teardown),
		cmocka_unit_test_setup_teardown(test_servers, setup, teardown),
	};
	/* What every backend promises, on PostgreSQL. */
	const struct CMUnitTest on_postgresql[] = {
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
