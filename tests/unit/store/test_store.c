// SPDX-License-Identifier: MIT
/*
 * The workspace store's profiles: saved, listed newest first (a page at a time, by
 * cursor), loaded whole and checked as each is read; ids within one second; what a save
 * left half made swept; pruned by age and by the retention setting; hostile strings
 * kept as written; a previous schema upgraded.
 *
 * What the store promises whatever keeps it runs twice: on SQLite in the data directory,
 * then on a real PostgreSQL 15 (store_fixture.h). Each test gets a fresh data directory.
 */
#include "store_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_profiles_save_list_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiles_a_page_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_again_checks_each_profile_as_it_is_read,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_second_distinct_ids_and_shared_workspace,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_sweeps_only_what_the_index_began, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_profiles_by_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_previous_schema_is_upgraded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_older_than, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retention_setting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_strings_kept_as_written, setup,
						teardown),
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
	};
	/* PostgreSQL first: tests/run.sh reads the last group's count, and the SQLite group
	 * always runs, where PostgreSQL may be skipped. */
	int failed = cmocka_run_group_tests_name("postgresql", on_postgresql, group_setup_pg,
						 group_teardown_pg);

	return failed + cmocka_run_group_tests_name("sqlite", tests, NULL, NULL);
}
