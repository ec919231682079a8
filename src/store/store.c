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
#include "symbols/lines.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"
#include "util/file.h"
#include "util/clock.h"

/* Bump with a migration in store__migrate whenever the schema changes. */
#define SCHEMA_VERSION 3
#define BUSY_TIMEOUT_MS 10000
/* A temporary blob older than this was left by a crash, not by a save in progress. */
#define STALE_TMP_SECONDS 3600
#define TMP_PREFIX FILE_TMP_MARK
#define BLOB_SUFFIX ".pb.gz"

struct store {
	char *dir;
	char *profiles_dir;
	int dir_fd;        /* DIR, opened once, O_NOFOLLOW, checked */
	int profiles_fd;   /* DIR/profiles; -1 when there is none yet (reading) */
	bool writable;
	bool create;
	bool again;        /* store__open_again: profile files checked as they are read */
	sqlite3 *db;       /* NULL: no workspace there yet (reading) */
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

/* v3: the servers of the workspace. The machine the workspace runs on is one of them
 * ("this server"); agents on other machines add theirs. */
static const char schema_v3[] =
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

/* Runs a prepared question, then finalizes it: 1 when it has a row, 0 when not, -errno. */
static int any_row(struct store *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
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
static int fetch_rows(struct store *s, sqlite3_stmt *st, size_t elem_size,
		      int (*row)(sqlite3_stmt *st, void *elem),
		      void (*free_rows)(void *rows, size_t n), void **out, size_t *n);

static int select_rows(struct store *s, const char *sql, size_t elem_size,
		       int (*row)(sqlite3_stmt *st, void *elem),
		       void (*free_rows)(void *rows, size_t n), void **out, size_t *n)
{
	sqlite3_stmt *st;
	int err;

	*out = NULL;
	*n = 0;
	if (!s->db)
		return 0; /* no workspace there yet: nothing in it */
	err = prepare(s, sql, &st);
	if (err)
		return err;
	return fetch_rows(s, st, elem_size, row, free_rows, out, n);
}

/* select_rows of a statement prepared (and bound) by the caller; finalizes it. */
static int fetch_rows(struct store *s, sqlite3_stmt *st, size_t elem_size,
		      int (*row)(sqlite3_stmt *st, void *elem),
		      void (*free_rows)(void *rows, size_t n), void **out, size_t *n)
{
	char *rows = NULL, *grown;
	size_t count = 0, cap = 0;
	int rc, err = 0;

	*out = NULL;
	*n = 0;
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

	if (len == 0)
		return -ENOENT;
	if (len >= sizeof(buf))
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

static int store__migrate(struct store *s, bool write, size_t blobs);

/* Per thread: the server opens workspaces on several threads at once. */
static _Thread_local char problem_path[PATH_MAX];
static _Thread_local uid_t problem_uid;

const char *store__problem(uid_t *owner)
{
	if (owner)
		*owner = problem_uid;
	return problem_path;
}

static int problem(int err, const struct store *s, const char *name, uid_t uid)
{
	int n = snprintf(problem_path, sizeof(problem_path), "%s%s%s", s->dir, name ? "/" : "",
			 name ? name : "");

	if (n < 0 || (size_t)n >= sizeof(problem_path))
		problem_path[sizeof(problem_path) - 1] = '\0';
	problem_uid = uid;
	return err;
}

/*
 * Everything the workspace keeps must be ours alone: a file another user owns or may
 * write could be a link planted to make root write through it, or an index edited to
 * make us delete or read what it names. Files readable by others are made ours alone
 * (profiles name processes and functions): best effort, a read-only workspace keeps its
 * modes.
 */
/* The rule of check_entry for a file already stat'd: ours, of its type, and written by
 * us alone. path: relative to the workspace, for the problem it names. */
static int entry__check_stat(struct store *s, const struct stat *st, const char *path,
			     bool want_dir, bool must_be_ours_type)
{
	if (st->st_uid != geteuid())
		return problem(-EPERM, s, path, st->st_uid);
	if (must_be_ours_type && (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)))
		return problem(-ELOOP, s, path, st->st_uid);
	if (!S_ISLNK(st->st_mode) && (st->st_mode & 022))
		return problem(-EACCES, s, path, st->st_uid);
	return 0;
}

static int check_entry(struct store *s, int dirfd, const char *rel, const char *name,
		       bool want_dir, bool must_be_ours_type)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	snprintf(path, sizeof(path), "%s%s%s", rel ? rel : "", rel ? "/" : "", name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	err = entry__check_stat(s, &st, path, want_dir, must_be_ours_type);
	if (err)
		return err;
	if ((S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) && (st.st_mode & 077))
		fchmodat(dirfd, name, S_ISDIR(st.st_mode) ? 0700 : 0600, 0);
	return 0;
}

static bool is_blob_name(const char *name)
{
	size_t len = strlen(name), slen = strlen(BLOB_SUFFIX);

	return len > slen && strcmp(name + len - slen, BLOB_SUFFIX) == 0;
}

/* Checks every entry of a directory of the workspace; counts the profile blobs. */
static int check_dir(struct store *s, int fd, const char *rel, size_t *blobs)
{
	struct dirent *de;
	int dup_fd = dup(fd), err = 0;
	DIR *d;

	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -errno;
	}
	while (!err && (de = readdir(d))) {
		bool ours = strncmp(de->d_name, "workspace.db", 12) == 0 ||
			    strcmp(de->d_name, "profiles") == 0;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (blobs && is_blob_name(de->d_name))
			(*blobs)++;
		err = check_entry(s, fd, rel, de->d_name, strcmp(de->d_name, "profiles") == 0,
				  rel ? true : ours);
	}
	closedir(d);
	return err;
}

static int check_dir_itself(struct store *s, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid())
		return problem(-EPERM, s, NULL, st.st_uid);
	if (st.st_mode & 022)
		return problem(-EACCES, s, NULL, st.st_uid);
	if (st.st_mode & 077)
		fchmod(fd, 0700);
	return 0;
}

