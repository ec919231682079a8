// SPDX-License-Identifier: MIT
/*
 * The PostgreSQL backend (store_pg.h) opened: the URL, connections (a small pool: a
 * server opens the store for every request), the schema brought up to date
 * (store_pg_schema.c) and the operations table. Above the backend's other files, which
 * its table names; its queries are store_pg.c's.
 *
 * The URL names no password: libpq reads it from PGPASSFILE or ~/.pgpass.
 */
#include "store/store_pg.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Idle connections kept for the next open. */
#define POOL_MAX 8
#define CONNECT_TIMEOUT_S "10"

/* ---- the URL ---- */

int store__check_url(const char *url)
{
	PQconninfoOption *opts;
	char *why = NULL;
	int err = 0;

	if (!url || (strncmp(url, "postgresql://", 13) && strncmp(url, "postgres://", 11)))
		return store__set_problem(-EINVAL, "", NULL, 0);
	opts = PQconninfoParse(url, &why);
	if (!opts) {
		size_t len = why ? strlen(why) : 0;

		while (len && (why[len - 1] == '\n' || why[len - 1] == '.'))
			why[--len] = '\0';
		store__set_problem(-EINVAL, why ? why : "", NULL, 0);
		PQfreemem(why);
		return -EINVAL;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, "password") == 0 && o->val && *o->val)
			err = -EACCES;
	PQconninfoFree(opts);
	return err ? store__set_problem(err, "", NULL, 0) : 0;
}

/* ---- connections ---- */

struct pooled {
	char *url;
	PGconn *conn;
	int version;  /* the schema version it was checked at */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pooled pool[POOL_MAX];

static PGconn *pool_take(const char *url, int *version)
{
	PGconn *conn = NULL;

	pthread_mutex_lock(&pool_lock);
	for (int i = 0; i < POOL_MAX && !conn; i++) {
		if (!pool[i].conn || strcmp(pool[i].url, url))
			continue;
		conn = pool[i].conn;
		*version = pool[i].version;
		free(pool[i].url);
		pool[i] = (struct pooled){ 0 };
	}
	pthread_mutex_unlock(&pool_lock);
	/* A connection the server closed meanwhile (a restart, an idle timeout) is no use:
	 * an empty query, one round trip, finds out before a request would. */
	if (conn) {
		PGresult *res = PQexec(conn, "");

		if (PQresultStatus(res) != PGRES_EMPTY_QUERY || PQstatus(conn) != CONNECTION_OK) {
			PQfinish(conn);
			conn = NULL;
		}
		PQclear(res);
	}
	return conn;
}

static void pool_give(const char *url, PGconn *conn, int version)
{
	char *copy = NULL;

	if (PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) == PQTRANS_IDLE)
		copy = strdup(url);
	pthread_mutex_lock(&pool_lock);
	for (int i = 0; i < POOL_MAX && copy; i++) {
		if (pool[i].conn)
			continue;
		pool[i] = (struct pooled){ .url = copy, .conn = conn, .version = version };
		copy = NULL;
		conn = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	free(copy);
	if (conn)
		PQfinish(conn);
}

static int connect_url(const char *url, PGconn **out)
{
	/* The URL's own settings win over these defaults: it is expanded last. */
	const char *keys[] = { "connect_timeout", "application_name", "dbname", NULL };
	const char *vals[] = { CONNECT_TIMEOUT_S, "slideops", url, NULL };
	PGconn *conn = PQconnectdbParams(keys, vals, 1);

	*out = NULL;
	if (!conn)
		return pg__conn_problem(-ENOMEM, "out of memory");
	if (PQstatus(conn) != CONNECTION_OK) {
		int err = pg__conn_problem(-ECONNREFUSED, PQerrorMessage(conn));

		PQfinish(conn);
		return err;
	}
	/* Timestamps are ours (epoch nanoseconds); nothing depends on the session's zone.
	 * A statement stuck on a lock gives up rather than hanging a request. */
	PQclear(PQexec(conn, "SET lock_timeout = '30s'"));
	*out = conn;
	return 0;
}

/* The data directory of this machine's profiler and caches (made, 0700, by a writer that
 * finds none; a reader makes nothing): nothing of the workspace is kept in it. */
static void open_cache_dir(struct store *s, bool create)
{
	struct stat st;
	int fd;

	if (!*s->dir)
		return;
	if (create)
		store__mkdir_p(s->dir, 0700);
	fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return;
	}
	s->dir_fd = fd;
}

/* The URL as messages show it (it has no password). */
static char *url_shown(const char *url)
{
	return strdup(url);
}

