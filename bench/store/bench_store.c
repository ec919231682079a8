// SPDX-License-Identifier: MIT
/*
 * The workspace store on one backend, through the store's own interface (what every
 * workspace process calls), for bench/store/run.sh to run on SQLite and on PostgreSQL
 * side by side:
 *
 *   bench_store TEMPLATE_DIR TEMPLATE_ID (DIR | postgresql://...) NPROFILES NSERVERS NSAVES
 *
 * TEMPLATE_DIR/TEMPLATE_ID: a real capture (a SQLite workspace) whose profile is saved
 * NSAVES times (saves per second), then copied in bulk to NPROFILES profiles from
 * NSERVERS servers (not timed: the size of a workspace, not a workload). Then timed:
 * pages of the profile list as the server asks them (first page, by server, by question,
 * by cursor), each on its own open as a request; one profile's flame graph (load, name,
 * analyse, write); an upload of debug symbols for a build all NPROFILES profiles hold,
 * and the first profile shown after it. Prints one line of key=value.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/flamegraph.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symtab.h"
#include "views/views.h"

#define PAGE 100

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_store: %s: %s (%s)\n", what, strerror(err < 0 ? -err : err),
		store__problem(NULL));
	exit(1);
}

static struct store *open_ws(const char *where, bool again)
{
	struct store *s = again ? store__open_again(where) : store__open(where);

	if (!s)
		die("open", errno);
	return s;
}

/* NPROFILES rows like template id, from NSERVERS servers, a second apart, each its own
 * blob (PostgreSQL: a copy in the database; SQLite: a hard link to the saved file). */
static void bulk_sqlite(const char *dir, const char *id, long n, long servers)
{
	char path[4096], sql[1024];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/workspace.db", dir);
	if (sqlite3_open(path, &db))
		die("sqlite3_open", EIO);
	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %ld)"
		 " INSERT INTO profiles (id, question, server, started_at_ns, duration_ns, answer,"
		 " blob, saved_at_ns) SELECT id || '-' || i, CASE WHEN i %% 5 = 0 THEN 'wall'"
		 " ELSE question END, 'server-' || (i %% %ld), started_at_ns - i * 1000000000,"
		 " duration_ns, answer, id || '-' || i || '.pb.gz', saved_at_ns - i"
		 " FROM profiles, n WHERE profiles.id = '%s'",
		 n, servers, id);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(sqlite3_errmsg(db), EIO);
	sqlite3_close(db);
	snprintf(path, sizeof(path), "%s/profiles/%s.pb.gz", dir, id);
	for (long i = 1; i <= n; i++) {
		char to[4096], cmd[8300];

		snprintf(to, sizeof(to), "%s/profiles/%s-%ld.pb.gz", dir, id, i);
		if (link(path, to) == 0 || errno == EEXIST)
			continue;
		/* A file takes 65,000 links: the next ones link to a copy. */
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, to);
		if (errno != EMLINK || system(cmd))
			die("link", errno);
		snprintf(path, sizeof(path), "%s", to);
	}
}

static void bulk_pg(const char *url, const char *id, long n, long servers)
{
	char sql[2048];
	PGconn *c = PQconnectdb(url);
	PGresult *r;

	if (PQstatus(c) != CONNECTION_OK)
		die(PQerrorMessage(c), EIO);
	snprintf(sql, sizeof(sql),
		 "BEGIN;"
		 "INSERT INTO profiles (id, question, server, started_at_ns, duration_ns, answer,"
		 " saved_at_ns, bytes) SELECT id || '-' || i, CASE WHEN i %% 5 = 0 THEN 'wall'"
		 " ELSE question END, convert_to('server-' || (i %% %ld), 'UTF8'),"
		 " started_at_ns - i::bigint * 1000000000, duration_ns, answer, saved_at_ns - i, bytes"
		 " FROM profiles, generate_series(1, %ld) i WHERE profiles.id = '%s';"
		 "INSERT INTO profile_blobs (id, data) SELECT b.id || '-' || i, b.data"
		 " FROM profile_blobs b, generate_series(1, %ld) i WHERE b.id = '%s';"
		 "COMMIT; ANALYZE;",
		 servers, n, id, n, id);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die(PQerrorMessage(c), EIO);
	PQclear(r);
	PQfinish(c);
}