static int open_dir_nofollow(int at, const char *path)
{
	int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Opens (or, writing, creates) DIR and DIR/profiles, checked. */
static int store__open_dirs(struct store *s, bool create, size_t *blobs)
{
	int err;

	s->dir_fd = open_dir_nofollow(AT_FDCWD, s->dir);
	if (s->dir_fd == -ENOENT && create) {
		/* Profiles name processes and paths: the workspace is its owner's alone. */
		err = mkdir_p(s->dir, 0700);
		if (err)
			return err;
		s->dir_fd = open_dir_nofollow(AT_FDCWD, s->dir);
	}
	if (s->dir_fd == -ENOTDIR) {
		struct stat st;

		/* O_NOFOLLOW|O_DIRECTORY says ENOTDIR for a link to a directory. */
		if (lstat(s->dir, &st) == 0 && S_ISLNK(st.st_mode))
			s->dir_fd = -ELOOP;
	}
	if (s->dir_fd == -ELOOP)
		return problem(-ELOOP, s, NULL, 0);
	if (s->dir_fd < 0)
		return s->dir_fd;
	err = check_dir_itself(s, s->dir_fd);
	if (!err)
		err = check_dir(s, s->dir_fd, NULL, NULL);
	if (err)
		return err;
	s->profiles_fd = open_dir_nofollow(s->dir_fd, "profiles");
	if (s->profiles_fd == -ENOENT && create) {
		if (mkdirat(s->dir_fd, "profiles", 0700) && errno != EEXIST)
			return -errno;
		s->profiles_fd = open_dir_nofollow(s->dir_fd, "profiles");
	}
	if (s->profiles_fd == -ENOENT)
		return 0;
	if (s->profiles_fd < 0)
		return s->profiles_fd == -ELOOP || s->profiles_fd == -ENOTDIR ?
			       problem(-ELOOP, s, "profiles", 0) :
			       s->profiles_fd;
	if (s->again) {
		/* Opened and checked whole before: 10k profiles are 10k fstat calls a request,
		 * so each is checked as it is read instead. Profiles are assumed there: an
		 * index gone or emptied since is refused, never made anew over them. */
		*blobs = 1;
		return 0;
	}
	return check_dir(s, s->profiles_fd, "profiles", blobs);
}

/* The SQLite name of a file in the workspace: through our checked directory fd, so
 * nothing swapped in under the directory's path is opened. */
static void db_path(const struct store *s, char *buf, size_t size, bool uri)
{
	if (uri)
		snprintf(buf, size, "file:/proc/self/fd/%d/workspace.db?immutable=1", s->dir_fd);
	else
		snprintf(buf, size, "/proc/self/fd/%d/workspace.db", s->dir_fd);
}

static int store__open_db(struct store *s, bool write, size_t blobs)
{
	char path[PATH_MAX];
	struct stat st;
	int rc, err, flags;

	if (fstatat(s->dir_fd, "workspace.db", &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return -errno;
		/* Blobs without an index: recreating it would make the sweep take them. */
		if (blobs)
			return problem(-EUCLEAN, s, "workspace.db", 0);
		if (!write)
			return 0; /* no workspace yet: an empty one, created by nothing */
		if (!s->create)
			return problem(-ENOENT, s, "workspace.db", 0);
		rc = openat(s->dir_fd, "workspace.db",
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (rc < 0 && errno != EEXIST)
			return -errno;
		if (rc >= 0)
			close(rc);
	} else if (st.st_size == 0 && blobs) {
		return problem(-EUCLEAN, s, "workspace.db", 0);
	}

	/* No SQLITE_OPEN_NOFOLLOW: the path is a link to our directory by design, and the file
	 * itself was checked above. */
	flags = write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	db_path(s, path, sizeof(path), false);
	rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc == SQLITE_OK && !write &&
	    sqlite3_exec(s->db, "PRAGMA user_version", NULL, NULL, NULL) != SQLITE_OK) {
		/* A read-only directory holding a WAL index: read it as the file stands. */
		sqlite3_close_v2(s->db);
		s->db = NULL;
		db_path(s, path, sizeof(path), true);
		rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_URI, NULL);
	}
	if (rc != SQLITE_OK)
		return sql_err(s->db, rc);
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 1);
	if (!write)
		return 0;
	/* A rollback journal, not WAL: reading then needs no shared-memory file, so a
	 * read-only or full workspace can still be listed and shown. */
	exec(s, "PRAGMA journal_mode = DELETE");
	err = exec(s, "PRAGMA synchronous = FULL");
	return err;
}

