// SPDX-License-Identifier: MIT
/*
 * The workspace store, whatever keeps it: the checks and encodings every backend shares,
 * then the backend an open store has (store_backend.h), below the backends; store_open.c,
 * above them, chooses it. Without a URL the workspace is the SQLite index and profile
 * files in the data directory (store_lite_*.c); with one (store__set_url: --store,
 * SLIDEOPS_STORE) it is a PostgreSQL database (store_pg_*.c) and the data directory keeps
 * only this machine's profiler and caches.
 */
#include "store/store_backend.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "profile/pprof.h"
#include "util/clock.h"

const char *const store__match_names[] = {
	[SERVICE_BY_UNIT] = "unit",
	[SERVICE_BY_CONTAINER] = "container",
	[SERVICE_BY_EXE] = "exe",
};

int store__match_parse(const char *name)
{
	for (int i = 0; name && i <= SERVICE_BY_EXE; i++)
		if (strcmp(name, store__match_names[i]) == 0)
			return i;
	return -1;
}

char *store__strdup(const char *s)
{
	return strdup(s ? s : "");
}

bool store__plain_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* ---- where the workspace is ---- */

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

/* Per thread: the server opens workspaces on several threads at once. */
static _Thread_local char problem_path[PATH_MAX];
static _Thread_local uid_t problem_uid;

const char *store__problem(uid_t *owner)
{
	if (owner)
		*owner = problem_uid;
	return problem_path;
}

void store__clear_problem(void)
{
	problem_path[0] = '\0';
}

int store__set_problem(int err, const char *dir, const char *name, uid_t uid)
{
	int n = snprintf(problem_path, sizeof(problem_path), "%s%s%s", dir, name ? "/" : "",
			 name ? name : "");

	if (n < 0 || (size_t)n >= sizeof(problem_path))
		problem_path[sizeof(problem_path) - 1] = '\0';
	problem_uid = uid;
	return err;
}

/* ---- an open store (store_open.c opens it) ---- */

void store__close(struct store *s)
{
	if (!s)
		return;
	if (s->ops)
		s->ops->close(s);
	free(s->dir);
	free(s->where);
	free(s->profiles_dir);
	free(s);
}

const char *store__dir(const struct store *s)
{
	return s->dir;
}

const char *store__where(const struct store *s)
{
	return s->where ? s->where : s->dir;
}

int store__dirfd(const struct store *s)
{
	return s->dir_fd;
}

bool store__exists(const struct store *s)
{
	return s->ops->exists(s);
}

int store__free_space(struct store *s, uint64_t needed, uint64_t *available)
{
	return s->ops->free_space(s, needed, available);
}

int store__check_writable(struct store *s)
{
	int err = store__need_db(s, true);

	return err ? err : s->ops->check_writable(s);
}

/* A reader's store may have no workspace yet: it lists nothing and finds nothing. */
int store__need_db(const struct store *s, bool write)
{
	if (!s->ops->exists(s))
		return write ? -EROFS : -ENOENT;
	if (write && !s->writable)
		return -EROFS;
	return 0;
}

int store__leftovers(struct store *s, int64_t older_than_ns,
		     int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx)
{
	int err = store__need_db(s, true);

	if (err)
		return err == -EROFS && !s->ops->exists(s) ? 0 : err;
	return s->ops->leftovers(s, older_than_ns, found, ctx);
}

/* ---- profiles ---- */

void store__new_id(enum question q, int64_t started_at_ns, char id[STORE_ID_MAX])
{
	time_t t = (time_t)(started_at_ns / 1000000000LL);
	char when[32] = "00000000-000000";
	struct tm tm;
	uint16_t r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint16_t)(clock__realtime_ns() ^ getpid());
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(id, STORE_ID_MAX, "%s-%s-%04x", when, question__id(q), r);
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
	return store__save_row(s, p, answer, NULL, NULL, id);
}

