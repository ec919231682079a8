// SPDX-License-Identifier: MIT
/*
 * The workspace on disk: DIR/workspace.db (SQLite: the profiles index, symbol tables by
 * build id, services) and DIR/profiles/ID.pb.gz (one gzip'd pprof a profile).
 *
 * A profile's blob is written to a temporary file, fsync'd, renamed into place and its
 * directory fsync'd; only then is it indexed, in one transaction. So the index never
 * lists a profile whose blob is not whole: a crash or a full disk before the commit
 * leaves at most an unlisted file, which a later save sweeps away.
 *
 * Symbol tables are small compressed blobs in the database itself (symtab__serialize):
 * they are read once per profile shown and replaced by build id, which SQLite does
 * atomically for free. Reads outnumber writes; several slideops processes may share a
 * workspace, hence WAL and a busy timeout.
 */
#include "store/store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile/pprof.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"
#include "util/file.h"
#include "util/clock.h"

/* Bump with a migration in store__migrate whenever the schema changes. */
#define SCHEMA_VERSION 2
#define BUSY_TIMEOUT_MS 10000
/* A temporary blob older than this was left by a crash, not by a save in progress. */
#define STALE_TMP_SECONDS 3600
#define TMP_PREFIX FILE_TMP_MARK
#define BLOB_SUFFIX ".pb.gz"

struct store {
	char *dir;
	char *profiles_dir;
	sqlite3 *db;
};

/*
 * symbols.source holds enum symbol_source (0 upload, 1 symtab, 2 dynsym): the lowest
 * is the best table for a build, so "ORDER BY source LIMIT 1" picks it.
 * Times are Unix epoch nanoseconds.
 */
static const char schema_v1[] =
	"CREATE TABLE profiles ("
	"  id TEXT PRIMARY KEY,"
	"  question TEXT NOT NULL,"
	"  server TEXT NOT NULL,"
	"  started_at_ns INTEGER NOT NULL,"
	"  duration_ns INTEGER NOT NULL,"
	"  answer TEXT NOT NULL DEFAULT '',"
	"  blob TEXT NOT NULL,"
	"  saved_at_ns INTEGER NOT NULL);"
	"CREATE INDEX profiles_by_start ON profiles (started_at_ns);"
	"CREATE TABLE symbols ("
	"  build_id TEXT NOT NULL,"
	"  source INTEGER NOT NULL,"
	"  file_name TEXT NOT NULL DEFAULT '',"
	"  functions INTEGER NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (build_id, source));"
	"CREATE TABLE services ("
	"  name TEXT PRIMARY KEY,"
	"  match TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  added_at_ns INTEGER NOT NULL);";

/* v2: the servers of the workspace. The machine the workspace runs on is one of them
 * ("this server"); agents on other machines add theirs. */
static const char schema_v2[] =
	"CREATE TABLE servers ("
	"  id TEXT PRIMARY KEY,"
	"  hostname TEXT NOT NULL,"
	"  this_server INTEGER NOT NULL DEFAULT 0,"
	"  added_at_ns INTEGER NOT NULL);";

static const char *const match_names[] = {
	[SERVICE_BY_UNIT] = "unit",
	[SERVICE_BY_CONTAINER] = "container",
	[SERVICE_BY_EXE] = "exe",
};

/* An SQLite result as -errno. */
static int sql_err(sqlite3 *db, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CONSTRAINT:
		return -EEXIST;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EBADMSG;
	case SQLITE_TOOBIG:
		return -EFBIG;
	default:
		sys = db ? sqlite3_system_errno(db) : 0;
		return sys > 0 ? -sys : -EIO;
	}
}

static int exec(struct store *s, const char *sql)
{
	return sql_err(s->db, sqlite3_exec(s->db, sql, NULL, NULL, NULL));
}

static int prepare(struct store *s, const char *sql, sqlite3_stmt **st)
{
	return sql_err(s->db, sqlite3_prepare_v2(s->db, sql, -1, st, NULL));
}