static struct store *store__open_mode(const char *dir, bool write, bool create, bool again)
{
	struct store *s;
	size_t blobs = 0;
	int err = -ENOMEM;

	problem_path[0] = '\0';
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_err;
	s->dir_fd = s->profiles_fd = -1;
	s->writable = write;
	s->create = create;
	s->again = again;
	s->dir = strdup(dir);
	if (!s->dir || asprintf(&s->profiles_dir, "%s/profiles", dir) < 0) {
		s->profiles_dir = NULL;
		goto out_free;
	}
	err = *dir ? 0 : -ENOENT;
	if (!err)
		err = store__open_dirs(s, create, &blobs);
	if (err == -ENOENT && !write) {
		err = 0; /* nothing there yet: an empty workspace to read */
		goto out_ok;
	}
	if (!err)
		err = store__open_db(s, write, blobs);
	if (!err && s->db)
		err = store__migrate(s, write, blobs);
	/* A damaged index beside profiles: the same refusal as a missing one. */
	if (err == -EBADMSG && blobs)
		err = problem(-EUCLEAN, s, "workspace.db", 0);
	if (err)
		goto out_free;
out_ok:
	return s;

out_free:
	store__close(s);
out_err:
	errno = -err;
	return NULL;
}

struct store *store__open(const char *dir)
{
	return store__open_mode(dir, true, true, false);
}

struct store *store__open_read(const char *dir)
{
	return store__open_mode(dir, false, false, false);
}

struct store *store__open_existing(const char *dir)
{
	return store__open_mode(dir, true, false, false);
}

struct store *store__open_again(const char *dir)
{
	return store__open_mode(dir, true, false, true);
}

void store__close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close_v2(s->db);
	if (s->profiles_fd >= 0)
		close(s->profiles_fd);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	free(s->dir);
	free(s->profiles_dir);
	free(s);
}

const char *store__dir(const struct store *s)
{
	return s->dir;
}

int store__dirfd(const struct store *s)
{
	return s->dir_fd;
}

bool store__exists(const struct store *s)
{
	return s->db != NULL;
}

int store__free_space(struct store *s, uint64_t needed, uint64_t *available)
{
	int err;

	*available = 0;
	if (s->dir_fd < 0)
		return -ENOENT;
	err = file__free_bytes(s->dir_fd, available);
	if (err)
		return err;
	return *available < needed ? -ENOSPC : 0;
}

/* ---- the schema ---- */

/* v2: saves in progress (pending), so that a sweep or `remove` only ever deletes files
 * this workspace said it was making; line tables by build id for exports. */