int store__save_row(struct store *s, const struct profile *p, const char *answer,
		    const char *server, const struct batch_key *batch, char id[STORE_ID_MAX])
{
	struct profile_row row = {
		.question = p->header.question,
		.server = server ? server : profile__str(p, p->header.hostname),
		.started_at_ns = p->header.started_at_ns ? p->header.started_at_ns :
							   clock__realtime_ns(),
		.duration_ns = p->header.duration_ns > INT64_MAX ? INT64_MAX :
								   (int64_t)p->header.duration_ns,
		.answer = answer ? answer : "",
		.saved_at_ns = clock__realtime_ns(),
		.batch = batch,
	};
	void *data = NULL;
	size_t len;
	int err;

	id[0] = '\0';
	err = store__need_db(s, true);
	if (err)
		return err;
	if (!row.server)
		row.server = "";
	err = pprof__encode(p, false, &data, &len);
	if (err)
		return err;
	err = s->ops->save_profile(s, &row, data, len, id);
	free(data);
	if (err) {
		id[0] = '\0';
		return err;
	}
	/* A workspace that keeps profiles for a time drops what aged out, a bounded batch a
	 * save, so that saving keeps ahead of aging. Best effort: the save is done. */
	{
		int64_t keep = 0;
		size_t dropped;

		if (store__retention(s, &keep) == 0 && keep > 0)
			s->ops->prune_profiles(s, row.saved_at_ns - keep * 1000000000LL,
					       STORE_RETENTION_BATCH, &dropped);
	}
	return 0;
}

#define RETENTION_KEY "retention_seconds"

int store__set_retention(struct store *s, int64_t seconds)
{
	char value[32];
	int err = store__need_db(s, true);

	if (err)
		return err;
	if (seconds < 0 || seconds > INT64_MAX / 1000000000LL)
		return -EINVAL;
	snprintf(value, sizeof(value), "%lld", (long long)seconds);
	return s->ops->put_setting(s, RETENTION_KEY, value);
}

int store__retention(struct store *s, int64_t *seconds)
{
	char value[32], *end;
	long long v;
	int err;

	*seconds = 0;
	if (!s->ops->exists(s))
		return 0;
	err = s->ops->get_setting(s, RETENTION_KEY, value, sizeof(value));
	if (err)
		return err == -ENOENT ? 0 : err;
	errno = 0;
	v = strtoll(value, &end, 10);
	if (errno || *end || v < 0 || v > INT64_MAX / 1000000000LL)
		return -EBADMSG;
	*seconds = v;
	return 0;
}

int store__load_profile(struct store *s, const char *id, struct profile **out)
{
	int err;

	*out = NULL;
	err = store__need_db(s, false);
	if (err)
		return err;
	return s->ops->load_profile(s, id, out);
}

int store__list_profiles(struct store *s, struct profile_entry **out, size_t *n)
{
	struct profile_query q = { .question = -1 };
	uint64_t total;

	return store__query_profiles(s, &q, out, n, &total);
}

int store__query_profiles(struct store *s, const struct profile_query *q,
			  struct profile_entry **out, size_t *n, uint64_t *total)
{
	*out = NULL;
	*n = 0;
	*total = 0;
	if (!s->ops->exists(s))
		return 0; /* no workspace there yet: nothing in it */
	if (q->after && q->offset)
		return -EINVAL;
	return s->ops->query_profiles(s, q, out, n, total);
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
	int err = store__need_db(s, true);

	return err ? err : s->ops->set_answer(s, id, answer ? answer : "");
}

int store__refresh_answer(struct store *s, const char *id, const char *answer)
{
	if (!s->ops->exists(s))
		return -ENOENT;
	return s->ops->refresh_answer(s, id, answer ? answer : "");
}

int store__delete_profile(struct store *s, const char *id)
{
	int err = store__need_db(s, true);

	return err ? err : s->ops->delete_profile(s, id);
}