/* Runs a prepared statement that returns no rows, then finalizes it. */
static int run(struct store *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_err(s->db, rc);
}

static char *xstrdup(const unsigned char *s)
{
	return strdup(s ? (const char *)s : "");
}

/*
 * Reads every row of sql into a new element of an array of elem_size bytes. row fills
 * the (zeroed) element and returns 1 to keep it, 0 to pass over a row this version
 * cannot read (before allocating anything), or -errno. On an error free_rows gets
 * what was read, and *out stays NULL.
 */
static int select_rows(struct store *s, const char *sql, size_t elem_size,
		       int (*row)(sqlite3_stmt *st, void *elem),
		       void (*free_rows)(void *rows, size_t n), void **out, size_t *n)
{
	char *rows = NULL, *grown;
	size_t count = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, err;

	*out = NULL;
	*n = 0;
	err = prepare(s, sql, &st);
	if (err)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(rows, elem_size * cap);
			if (!grown) {
				err = -ENOMEM;
				goto out_free;
			}
			rows = grown;
		}
		memset(rows + count * elem_size, 0, elem_size);
		err = row(st, rows + count * elem_size);
		if (err < 0) {
			count++; /* its fields are freed with the rest */
			goto out_free;
		}
		count += (size_t)err;
	}
	if (rc != SQLITE_DONE) {
		err = sql_err(s->db, rc);
		goto out_free;
	}
	sqlite3_finalize(st);
	*out = rows;
	*n = count;
	return 0;

out_free:
	sqlite3_finalize(st);
	free_rows(rows, count);
	return err;
}

/* ---- the data directory ---- */

const char *store__default_dir(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("SLIDEOPS_DATA");
	const char *home;

	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s", env);
		return buf;
	}
	if (geteuid() == 0)
		return "/var/lib/slideops";
	env = getenv("XDG_DATA_HOME");
	/* The XDG spec says a relative XDG_DATA_HOME is to be ignored. */
	if (env && env[0] == '/') {
		snprintf(buf, sizeof(buf), "%s/slideops", env);
		return buf;
	}
	home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());

		home = pw && pw->pw_dir ? pw->pw_dir : "/";
	}
	snprintf(buf, sizeof(buf), "%s/.local/share/slideops", home);
	return buf;
}

/* mkdir -p; the last component gets mode, those above 0755. */
static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static int profile_exists(struct store *s, const char *id);

/*
 * Removes what a crash left behind: temporary blobs, and blobs renamed into place but
 * never indexed (or unlisted but not yet unlinked). Only files older than an hour, so
 * a save in progress in another process is never touched. Best effort; run by saves,
 * which are rare, so listing stays a read of the index alone.
 */