static const char schema_v2[] =
	"CREATE TABLE pending ("
	"  blob TEXT PRIMARY KEY,"
	"  tmp TEXT NOT NULL,"
	"  started_at_ns INTEGER NOT NULL);"
	"CREATE TABLE lines ("
	"  build_id TEXT PRIMARY KEY,"
	"  addresses INTEGER NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  data BLOB NOT NULL);";

/* Creates the schema, or brings an older one up to date; refuses one a newer slideops
 * made, and an empty index beside profile blobs (it was emptied or replaced). */
static int store__migrate(struct store *s, bool write, size_t blobs)
{
	sqlite3_stmt *st;
	int version, err, rc;

	err = prepare(s, "PRAGMA user_version", &st);
	if (err)
		return err;
	rc = sqlite3_step(st);
	version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (version < 0)
		return sql_err(s->db, rc) == -EBADMSG ? -EBADMSG : -EIO;
	if (version > SCHEMA_VERSION)
		return -EPROTO; /* a newer slideops made this workspace */
	if (version == 0 && blobs)
		return problem(-EUCLEAN, s, "workspace.db", 0);
	if (version == SCHEMA_VERSION)
		return 0;
	/* A reader reads an older schema as it is: what v2 added (pending saves, line
	 * tables) reads as none. */
	if (!write)
		return 0;

	/* IMMEDIATE: two first runs at once must not both create the tables. */
	err = exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = prepare(s, "PRAGMA user_version", &st);
	if (err)
		goto out_rollback;
	version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (version < 0 || version > SCHEMA_VERSION) {
		err = version < 0 ? -EIO : -EPROTO;
		goto out_rollback;
	}
	if (version < 1)
		err = exec(s, schema_v1);
	if (!err && version < 2)
		err = exec(s, schema_v2);
	if (!err && version < 3)
		err = exec(s, schema_v3);
	if (!err) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", SCHEMA_VERSION);
		err = exec(s, sql);
	}
	if (err)
		goto out_rollback;
	return exec(s, "COMMIT");

out_rollback:
	exec(s, "ROLLBACK");
	return err;
}

/* A reader's store may have no index yet: it lists nothing and finds nothing. */
static int need_db(struct store *s, bool write)
{
	if (!s->db)
		return write ? -EROFS : -ENOENT;
	if (write && !s->writable)
		return -EROFS;
	return 0;
}

/* A file can be made in dirfd: an unnamed one (O_TMPFILE), or where the file system has
 * none, a named one removed at once. 0 or -errno (EROFS: a read-only file system). */
static int dir_can_write(int dirfd)
{
	char name[64];
	int fd;

	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	snprintf(name, sizeof(name), "%swrite-check.%d", TMP_PREFIX, (int)getpid());
	fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	unlinkat(dirfd, name, 0);
	return 0;
}

int store__check_writable(struct store *s)
{
	int err = need_db(s, true);

	if (err)
		return err;
	if (sqlite3_db_readonly(s->db, "main") == 1)
		return -EROFS;
	err = dir_can_write(s->dir_fd);
	if (!err && s->profiles_fd >= 0)
		err = dir_can_write(s->profiles_fd);
	return err;
}

/* ---- profiles ---- */