int store_pg__open(struct store *s, const char *url, enum store_mode mode)
{
	bool fresh = false;
	int err;

	s->where = url_shown(url);
	if (!s->where)
		return -ENOMEM;
	s->pg = pool_take(url, &s->pg_version);
	if (!s->pg) {
		err = connect_url(url, &s->pg);
		if (err)
			return err;
		fresh = true;
	}
	/* A connection from the pool was checked when it was made; a new one is checked
	 * now (and the schema brought up to date by a writer). */
	if (fresh || mode == STORE_WRITE) {
		err = pg__migrate(s, mode != STORE_READ);
		if (err == -ENOENT && mode == STORE_READ) {
			/* no workspace there yet: an empty one to read */
			pool_give(url, s->pg, s->pg_version);
			s->pg = NULL;
			err = 0;
		}
		if (err)
			return err;
	}
	open_cache_dir(s, mode == STORE_WRITE);
	return 0;
}

static void pg_close(struct store *s)
{
	if (s->pg) {
		if (PQtransactionStatus(s->pg) != PQTRANS_IDLE)
			PQclear(PQexec(s->pg, "ROLLBACK"));
		pool_give(s->where, s->pg, s->pg_version);
	}
	s->pg = NULL;
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	s->dir_fd = -1;
}

static bool pg_exists(const struct store *s)
{
	return s->pg != NULL;
}

/* The database's room is the database's to report: a full disk fails the save with
 * -ENOSPC, nothing kept. */
static int pg_free_space(struct store *s, uint64_t needed, uint64_t *available)
{
	(void)s;
	(void)needed;
	*available = UINT64_MAX;
	return 0;
}

/* A database that takes no writes (a standby, or read-only by its settings). */
static int pg_check_writable(struct store *s)
{
	PGresult *res;
	int err = pg__exec(s, "SELECT pg_is_in_recovery() OR"
			      " current_setting('transaction_read_only') = 'on'",
			   NULL, &res);

	if (err)
		return err;
	err = *PQgetvalue(res, 0, 0) ? -EROFS : 0;
	PQclear(res);
	return err;
}

/* A save is one transaction: there are no files to leave behind. */
static int pg_leftovers(struct store *s, int64_t older_than_ns,
			int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx)
{
	(void)s;
	(void)older_than_ns;
	(void)found;
	(void)ctx;
	return 0;
}

const struct store_ops store_pg_ops = {
	.close = pg_close,
	.exists = pg_exists,
	.free_space = pg_free_space,
	.check_writable = pg_check_writable,
	.leftovers = pg_leftovers,
	.save_profile = pg__save_profile,
	.load_profile = pg__load_profile,
	.query_profiles = pg__query_profiles,
	.set_answer = pg__set_answer,
	.refresh_answer = pg__refresh_answer,
	.delete_profile = pg__delete_profile,
	.prune_profiles = pg__prune_profiles,
	.get_setting = pg__get_setting,
	.put_setting = pg__put_setting,
	.put_symbols = pg__put_symbols,
	.has_symbols = pg__has_symbols,
	.get_symbols = pg__get_symbols,
	.put_lines = pg__put_lines,
	.get_lines = pg__get_lines,
	.list_uploads = pg__list_uploads,
	.delete_upload = pg__delete_upload,
	.add_service = pg__add_service,
	.remove_service = pg__remove_service,
	.list_services = pg__list_services,
	.token = pg__token,
	.put_server = pg__put_server,
	.list_servers = pg__list_servers,
	.put_enrolment = pg__put_enrolment,
	.enrolment_valid = pg__enrolment_valid,
	.put_server_symbols = pg__put_server_symbols,
	.has_server_symbols = pg__has_server_symbols,
	.get_server_symbols = pg__get_server_symbols,
	.profile_server = pg__profile_server,
	.server_refused = pg__server_refused,
	.put_server_lines = pg__put_server_lines,
	.get_server_lines = pg__get_server_lines,
	.enrol = pg__enrol,
	.authenticate = pg__authenticate,
	.server_seen = pg__server_seen,
	.remove_server = pg__remove_server,
	.find_batch = pg__find_batch,
	.queue_command = pg__queue_command,
	.take_commands = pg__take_commands,
	.unqueue_command = pg__unqueue_command,
	.reply_command = pg__reply_command,
	.command_reply = pg__command_reply,
	.servers_waiting = pg__servers_waiting,
	.put_agent_capture = pg__put_agent_capture,
	.get_agent_capture = pg__get_agent_capture,
};