static void store__sweep(struct store *s)
{
	size_t suffix_len = strlen(BLOB_SUFFIX);
	DIR *d = opendir(s->profiles_dir);
	time_t now = time(NULL);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char id[STORE_ID_MAX];
		struct stat st;

		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || now - st.st_mtime <= STALE_TMP_SECONDS)
			continue;
		if (strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (len <= suffix_len || len - suffix_len >= STORE_ID_MAX ||
		    strcmp(de->d_name + len - suffix_len, BLOB_SUFFIX) != 0)
			continue;
		memcpy(id, de->d_name, len - suffix_len);
		id[len - suffix_len] = '\0';
		if (profile_exists(s, id) == 0)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* Creates the schema, or checks a workspace a newer slideops made. */
static int store__migrate(struct store *s)
{
	sqlite3_stmt *st;
	int version, err;

	/* Up to date, the common case: no write lock. Every request of the workspace server
	 * opens the store, and an IMMEDIATE transaction each time made them queue. */
	if (!prepare(s, "PRAGMA user_version", &st)) {
		version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
		sqlite3_finalize(st);
		if (version == SCHEMA_VERSION)
			return 0;
	}
	/* IMMEDIATE: two first runs at once must not both create the tables. */
	err = exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = prepare(s, "PRAGMA user_version", &st);
	if (err)
		goto out_rollback;
	version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (version < 0) {
		err = -EIO;
		goto out_rollback;
	}
	if (version > SCHEMA_VERSION) {
		err = -EPROTO; /* a newer slideops made this workspace */
		goto out_rollback;
	}
	if (version == 0) {
		err = exec(s, schema_v1);
		if (err)
			goto out_rollback;
	}
	if (version < 2) {
		char sql[64];

		err = exec(s, schema_v2);
		if (err)
			goto out_rollback;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", SCHEMA_VERSION);
		err = exec(s, sql);
		if (err)
			goto out_rollback;
	}
	return exec(s, "COMMIT");

out_rollback:
	exec(s, "ROLLBACK");
	return err;
}

struct store *store__open(const char *dir)
{
	struct store *s;
	char *db_path = NULL;
	int err = -ENOMEM, rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_err;
	s->dir = strdup(dir);
	if (!s->dir || asprintf(&s->profiles_dir, "%s/profiles", dir) < 0 ||
	    asprintf(&db_path, "%s/workspace.db", dir) < 0) {
		s->profiles_dir = NULL;
		db_path = NULL;
		goto out_free;
	}
	/* Profiles name processes and paths: the workspace is its owner's alone. */
	err = mkdir_p(dir, 0700);
	if (!err)
		err = mkdir_p(s->profiles_dir, 0700);
	if (err)
		goto out_free;

	rc = sqlite3_open_v2(db_path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		err = sql_err(s->db, rc);
		goto out_free;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 1);
	/* WAL: readers (show, the UI) never wait for a capture being saved. A filesystem
	 * without shared memory keeps the rollback journal, which is also safe. */
	exec(s, "PRAGMA journal_mode = WAL");
	err = exec(s, "PRAGMA synchronous = FULL");
	if (!err)
		err = store__migrate(s);
	if (err)
		goto out_free;
	free(db_path);
	return s;

out_free:
	free(db_path);
	store__close(s);
out_err:
	errno = -err;
	return NULL;
}

void store__close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close_v2(s->db);
	free(s->dir);
	free(s->profiles_dir);
	free(s);
}

const char *store__dir(const struct store *s)
{
	return s->dir;
}

/* ---- profiles ---- */