static int profile_exists(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(s, "SELECT 1 FROM profiles WHERE id = ?1 UNION ALL"
			 " SELECT 1 FROM pending WHERE blob = ?1 || '" BLOB_SUFFIX "'", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	return any_row(s, st);
}

/* 1 when the index lists id (0 when not, -errno). */
static int profile_indexed(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(s, "SELECT 1 FROM profiles WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	return any_row(s, st);
}

/* Forgets a save that is over (done, failed, or swept). */
static int pending_forget(struct store *s, const char *blob)
{
	sqlite3_stmt *st;
	int err = prepare(s, "DELETE FROM pending WHERE blob = ?", &st);

	if (err)
		return err;
	sqlite3_bind_text(st, 1, blob, -1, SQLITE_STATIC);
	return run(s, st);
}

/* A name this store wrote itself: no slash, no dot-dot, not empty. */
static bool plain_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

int store__leftovers(struct store *s, int64_t older_than_ns,
		     int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx)
{
	sqlite3_stmt *st;
	char **names = NULL;
	size_t n = 0;
	int err, rc;

	err = need_db(s, true);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (s->profiles_fd < 0)
		return 0;
	err = prepare(s, "SELECT blob, tmp FROM pending WHERE started_at_ns < ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, older_than_ns);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **grown = realloc(names, sizeof(*names) * (n + 2));

		if (!grown) {
			err = -ENOMEM;
			break;
		}
		names = grown;
		names[n] = xstrdup(sqlite3_column_text(st, 0));
		names[n + 1] = xstrdup(sqlite3_column_text(st, 1));
		n += 2;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; !err && i < n; i += 2) {
		for (size_t j = i; j < i + 2; j++) {
			char id[STORE_ID_MAX + sizeof(BLOB_SUFFIX)], path[PATH_MAX];
			size_t len = names[j] ? strlen(names[j]) : 0;
			struct stat stt;

			if (!plain_name(names[j]))
				continue;
			/* The blob of a save that did get indexed stays. */
			if (j == i && len > strlen(BLOB_SUFFIX) && len < sizeof(id)) {
				memcpy(id, names[j], len - strlen(BLOB_SUFFIX));
				id[len - strlen(BLOB_SUFFIX)] = '\0';
				if (profile_indexed(s, id) != 0)
					continue;
			}
			if (fstatat(s->profiles_fd, names[j], &stt, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISREG(stt.st_mode))
				continue;
			if (unlinkat(s->profiles_fd, names[j], 0)) {
				err = -errno;
				break;
			}
			snprintf(path, sizeof(path), "%s/%s", s->profiles_dir, names[j]);
			if (found)
				err = found(ctx, path, (uint64_t)stt.st_size);
		}
		if (!err)
			err = pending_forget(s, names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

/*
 * Removes what a crash left behind: the files of saves this workspace started more
 * than an hour ago and never finished. Nothing else: a file the index does not name is
 * not ours to delete. Best effort; run by saves, which are rare.
 */
static void store__sweep(struct store *s)
{
	store__leftovers(s, clock__realtime_ns() - STALE_TMP_SECONDS * 1000000000LL, NULL, NULL);
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

/* Claims a fresh id and says, in the index, which two files the save will make. */
static int pending_begin(struct store *s, const struct profile *p, int64_t started_at_ns,
			 char id[STORE_ID_MAX], char *blob, size_t blob_size, char *tmp,
			 size_t tmp_size)
{
	sqlite3_stmt *st;
	uint64_t r;
	int err, tries;

	err = exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	for (tries = 0; tries < 64; tries++) {
		make_id(p, started_at_ns, id);
		err = profile_exists(s, id);
		if (err <= 0)
			break;
	}
	if (!err && tries == 64)
		err = -EEXIST;
	if (err)
		goto out_rollback;
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)clock__realtime_ns();
	snprintf(blob, blob_size, "%s" BLOB_SUFFIX, id);
	snprintf(tmp, tmp_size, "%s" TMP_PREFIX "%016llx", blob, (unsigned long long)r);
	err = prepare(s, "INSERT INTO pending (blob, tmp, started_at_ns) VALUES (?, ?, ?)", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, blob, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, tmp, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock__realtime_ns());
	err = run(s, st);
	if (!err)
		err = exec(s, "COMMIT");
	if (!err)
		return 0;
out_rollback:
	exec(s, "ROLLBACK");
	id[0] = '\0';
	return err;
}

/* Writes data to the new file name in the profiles directory, fsync'd. */
static int write_new(struct store *s, const char *name, const void *data, size_t len)
{
	int fd, err;

	fd = openat(s->profiles_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	err = file__write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlinkat(s->profiles_fd, name, 0);
	return err;
}

/* Moves tmp to blob unless blob exists (-EEXIST). */
static int rename_noreplace(int dirfd, const char *tmp, const char *blob)
{
	if (renameat2(dirfd, tmp, dirfd, blob, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A filesystem without RENAME_NOREPLACE: link refuses an existing name too. */
	if (linkat(dirfd, tmp, dirfd, blob, 0))
		return -errno;
	unlinkat(dirfd, tmp, 0);
	return 0;
}

static int index_profile(struct store *s, const struct profile *p, const char *answer,
			 const char *id, const char *blob, int64_t started_at_ns)
{
	sqlite3_stmt *st;
	int err;

	err = exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = prepare(s,
		      "INSERT INTO profiles (id, question, server, started_at_ns, duration_ns,"
		      " answer, blob, saved_at_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		      &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, question__id(p->header.question), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, profile__str(p, p->header.hostname), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, started_at_ns);
	sqlite3_bind_int64(st, 5, p->header.duration_ns > INT64_MAX ?
					  INT64_MAX : (int64_t)p->header.duration_ns);
	sqlite3_bind_text(st, 6, answer ? answer : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, blob, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, clock__realtime_ns());
	err = run(s, st);
	if (!err)
		err = pending_forget(s, blob);
	/* Listed whole and no longer pending, or neither. */
	if (!err)
		err = exec(s, "COMMIT");
	if (!err)
		return 0;
out_rollback:
	exec(s, "ROLLBACK");
	return err;
}

/* Room for the index row and its journal beside the blob. */
#define INDEX_BYTES_MARGIN (256u << 10)

int store__profile_bytes(const struct profile *p, uint64_t *bytes)
{
	void *data = NULL;
	size_t len;
	int err = pprof__encode(p, false, &data, &len);

	free(data);
	if (!err)
		*bytes = (uint64_t)len * 2 + INDEX_BYTES_MARGIN; /* the blob, then its rename */
	return err;
}

int store__save_profile(struct store *s, const struct profile *p, const char *answer,
			char id[STORE_ID_MAX])
{
	char tmp[PATH_MAX], blob[STORE_ID_MAX + sizeof(BLOB_SUFFIX)];
	int64_t started_at_ns = p->header.started_at_ns ? p->header.started_at_ns : clock__realtime_ns();
	void *data = NULL;
	size_t len;
	int err;

	id[0] = '\0';
	err = need_db(s, true);
	if (err)
		return err;
	store__sweep(s);
	err = pprof__encode(p, false, &data, &len);
	if (err)
		return err;
	err = pending_begin(s, p, started_at_ns, id, blob, sizeof(blob), tmp, sizeof(tmp));
	if (err) {
		free(data);
		return err;
	}
	err = write_new(s, tmp, data, len);
	free(data);
	if (!err)
		err = rename_noreplace(s->profiles_fd, tmp, blob);
	if (!err && fsync(s->profiles_fd) && errno != EINVAL)
		err = -errno;
	if (!err)
		err = index_profile(s, p, answer, id, blob, started_at_ns);
	if (err) {
		/* Nothing half-written stays: neither file, nor (when the index can still
		 * be written) the note that they were being made. */
		unlinkat(s->profiles_fd, tmp, 0);
		unlinkat(s->profiles_fd, blob, 0);
		fsync(s->profiles_fd);
		pending_forget(s, blob);
		id[0] = '\0';
	}
	return err;
}

/* What check_entry asks of every file at open, asked of a profile's file as it is read
 * (store__open_again checks none at open): ours, a plain file, written by us alone. */
static int blob__check(struct store *s, int fd, const char *name)
{
	char rel[PATH_MAX];
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	snprintf(rel, sizeof(rel), "profiles/%s", name);
	return entry__check_stat(s, &st, rel, false, true);
}

int store__load_profile(struct store *s, const char *id, struct profile **out)
{
	const char *blob;
	sqlite3_stmt *st;
	int rc, err, fd;

	*out = NULL;
	err = need_db(s, false);
	if (err)
		return err;
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
	blob = (const char *)sqlite3_column_text(st, 0);
	if (!plain_name(blob) || s->profiles_fd < 0) {
		sqlite3_finalize(st);
		return s->profiles_fd < 0 ? -ENODATA : -EBADMSG;
	}
	fd = openat(s->profiles_fd, blob, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	if (!err)
		err = blob__check(s, fd, blob);
	sqlite3_finalize(st);
	if (err == -ENOENT)
		return -ENODATA; /* listed, but its file is gone */
	if (err == -ELOOP)
		return -EBADMSG;
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = pprof__read_fd(fd, out);
	close(fd);
	/* Listed but unreadable as a profile: the profile is damaged, not absent. */
	if (err == -EINVAL || err == -EFBIG)
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

/* The filters of a page of profiles, as SQL: a NULL binding matches anything. */
#define PROFILE_FILTER " WHERE (?1 IS NULL OR question = ?1) AND (?2 IS NULL OR server = ?2)"

static void bind_filter(sqlite3_stmt *st, const struct profile_query *q)
{
	if (q->question >= 0)
		sqlite3_bind_text(st, 1, question__id((enum question)q->question), -1, SQLITE_STATIC);
	if (q->server)
		sqlite3_bind_text(st, 2, q->server, -1, SQLITE_STATIC);
}

int store__query_profiles(struct store *s, const struct profile_query *q,
			  struct profile_entry **out, size_t *n, uint64_t *total)
{
	sqlite3_stmt *st;
	int rc, err;

	*out = NULL;
	*n = 0;
	*total = 0;
	if (!s->db)
		return 0; /* no workspace there yet: nothing in it */
	err = prepare(s, "SELECT COUNT(*) FROM profiles" PROFILE_FILTER, &st);
	if (err)
		return err;
	bind_filter(st, q);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*total = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return sql_err(s->db, rc);
	/* Only the index is read: a page costs its rows, whatever the workspace holds. */
	err = prepare(s,
		      "SELECT id, question, server, started_at_ns, duration_ns, answer"
		      " FROM profiles" PROFILE_FILTER
		      " ORDER BY started_at_ns DESC, saved_at_ns DESC, id DESC LIMIT ?3 OFFSET ?4",
		      &st);
	if (err)
		return err;
	bind_filter(st, q);
	sqlite3_bind_int64(st, 3, q->limit && q->limit <= INT64_MAX ? (sqlite3_int64)q->limit : -1);
	sqlite3_bind_int64(st, 4, q->offset <= INT64_MAX ? (sqlite3_int64)q->offset : INT64_MAX);
	return fetch_rows(s, st, sizeof(**out), profile_row, profile_rows__free, (void **)out, n);
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
	int err;

	err = need_db(s, true);
	if (err)
		return err;
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

int store__refresh_answer(struct store *s, const char *id, const char *answer)
{
	char path[PATH_MAX];
	sqlite3_stmt *st;
	sqlite3 *db = NULL;
	bool same;
	int rc;

	if (!s->db)
		return -ENOENT;
	if (prepare(s, "SELECT answer FROM profiles WHERE id = ?", &st))
		return -EIO;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	same = rc == SQLITE_ROW &&
	       strcmp((const char *)sqlite3_column_text(st, 0) ?: "", answer ?: "") == 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW || same)
		return rc == SQLITE_ROW ? 0 : -ENOENT;
	if (s->writable)
		return store__set_answer(s, id, answer);
	/* A reader writes only when the words changed, and only if it can. */
	db_path(s, path, sizeof(path), false);
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
		rc = sqlite3_prepare_v2(db, "UPDATE profiles SET answer = ? WHERE id = ?", -1, &st,
					NULL);
	}
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, answer ? answer : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_finalize(st);
	}
	sqlite3_close_v2(db);
	return rc == SQLITE_OK ? 0 : -EROFS;
}

int store__delete_profile(struct store *s, const char *id)
{
	char *blob = NULL;
	sqlite3_stmt *st;
	int rc, err;

	err = need_db(s, true);
	if (err)
		return err;
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
	if (plain_name(blob) && s->profiles_fd >= 0 && unlinkat(s->profiles_fd, blob, 0) == 0)
		fsync(s->profiles_fd);
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
	err = need_db(s, true);
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
	sqlite3_bind_int64(st, 4, (int64_t)symtab__named(tab));
	sqlite3_bind_int64(st, 5, clock__realtime_ns());
	sqlite3_bind_blob(st, 6, blob, (int)len, free);
	return run(s, st);
}

int store__has_symbols(struct store *s, const char *build_id, enum symbol_source src)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	sqlite3_stmt *st;
	int err;

	if (build_id__norm(build_id, bid) || !s->db)
		return 0;
	err = prepare(s, "SELECT 1 FROM symbols WHERE build_id = ? AND source = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)src);
	return any_row(s, st);
}

/* The best table for build_id of a source at least min. */
static int get_symbols_from(struct store *s, const char *build_id, enum symbol_source min,
			    struct symtab **out, enum symbol_source *src)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	sqlite3_stmt *st;
	int rc, err;

	*out = NULL;
	if (build_id__norm(build_id, bid) || !s->db)
		return -ENOENT;
	err = prepare(s,
		      "SELECT source, data FROM symbols WHERE build_id = ? AND source >= ?"
		      " ORDER BY source LIMIT 1",
		      &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)min);
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

int store__get_symbols(struct store *s, const char *build_id, struct symtab **out,
		       enum symbol_source *src)
{
	return get_symbols_from(s, build_id, SYMBOLS_UPLOAD, out, src);
}

/*
 * An upload names first; what it cannot name (a debug file has no PLT, and knows no
 * function it was not given) the binary's own table, kept at capture, still does.
 */
int store__keeps_full_names(void *store, const char *build_id)
{
	return store__has_symbols(store, build_id, SYMBOLS_UPLOAD) == 1 ||
	       store__has_symbols(store, build_id, SYMBOLS_SYMTAB) == 1;
}

int store__symbols_get(void *store, const char *build_id, struct symtab **out)
{
	enum symbol_source src;
	struct symtab *own;
	int err = store__get_symbols(store, build_id, out, &src);

	if (err || src != SYMBOLS_UPLOAD)
		return err;
	err = get_symbols_from(store, build_id, SYMBOLS_SYMTAB, &own, NULL);
	if (err)
		return err == -ENOMEM ? err : 0;
	err = symtab__fill(*out, own);
	symtab__free(own);
	if (err) {
		symtab__free(*out);
		*out = NULL;
	}
	return err;
}

int store__symbolize(struct store *s, struct profile *p)
{
	struct symbol_lookup lookup = { .get = store__symbols_get, .ctx = s };

	return profile__symbolize(p, &lookup);
}

/* ---- line tables ---- */

int store__put_lines(struct store *s, const char *build_id, const struct line_table *t)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	struct line_table *kept = NULL, *merged = NULL;
	sqlite3_stmt *st;
	void *blob = NULL;
	size_t len;
	int err;

	err = need_db(s, true);
	if (err)
		return err;
	err = build_id__norm(build_id, bid);
	if (err)
		return err;
	/* A capture's exact rows join those kept for the build; a whole table (an upload)
	 * replaces them, and is not replaced by exact rows. */
	if (t->exact && store__get_lines(s, bid, &kept) == 0) {
		if (!kept->exact) {
			line_table__free(kept);
			return 0;
		}
		merged = line_table__merge(kept, t);
		line_table__free(kept);
		if (!merged)
			return -ENOMEM;
		t = merged;
	}
	err = line_table__serialize(t, &blob, &len);
	if (!err && len > INT_MAX)
		err = -EFBIG;
	if (!err)
		err = prepare(s,
			      "INSERT OR REPLACE INTO lines (build_id, addresses, stored_at_ns, data)"
			      " VALUES (?, ?, ?, ?)",
			      &st);
	if (err) {
		free(blob);
		line_table__free(merged);
		return err;
	}
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)t->n);
	sqlite3_bind_int64(st, 3, clock__realtime_ns());
	sqlite3_bind_blob(st, 4, blob, (int)len, free);
	line_table__free(merged);
	return run(s, st);
}

int store__get_lines(struct store *s, const char *build_id, struct line_table **out)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	sqlite3_stmt *st;
	int rc, err;

	*out = NULL;
	if (build_id__norm(build_id, bid) || !s->db)
		return -ENOENT;
	err = prepare(s, "SELECT data FROM lines WHERE build_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : sql_err(s->db, rc);
	}
	errno = 0;
	*out = line_table__deserialize(sqlite3_column_blob(st, 0),
				       (size_t)sqlite3_column_bytes(st, 0));
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
	sqlite3_finalize(st);
	return err;
}

int store__keep_lines(void *store, const char *build_id, const struct line_table *t)
{
	return store__put_lines(store, build_id, t);
}

static int store__lines_get(void *store, const char *build_id, struct line_table **out)
{
	return store__get_lines(store, build_id, out);
}

int store__add_lines(struct store *s, struct profile *p)
{
	struct lines_lookup lookup = { .get = store__lines_get, .ctx = s };

	return profile__add_lines(p, &lookup);
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
	err = need_db(s, true);
	if (err)
		return err;
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
	err = need_db(s, true);
	if (err)
		return err;
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

	err = need_db(s, true);
	if (err)
		return err == -EROFS && !s->db ? -ENOENT : err;
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

/* A reader may open a workspace an older slideops made: its tables are as they were. */
static bool table_exists(struct store *s, const char *name)
{
	sqlite3_stmt *st;
	bool found;

	if (prepare(s, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", &st))
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int store__put_server(struct store *s, const struct server_entry *srv)
{
	sqlite3_stmt *st;
	int err;

	err = need_db(s, true);
	if (err)
		return err;
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
	*out = NULL;
	*n = 0;
	/* A reader of a workspace without an index, or of one from before servers: none. */
	if (need_db(s, false) || !table_exists(s, "servers"))
		return 0;
	return select_rows(s, "SELECT id, hostname, this_server, added_at_ns FROM servers "
			      "ORDER BY this_server DESC, hostname",
			   sizeof(**out), server_row, server_rows__free, (void **)out, n);
}