int store__prune_profiles(struct store *s, int64_t before_ns, size_t batch,
			  int (*progress)(void *ctx, uint64_t deleted), void *ctx,
			  uint64_t *deleted)
{
	int err = store__need_db(s, true);

	*deleted = 0;
	if (err)
		return err == -EROFS && !s->ops->exists(s) ? 0 : err;
	if (batch == 0)
		batch = STORE_PRUNE_BATCH;
	for (;;) {
		size_t n = 0;

		/* One bounded transaction at a time: the workspace stays served meanwhile. */
		err = s->ops->prune_profiles(s, before_ns, batch, &n);
		if (err)
			return err;
		*deleted += n;
		if (n && progress && (err = progress(ctx, *deleted)))
			return err;
		if (n < batch)
			return 0;
	}
}

/* ---- services ---- */

int store__add_service(struct store *s, const struct service *svc)
{
	int err;

	if (!svc->name || !*svc->name || !svc->value || !*svc->value ||
	    (unsigned)svc->match > SERVICE_BY_EXE)
		return -EINVAL;
	err = store__need_db(s, true);
	if (err)
		return err;
	/* The name is the key: -EEXIST when taken. */
	return s->ops->add_service(s, svc, store__match_names[svc->match]);
}

int store__remove_service(struct store *s, const char *name)
{
	int err = store__need_db(s, true);

	if (err)
		return err == -EROFS && !s->ops->exists(s) ? -ENOENT : err;
	return s->ops->remove_service(s, name);
}

int store__list_services(struct store *s, struct service **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!s->ops->exists(s))
		return 0;
	return s->ops->list_services(s, out, n);
}

/* ---- the workspace token ---- */

int store__token(struct store *s, char *out, size_t size)
{
	unsigned char raw[64];
	char candidate[129];
	size_t digits = size ? size - 1 : 0;
	int err;

	if (!s->ops->token)
		return -ENOTSUP;
	if (digits == 0 || digits > 2 * sizeof(raw))
		return -EINVAL;
	err = store__need_db(s, true);
	if (err)
		return err;
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -EIO;
	for (size_t i = 0; i < digits; i++)
		candidate[i] = "0123456789abcdef"[(raw[i / 2] >> (i % 2 ? 0 : 4)) & 0xf];
	candidate[digits] = '\0';
	return s->ops->token(s, candidate, out, size);
}

/* ---- servers ---- */

int store__put_server(struct store *s, const struct server_entry *srv)
{
	struct server_entry named = *srv;
	int err = store__need_db(s, true);

	if (!named.name)
		named.name = named.hostname;
	return err ? err : s->ops->put_server(s, &named, clock__realtime_ns());
}

int store__list_servers(struct store *s, struct server_entry **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	/* A reader of a workspace without an index: none. */
	if (store__need_db(s, false))
		return 0;
	return s->ops->list_servers(s, out, n);
}

void server_entry__clear(struct server_entry *e)
{
	free(e->name);
	free(e->hostname);
	free(e->machine_id);
	free(e->kernel);
	free(e->agent_version);
	free(e->boot_id);
	free(e->last_refusal);
	memset(e, 0, sizeof(*e));
}

void server_entries__free(struct server_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++)
		server_entry__clear(&e[i]);
	free(e);
}

/* ---- cursors ---- */

void store__cursor(const struct profile_entry *e, char cursor[STORE_CURSOR_MAX])
{
	snprintf(cursor, STORE_CURSOR_MAX, "%lld.%lld.%s", (long long)e->started_at_ns,
		 (long long)e->saved_at_ns, e->id);
}

int store__parse_cursor(const char *cursor, int64_t *started_at_ns, int64_t *saved_at_ns,
			char id[STORE_ID_MAX])
{
	long long started, saved;
	int used = 0;

	if (!cursor || strlen(cursor) >= STORE_CURSOR_MAX ||
	    sscanf(cursor, "%lld.%lld.%n", &started, &saved, &used) != 2 || used == 0 ||
	    !store__plain_name(cursor + used) || strlen(cursor + used) >= STORE_ID_MAX)
		return -EINVAL;
	*started_at_ns = started;
	*saved_at_ns = saved;
	strcpy(id, cursor + used);
	return 0;
}