/* Writes data to a new temporary file in the profiles directory, fsync'd. */
static int write_tmp(struct store *s, const void *data, size_t len, char *tmp, size_t size)
{
	char prefix[PATH_MAX];
	int fd, err;

	if ((size_t)snprintf(prefix, sizeof(prefix), "%s/", s->profiles_dir) >= sizeof(prefix))
		return -ENAMETOOLONG;
	fd = file__create_tmp(prefix, 0600, tmp, size);
	if (fd < 0)
		return fd;
	err = file__write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Moves tmp to path unless path exists (-EEXIST). */
static int rename_noreplace(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A filesystem without RENAME_NOREPLACE: link refuses an existing name too. */
	if (link(tmp, path))
		return -errno;
	unlink(tmp);
	return 0;
}

static int profile_exists(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	int rc, err;

	err = prepare(s, "SELECT 1 FROM profiles WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : sql_err(s->db, rc);
}

/* "20261202-150405-cpu-1a2b": when it started (UTC), what it asks, and 16 random bits. */
static void make_id(const struct profile *p, int64_t started_at_ns, char id[STORE_ID_MAX])
{
	time_t t = (time_t)(started_at_ns / 1000000000LL);
	char when[32] = "00000000-000000";
	struct tm tm;
	uint16_t r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint16_t)(clock__realtime_ns() ^ getpid());
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(id, STORE_ID_MAX, "%s-%s-%04x", when, question__id(p->header.question), r);
}

static int index_profile(struct store *s, const struct profile *p, const char *answer,
			 const char *id, const char *blob, int64_t started_at_ns)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(s,
		      "INSERT INTO profiles (id, question, server, started_at_ns, duration_ns,"
		      " answer, blob, saved_at_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		      &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, question__id(p->header.question), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, profile__str(p, p->header.hostname), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, started_at_ns);
	sqlite3_bind_int64(st, 5, p->header.duration_ns > INT64_MAX ?
					  INT64_MAX : (int64_t)p->header.duration_ns);
	sqlite3_bind_text(st, 6, answer ? answer : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, blob, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, clock__realtime_ns());
	/* One statement is its own transaction: listed whole, or not at all. */
	return run(s, st);
}

int store__save_profile(struct store *s, const struct profile *p, const char *answer,
			char id[STORE_ID_MAX])
{
	char tmp[PATH_MAX], path[PATH_MAX], blob[STORE_ID_MAX + sizeof(BLOB_SUFFIX)];
	int64_t started_at_ns = p->header.started_at_ns ? p->header.started_at_ns : clock__realtime_ns();
	void *data = NULL;
	size_t len;
	int err, tries;

	id[0] = '\0';
	store__sweep(s);
	err = pprof__encode(p, false, &data, &len);
	if (err)
		return err;
	err = write_tmp(s, data, len, tmp, sizeof(tmp));
	free(data);
	if (err)
		return err;

	/* A fresh id: neither indexed nor on disk (rename refuses an existing file). */
	for (tries = 0; tries < 64; tries++) {
		make_id(p, started_at_ns, id);
		err = profile_exists(s, id);
		if (err < 0)
			goto out_unlink_tmp;
		if (err)
			continue;
		snprintf(blob, sizeof(blob), "%s" BLOB_SUFFIX, id);
		snprintf(path, sizeof(path), "%s/%s", s->profiles_dir, blob);
		err = rename_noreplace(tmp, path);
		if (err != -EEXIST)
			break;
	}
	if (tries == 64)
		err = -EEXIST;
	if (err)
		goto out_unlink_tmp;

	err = file__fsync_dir(s->profiles_dir);
	if (!err)
		err = index_profile(s, p, answer, id, blob, started_at_ns);
	if (err) {
		unlink(path);
		file__fsync_dir(s->profiles_dir);
		id[0] = '\0';
	}
	return err;

out_unlink_tmp:
	unlink(tmp);
	id[0] = '\0';
	return err;
}

int store__load_profile(struct store *s, const char *id, struct profile **out)
{
	char path[PATH_MAX];
	sqlite3_stmt *st;
	int rc, err;

	*out = NULL;
	err = prepare(s, "SELECT blob FROM profiles WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : sql_err(s->db, rc);
	}
	/* The blob's name is ours, but an edited index must not lead outside the dir. */
	if (strchr((const char *)sqlite3_column_text(st, 0), '/') ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", s->profiles_dir,
			     (const char *)sqlite3_column_text(st, 0)) >= sizeof(path)) {
		sqlite3_finalize(st);
		return -EBADMSG;
	}
	sqlite3_finalize(st);
	err = pprof__read_file(path, out);
	/* Listed but gone or unreadable as a profile: the profile is damaged, not absent. */
	if (err == -ENOENT || err == -EINVAL || err == -EFBIG)
		err = -EBADMSG;
	return err;
}

static int profile_row(sqlite3_stmt *st, void *elem)
{
	struct profile_entry *pe = elem;
	const char *id = (const char *)sqlite3_column_text(st, 0);
	int q = question__parse((const char *)sqlite3_column_text(st, 1));

	/* A question a later slideops added is not one this one can show. */
	if (q < 0 || !id || strlen(id) >= STORE_ID_MAX)
		return 0;
	strcpy(pe->id, id);
	pe->question = (enum question)q;
	pe->server = xstrdup(sqlite3_column_text(st, 2));
	pe->started_at_ns = sqlite3_column_int64(st, 3);
	pe->duration_ns = (uint64_t)sqlite3_column_int64(st, 4);
	pe->answer = xstrdup(sqlite3_column_text(st, 5));
	return pe->server && pe->answer ? 1 : -ENOMEM;
}