/* The workspace's size on disk, in bytes. */
static long long size_of(const char *where, const char *dir)
{
	char cmd[4096];
	long long bytes = -1;
	FILE *f;

	if (store__url()) {
		PGconn *c = PQconnectdb(where);
		PGresult *r = PQexec(c, "SELECT pg_database_size(current_database())");

		if (PQresultStatus(r) == PGRES_TUPLES_OK)
			bytes = atoll(PQgetvalue(r, 0, 0));
		PQclear(r);
		PQfinish(c);
		return bytes;
	}
	/* Hard links counted as the files they stand for (-l). */
	snprintf(cmd, sizeof(cmd), "du -sbl '%s' | cut -f1", dir);
	f = popen(cmd, "r");
	if (f && fscanf(f, "%lld", &bytes) != 1)
		bytes = -1;
	if (f)
		pclose(f);
	return bytes;
}

static double list_once(const char *dir, struct profile_query *q, char *cursor)
{
	struct profile_entry *e;
	uint64_t total;
	size_t n;
	double t0 = now_ms(), t;
	struct store *s = open_ws(dir, true);
	int err = store__query_profiles(s, q, &e, &n, &total);

	if (err)
		die("query", err);
	if (cursor && n)
		store__cursor(&e[n - 1], cursor);
	profile_entries__free(e, n);
	store__close(s);
	t = now_ms() - t0;
	return t;
}