static void profile_rows__free(void *rows, size_t n)
{
	profile_entries__free(rows, n);
}

int store__list_profiles(struct store *s, struct profile_entry **out, size_t *n)
{
	return select_rows(s,
			   "SELECT id, question, server, started_at_ns, duration_ns, answer"
			   " FROM profiles ORDER BY started_at_ns DESC, saved_at_ns DESC, id DESC",
			   sizeof(**out), profile_row, profile_rows__free, (void **)out, n);
}

void profile_entries__free(struct profile_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++) {
		free(e[i].server);
		free(e[i].answer);
	}
	free(e);
}

int store__set_answer(struct store *s, const char *id, const char *answer)
{
	sqlite3_stmt *st;
	int err, rc;

	/* Read first: every profile shown asks, the answer rarely changes (an upload), and
	 * an UPDATE takes the write lock even when nothing changes, which made readers of a
	 * busy workspace server wait on each other. */
	err = prepare(s, "SELECT answer = ? FROM profiles WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, answer ? answer : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int(st, 0)) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? -ENOENT : sql_err(s->db, rc);
	err = prepare(s, "UPDATE profiles SET answer = ? WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, answer ? answer : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	err = run(s, st);
	if (!err && sqlite3_changes(s->db) == 0)
		err = -ENOENT;
	return err;
}

int store__delete_profile(struct store *s, const char *id)
{
	char path[PATH_MAX];
	char *blob = NULL;
	sqlite3_stmt *st;
	int rc, err;

	err = exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = prepare(s, "SELECT blob FROM profiles WHERE id = ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		blob = xstrdup(sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		err = rc == SQLITE_DONE ? -ENOENT : sql_err(s->db, rc);
		goto out_rollback;
	}
	err = -ENOMEM;
	if (!blob)
		goto out_rollback;
	err = prepare(s, "DELETE FROM profiles WHERE id = ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	err = run(s, st);
	if (!err)
		err = exec(s, "COMMIT");
	if (err)
		goto out_rollback;
	/* Unlisted first, then removed: a crash in between leaves only an unlisted file. */
	if (!strchr(blob, '/') &&
	    (size_t)snprintf(path, sizeof(path), "%s/%s", s->profiles_dir, blob) < sizeof(path))
		unlink(path);
	free(blob);
	return 0;

out_rollback:
	exec(s, "ROLLBACK");
	free(blob);
	return err;
}

/* ---- symbol tables ---- */

/* Lowercase copy of a build id; -EINVAL when empty or too long. */
static int build_id__norm(const char *in, char out[BUILD_ID_HEX_MAX + 1])
{
	size_t len = in ? strlen(in) : 0;

	if (len == 0 || len > BUILD_ID_HEX_MAX)
		return -EINVAL;
	for (size_t i = 0; i <= len; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	return 0;
}

int store__put_symbols(struct store *s, const char *build_id, enum symbol_source src,
		       const char *file_name, const struct symtab *tab)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	sqlite3_stmt *st;
	void *blob = NULL;
	size_t len;
	int err;

	if ((unsigned)src > SYMBOLS_DYNSYM || !tab)
		return -EINVAL;
	err = build_id__norm(build_id, bid);
	if (err)
		return err;
	err = symtab__serialize(tab, &blob, &len);
	if (err)
		return err;
	if (len > INT_MAX) {
		free(blob);
		return -EFBIG;
	}
	err = prepare(s,
		      "INSERT OR REPLACE INTO symbols (build_id, source, file_name, functions,"
		      " stored_at_ns, data) VALUES (?, ?, ?, ?, ?, ?)",
		      &st);
	if (err) {
		free(blob);
		return err;
	}
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)src);
	sqlite3_bind_text(st, 3, file_name ? file_name : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)tab->nsyms);
	sqlite3_bind_int64(st, 5, clock__realtime_ns());
	sqlite3_bind_blob(st, 6, blob, (int)len, free);
	return run(s, st);
}

int store__has_symbols(struct store *s, const char *build_id, enum symbol_source src)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	sqlite3_stmt *st;
	int rc, err;

	if (build_id__norm(build_id, bid))
		return 0;
	err = prepare(s, "SELECT 1 FROM symbols WHERE build_id = ? AND source = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)src);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : sql_err(s->db, rc);
}

int store__get_symbols(struct store *s, const char *build_id, struct symtab **out,
		       enum symbol_source *src)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	sqlite3_stmt *st;
	int rc, err;

	*out = NULL;
	if (build_id__norm(build_id, bid))
		return -ENOENT;
	err = prepare(s,
		      "SELECT source, data FROM symbols WHERE build_id = ?"
		      " ORDER BY source LIMIT 1",
		      &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : sql_err(s->db, rc);
	}
	if (src)
		*src = (enum symbol_source)sqlite3_column_int(st, 0);
	errno = 0;
	*out = symtab__deserialize(sqlite3_column_blob(st, 1),
				   (size_t)sqlite3_column_bytes(st, 1));
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
	sqlite3_finalize(st);
	return err;
}

int store__symbols_get(void *store, const char *build_id, struct symtab **out)
{
	return store__get_symbols(store, build_id, out, NULL);
}

int store__symbolize(struct store *s, struct profile *p)
{
	struct symbol_lookup lookup = { .get = store__symbols_get, .ctx = s };

	return profile__symbolize(p, &lookup);
}

static int upload_row(sqlite3_stmt *st, void *elem)
{
	struct upload_entry *ue = elem;
	const char *bid = (const char *)sqlite3_column_text(st, 2);

	if (!bid || strlen(bid) > BUILD_ID_HEX_MAX)
		return 0;
	strcpy(ue->build_id, bid);
	ue->functions = (uint64_t)sqlite3_column_int64(st, 1);
	ue->uploaded_at_ns = sqlite3_column_int64(st, 3);
	ue->file_name = xstrdup(sqlite3_column_text(st, 0));
	return ue->file_name ? 1 : -ENOMEM;
}

static void upload_rows__free(void *rows, size_t n)
{
	upload_entries__free(rows, n);
}

int store__list_uploads(struct store *s, struct upload_entry **out, size_t *n)
{
	return select_rows(s,
			   "SELECT file_name, functions, build_id, stored_at_ns FROM symbols"
			   " WHERE source = 0 ORDER BY stored_at_ns DESC, build_id",
			   sizeof(**out), upload_row, upload_rows__free, (void **)out, n);
}

void upload_entries__free(struct upload_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++)
		free(e[i].file_name);
	free(e);
}