int main(int argc, char **argv)
{
	const char *tdir, *tid, *where, *dir;
	long nprofiles, nservers, nsaves;
	struct profile *tmpl = NULL;
	struct store *s;
	char id[STORE_ID_MAX], cursor[STORE_CURSOR_MAX];
	double t0, save_s, *lat, *first, fg[20], upload_ms, named_ms;
	size_t nl = 0, nf = 0;
	struct rusage ru;
	int err;

	if (argc != 7) {
		fprintf(stderr, "usage: bench_store TEMPLATE_DIR TEMPLATE_ID (DIR | URL) "
				"NPROFILES NSERVERS NSAVES\n");
		return 2;
	}
	tdir = argv[1];
	tid = argv[2];
	where = argv[3];
	nprofiles = atol(argv[4]);
	nservers = atol(argv[5]);
	nsaves = atol(argv[6]);
	s = store__open_read(tdir);
	if (!s || store__load_profile(s, tid, &tmpl))
		die("template", errno);
	store__close(s);
	if (strncmp(where, "postgres", 8) == 0) {
		char cache[] = "/tmp/slideops-bench-cache.XXXXXX";

		if (store__set_url(where) || !mkdtemp(cache))
			die("url", EINVAL);
		dir = strdup(cache);
	} else {
		dir = where;
	}

	/* ---- saves per second: a real capture, saved whole each time ---- */
	s = open_ws(dir, false);
	t0 = now_ms();
	for (long i = 0; i < nsaves; i++)
		if ((err = store__save_profile(s, tmpl, "an answer of a usual length, naming a"
						       " group and its function", id)))
			die("save", err);
	save_s = (now_ms() - t0) / 1e3;
	store__close(s);

	/* ---- a workspace of nprofiles (not timed) ---- */
	if (store__url())
		bulk_pg(where, id, nprofiles - nsaves, nservers);
	else
		bulk_sqlite(dir, id, nprofiles - nsaves, nservers);

	/* ---- the profile list, as requests ask it ---- */
	lat = calloc(2000, sizeof(*lat));
	first = calloc(500, sizeof(*first));
	srand(7);
	for (int i = 0; i < 500; i++) {
		struct profile_query q = { .question = -1, .limit = PAGE };
		char server[32];

		first[nf++] = list_once(dir, &q, NULL);
		lat[nl++] = first[nf - 1];
		snprintf(server, sizeof(server), "server-%ld", (long)rand() % nservers);
		q.server = server;
		lat[nl++] = list_once(dir, &q, NULL);
		q = (struct profile_query){ .question = QUESTION_WALL, .limit = PAGE };
		lat[nl++] = list_once(dir, &q, NULL);
		/* Page 50 of the whole list, by cursor from page 49. */
		if (i == 0) {
			q = (struct profile_query){ .question = -1, .limit = PAGE };
			for (int p = 0; p < 49; p++) {
				list_once(dir, &q, cursor);
				q.after = cursor;
			}
		}
		q = (struct profile_query){ .question = -1, .limit = PAGE, .after = cursor };
		lat[nl++] = list_once(dir, &q, NULL);
	}

	/* ---- one profile's flame graph: load, name, analyse, write ---- */
	for (int i = 0; i < 20; i++) {
		struct view_error e = { 0 };
		struct profile *p;
		struct analysis *a;
		FILE *out = fopen("/dev/null", "w");

		t0 = now_ms();
		s = open_ws(dir, true);
		if (views__load_profile(s, id, &p, &a, &e))
			die("load", EIO);
		flamegraph__write_data(p, out, FLAMEGRAPH_COLOUR_LANGUAGE);
		fg[i] = now_ms() - t0;
		analysis__free(a);
		profile__free(p);
		store__close(s);
		fclose(out);
	}

	/* ---- an upload naming every profile: names for the template's main binary ---- */
	{
		struct symtab *tab = symtab__new();
		const char *bid = NULL;
		uint32_t best = 0;
		struct view_error e = { 0 };
		struct profile *p;
		struct analysis *a;

		for (uint32_t m = 0; m < tmpl->nmappings; m++)
			if (tmpl->mappings[m].build_id && m >= best) {
				bid = profile__str(tmpl, tmpl->mappings[m].build_id);
				best = m;
			}
		for (int f = 0; f < 20000; f++) {
			char name[64];
			int len = snprintf(name, sizeof(name), "uploaded_function_%d", f);

			symtab__add(tab, 0x1000 + (uint64_t)f * 0x40, 0x40, name, (size_t)len);
		}
		symtab__finish(tab);
		t0 = now_ms();
		s = open_ws(dir, true);
		if (!bid || (err = store__put_symbols(s, bid, SYMBOLS_UPLOAD, "bench.debug", tab)))
			die("upload", bid ? err : ENOENT);
		store__close(s);
		upload_ms = now_ms() - t0;
		symtab__free(tab);
		/* The oldest of the bulk, shown now: named by the upload at read time. */
		t0 = now_ms();
		s = open_ws(dir, true);
		snprintf(cursor, sizeof(cursor), "%s-%ld", id, nprofiles - nsaves);
		if (views__load_profile(s, cursor, &p, &a, &e))
			die("load after upload", EIO);
		named_ms = now_ms() - t0;
		analysis__free(a);
		profile__free(p);
		store__close(s);
	}

	getrusage(RUSAGE_SELF, &ru);
	printf("saves_per_s=%.1f list_first_p50_ms=%.2f list_first_p99_ms=%.2f list_p99_ms=%.2f"
	       " flamegraph_p50_ms=%.1f upload_ms=%.1f shown_after_upload_ms=%.1f"
	       " bytes=%lld rss_kb=%ld\n",
	       (double)nsaves / save_s, pct(first, nf, 0.5), pct(first, nf, 0.99),
	       pct(lat, nl, 0.99), pct(fg, 20, 0.5), upload_ms, named_ms, size_of(where, dir),
	       ru.ru_maxrss);
	profile__free(tmpl);
	return 0;
}