int store__delete_upload(struct store *s, const char *id, char deleted[BUILD_ID_HEX_MAX + 1])
{
	char prefix[BUILD_ID_HEX_MAX + 1], found[BUILD_ID_HEX_MAX + 1] = "";
	sqlite3_stmt *st;
	int rc, err, matches = 0;

	deleted[0] = '\0';
	if (build_id__norm(id, prefix))
		return -ENOENT;
	err = exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	/* The whole id wins even when it also starts a longer one (Go build ids vary). */
	err = prepare(s,
		      "SELECT build_id FROM symbols WHERE source = 0 AND"
		      " substr(build_id, 1, length(?1)) = ?1"
		      " ORDER BY build_id = ?1 DESC LIMIT 2",
		      &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *bid = (const char *)sqlite3_column_text(st, 0);

		if (matches == 0 && bid && strlen(bid) <= BUILD_ID_HEX_MAX)
			strcpy(found, bid);
		matches++;
		if (strcmp(found, prefix) == 0)
			break;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		err = sql_err(s->db, rc);
		goto out_rollback;
	}
	if (matches == 0 || !found[0]) {
		err = -ENOENT;
		goto out_rollback;
	}
	if (matches > 1 && strcmp(found, prefix) != 0) {
		err = -EEXIST;
		goto out_rollback;
	}
	err = prepare(s, "DELETE FROM symbols WHERE source = 0 AND build_id = ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, found, -1, SQLITE_STATIC);
	err = run(s, st);
	if (!err)
		err = exec(s, "COMMIT");
	if (err)
		goto out_rollback;
	strcpy(deleted, found);
	return 0;

out_rollback:
	exec(s, "ROLLBACK");
	return err;
}

/* ---- services ---- */

int store__add_service(struct store *s, const struct service *svc)
{
	sqlite3_stmt *st;
	int err;

	if (!svc->name || !*svc->name || !svc->value || !*svc->value ||
	    (unsigned)svc->match > SERVICE_BY_EXE)
		return -EINVAL;
	err = prepare(s,
		      "INSERT INTO services (name, match, value, added_at_ns) VALUES (?, ?, ?, ?)",
		      &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, svc->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, match_names[svc->match], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, svc->value, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, clock__realtime_ns());
	return run(s, st); /* the name is the key: -EEXIST when taken */
}

int store__remove_service(struct store *s, const char *name)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(s, "DELETE FROM services WHERE name = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	err = run(s, st);
	if (!err && sqlite3_changes(s->db) == 0)
		err = -ENOENT;
	return err;
}

static int service_row(sqlite3_stmt *st, void *elem)
{
	struct service *svc = elem;
	const char *match = (const char *)sqlite3_column_text(st, 1);
	int m = -1;

	for (int i = 0; match && i <= SERVICE_BY_EXE; i++)
		if (strcmp(match, match_names[i]) == 0)
			m = i;
	if (m < 0)
		return 0; /* a kind of match a later slideops added */
	svc->match = (enum service_match)m;
	svc->name = xstrdup(sqlite3_column_text(st, 0));
	svc->value = xstrdup(sqlite3_column_text(st, 2));
	return svc->name && svc->value ? 1 : -ENOMEM;
}

static void service_rows__free(void *rows, size_t n)
{
	services__free(rows, n);
}

int store__list_services(struct store *s, struct service **out, size_t *n)
{
	return select_rows(s, "SELECT name, match, value FROM services ORDER BY name",
			   sizeof(**out), service_row, service_rows__free, (void **)out, n);
}

/* ---- servers ---- */

int store__put_server(struct store *s, const struct server_entry *srv)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(s, "INSERT INTO servers (id, hostname, this_server, added_at_ns) "
			 "VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
			 "hostname = excluded.hostname, this_server = excluded.this_server",
		      &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, srv->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, srv->hostname, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, srv->this_server);
	sqlite3_bind_int64(st, 4, clock__realtime_ns());
	return run(s, st);
}

static int server_row(sqlite3_stmt *st, void *row)
{
	struct server_entry *e = row;
	const char *id = (const char *)sqlite3_column_text(st, 0);

	snprintf(e->id, sizeof(e->id), "%s", id ? id : "");
	e->hostname = strdup((const char *)sqlite3_column_text(st, 1) ?: "");
	e->this_server = sqlite3_column_int(st, 2) != 0;
	e->added_at_ns = sqlite3_column_int64(st, 3);
	return e->hostname ? 1 : -ENOMEM;
}

void server_entries__free(struct server_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++)
		free(e[i].hostname);
	free(e);
}

static void server_rows__free(void *rows, size_t n)
{
	server_entries__free(rows, n);
}

int store__list_servers(struct store *s, struct server_entry **out, size_t *n)
{
	return select_rows(s, "SELECT id, hostname, this_server, added_at_ns FROM servers "
			      "ORDER BY this_server DESC, hostname",
			   sizeof(**out), server_row, server_rows__free, (void **)out, n);
}
