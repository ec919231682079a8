// SPDX-License-Identifier: MIT
/* Symbol and line tables by build id, uploads and services in the PostgreSQL workspace
 * (servers: store_pg_agents.c). */
#include "store/store_pg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

/* ---- symbol and line tables ---- */

int pg__put_symbols(struct store *s, const char *bid, enum symbol_source src,
		    const char *file_name, uint64_t functions, const void *data, size_t len)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, bid);
	pg_args__int32(&a, (int32_t)src);
	pg_args__str(&a, file_name);
	pg_args__int64(&a, (int64_t)functions);
	pg_args__int64(&a, clock__realtime_ns());
	pg_args__bytes(&a, data, len);
	return pg__exec(s, "INSERT INTO symbols (build_id, source, file_name, functions,"
			   " stored_at_ns, data) VALUES ($1, $2, $3, $4, $5, $6)"
			   " ON CONFLICT (build_id, source) DO UPDATE SET"
			   " file_name = excluded.file_name, functions = excluded.functions,"
			   " stored_at_ns = excluded.stored_at_ns, data = excluded.data",
			&a, NULL);
}

int pg__has_symbols(struct store *s, const char *bid, enum symbol_source src)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	pg_args__str(&a, bid);
	pg_args__int32(&a, (int32_t)src);
	err = pg__exec(s, "SELECT 1 FROM symbols WHERE build_id = $1 AND source = $2", &a,
		       &res);
	if (err)
		return err;
	err = PQntuples(res) > 0;
	PQclear(res);
	return err;
}

int pg__get_symbols(struct store *s, const char *bid, enum symbol_source min,
		    enum symbol_source *src, void **data, size_t *len)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	pg_args__str(&a, bid);
	pg_args__int32(&a, (int32_t)min);
	err = pg__exec(s, "SELECT source, data FROM symbols WHERE build_id = $1 AND"
			  " source >= $2 ORDER BY source LIMIT 1",
		       &a, &res);
	if (err)
		return err;
	if (PQntuples(res) == 0) {
		err = -ENOENT;
	} else {
		*src = (enum symbol_source)pg__int32(res, 0, 0);
		err = pg__bytes(res, 0, 1, data, len);
	}
	PQclear(res);
	return err;
}

/* ---- an agent's tables, its server's alone ---- */

int pg__put_server_symbols(struct store *s, const char *server_id, const char *bid,
			   enum symbol_source src, uint64_t functions, const void *data,
			   size_t len)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, server_id);
	pg_args__str(&a, bid);
	pg_args__int32(&a, (int32_t)src);
	pg_args__int64(&a, (int64_t)functions);
	pg_args__int64(&a, clock__realtime_ns());
	pg_args__bytes(&a, data, len);
	return pg__exec(s, "INSERT INTO server_symbols (server_id, build_id, source, functions,"
			   " stored_at_ns, data) VALUES ($1, $2, $3, $4, $5, $6)"
			   " ON CONFLICT (server_id, build_id, source) DO UPDATE SET"
			   " functions = excluded.functions, stored_at_ns = excluded.stored_at_ns,"
			   " data = excluded.data",
			&a, NULL);
}

int pg__has_server_symbols(struct store *s, const char *server_id, const char *bid,
			   enum symbol_source src)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 7)
		return 0;
	pg_args__str(&a, server_id);
	pg_args__str(&a, bid);
	pg_args__int32(&a, (int32_t)src);
	err = pg__exec(s, "SELECT 1 FROM server_symbols WHERE server_id = $1 AND"
			  " build_id = $2 AND source = $3", &a, &res);
	if (err)
		return err;
	err = PQntuples(res) > 0;
	PQclear(res);
	return err;
}

int pg__get_server_symbols(struct store *s, const char *server_id, const char *bid,
			   enum symbol_source *src, void **data, size_t *len)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 7)
		return -ENOENT;
	pg_args__str(&a, server_id);
	pg_args__str(&a, bid);
	err = pg__exec(s, "SELECT source, data FROM server_symbols WHERE server_id = $1 AND"
			  " build_id = $2 ORDER BY source LIMIT 1",
		       &a, &res);
	if (err)
		return err;
	if (PQntuples(res) == 0) {
		err = -ENOENT;
	} else {
		*src = (enum symbol_source)pg__int32(res, 0, 0);
		err = pg__bytes(res, 0, 1, data, len);
	}
	PQclear(res);
	return err;
}

int pg__put_server_lines(struct store *s, const char *server_id, const char *bid,
			 uint64_t addresses, const void *data, size_t len)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, server_id);
	pg_args__str(&a, bid);
	pg_args__int64(&a, (int64_t)addresses);
	pg_args__int64(&a, clock__realtime_ns());
	pg_args__bytes(&a, data, len);
	return pg__exec(s, "INSERT INTO server_lines (server_id, build_id, addresses,"
			   " stored_at_ns, data) VALUES ($1, $2, $3, $4, $5)"
			   " ON CONFLICT (server_id, build_id) DO UPDATE SET"
			   " addresses = excluded.addresses,"
			   " stored_at_ns = excluded.stored_at_ns, data = excluded.data",
			&a, NULL);
}

int pg__get_server_lines(struct store *s, const char *server_id, const char *bid,
			 void **data, size_t *len)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 7)
		return -ENOENT;
	pg_args__str(&a, server_id);
	pg_args__str(&a, bid);
	err = pg__exec(s, "SELECT data FROM server_lines WHERE server_id = $1 AND build_id = $2",
		       &a, &res);
	if (err)
		return err;
	err = PQntuples(res) ? pg__bytes(res, 0, 0, data, len) : -ENOENT;
	PQclear(res);
	return err;
}

int pg__profile_server(struct store *s, const char *id, char server_id[STORE_ID_MAX])
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 4)
		return -ENOENT;
	pg_args__text(&a, id);
	err = pg__exec(s, "SELECT server_id FROM batches WHERE profile_id = $1", &a, &res);
	if (err)
		return err;
	if (PQntuples(res) < 1)
		err = -ENOENT;
	else
		snprintf(server_id, STORE_ID_MAX, "%.*s", PQgetlength(res, 0, 0),
			 PQgetvalue(res, 0, 0));
	PQclear(res);
	return err;
}

int pg__put_lines(struct store *s, const char *bid, uint64_t addresses, const void *data,
		  size_t len)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, bid);
	pg_args__int64(&a, (int64_t)addresses);
	pg_args__int64(&a, clock__realtime_ns());
	pg_args__bytes(&a, data, len);
	return pg__exec(s, "INSERT INTO lines (build_id, addresses, stored_at_ns, data)"
			   " VALUES ($1, $2, $3, $4) ON CONFLICT (build_id) DO UPDATE SET"
			   " addresses = excluded.addresses,"
			   " stored_at_ns = excluded.stored_at_ns, data = excluded.data",
			&a, NULL);
}

int pg__get_lines(struct store *s, const char *bid, void **data, size_t *len)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	pg_args__str(&a, bid);
	err = pg__exec(s, "SELECT data FROM lines WHERE build_id = $1", &a, &res);
	if (err)
		return err;
	err = PQntuples(res) ? pg__bytes(res, 0, 0, data, len) : -ENOENT;
	PQclear(res);
	return err;
}

/* ---- uploads ---- */

int pg__list_uploads(struct store *s, struct upload_entry **out, size_t *n)
{
	struct upload_entry *e;
	PGresult *res;
	size_t count = 0;
	int rows, err;

	err = pg__exec(s, "SELECT file_name, functions, build_id, stored_at_ns FROM symbols"
			  " WHERE source = 0 ORDER BY stored_at_ns DESC, build_id",
		       NULL, &res);
	if (err)
		return err;
	rows = PQntuples(res);
	e = calloc(rows ? (size_t)rows : 1, sizeof(*e));
	for (int r = 0; e && r < rows; r++) {
		if (PQgetlength(res, r, 2) > BUILD_ID_HEX_MAX ||
		    memchr(PQgetvalue(res, r, 2), '\0', (size_t)PQgetlength(res, r, 2)))
			continue;
		memcpy(e[count].build_id, PQgetvalue(res, r, 2), (size_t)PQgetlength(res, r, 2));
		e[count].functions = (uint64_t)pg__int64(res, r, 1);
		e[count].uploaded_at_ns = pg__int64(res, r, 3);
		e[count].file_name = pg__str(res, r, 0);
		if (!e[count++].file_name) {
			upload_entries__free(e, count);
			e = NULL;
		}
	}
	PQclear(res);
	if (!e)
		return -ENOMEM;
	*out = e;
	*n = count;
	return 0;
}

int pg__delete_upload(struct store *s, const char *prefix, char deleted[BUILD_ID_HEX_MAX + 1])
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err, rows;

	/* The whole id wins even when it also starts a longer one (Go build ids vary). The
	 * row is locked from the look-up to the delete. */
	err = pg__begin(s);
	if (err)
		return err;
	pg_args__str(&a, prefix);
	err = pg__exec(s, "SELECT build_id FROM symbols WHERE source = 0 AND"
			  " substr(build_id, 1, length($1)) = $1"
			  " ORDER BY build_id = $1 DESC LIMIT 2 FOR UPDATE",
		       &a, &res);
	if (err)
		goto out_rollback;
	rows = PQntuples(res);
	if (rows == 0 || PQgetlength(res, 0, 0) > BUILD_ID_HEX_MAX) {
		err = -ENOENT;
	} else {
		memcpy(deleted, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
		deleted[PQgetlength(res, 0, 0)] = '\0';
		if (rows > 1 && strcmp(deleted, prefix) != 0)
			err = -EEXIST;
	}
	PQclear(res);
	if (err)
		goto out_rollback;
	a = (struct pg_args){ 0 };
	pg_args__str(&a, deleted);
	err = pg__exec(s, "DELETE FROM symbols WHERE source = 0 AND build_id = $1", &a, NULL);
	if (!err)
		err = pg__commit(s);
	if (!err)
		return 0;
out_rollback:
	pg__rollback(s);
	deleted[0] = '\0';
	return err;
}

/* ---- services ---- */

int pg__add_service(struct store *s, const struct service *svc, const char *match)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, svc->name);
	pg_args__text(&a, match);
	pg_args__str(&a, svc->value);
	pg_args__int64(&a, clock__realtime_ns());
	/* The name is the key: -EEXIST when taken. */
	return pg__exec(s, "INSERT INTO services (name, match, value, added_at_ns)"
			   " VALUES ($1, $2, $3, $4)",
			&a, NULL);
}

int pg__remove_service(struct store *s, const char *name)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, name);
	return pg__exec_one_row(s, "DELETE FROM services WHERE name = $1", &a);
}

int pg__list_services(struct store *s, struct service **out, size_t *n)
{
	struct service *e;
	PGresult *res;
	size_t count = 0;
	int rows, err;

	err = pg__exec(s, "SELECT name, match, value FROM services ORDER BY name", NULL, &res);
	if (err)
		return err;
	rows = PQntuples(res);
	e = calloc(rows ? (size_t)rows : 1, sizeof(*e));
	for (int r = 0; e && r < rows; r++) {
		int m = store__match_parse(PQgetvalue(res, r, 1));

		if (m < 0)
			continue; /* a kind of match a later slideops added */
		e[count].match = (enum service_match)m;
		e[count].name = pg__str(res, r, 0);
		e[count].value = pg__str(res, r, 2);
		if (!e[count].name || !e[count++].value) {
			services__free(e, count);
			e = NULL;
		}
	}
	PQclear(res);
	if (!e)
		return -ENOMEM;
	*out = e;
	*n = count;
	return 0;
}

/* ---- settings: in slideops_meta, as "setting.KEY" ---- */

int pg__get_setting(struct store *s, const char *key, char *value, size_t size)
{
	struct pg_args a = { 0 };
	char name[64];
	PGresult *res;
	int err;

	snprintf(name, sizeof(name), "setting.%s", key);
	pg_args__text(&a, name);
	err = pg__exec(s, "SELECT value FROM slideops_meta WHERE key = $1", &a, &res);
	if (err)
		return err;
	if (PQntuples(res) == 0)
		err = -ENOENT;
	else
		snprintf(value, size, "%.*s", PQgetlength(res, 0, 0), PQgetvalue(res, 0, 0));
	PQclear(res);
	return err;
}

int pg__put_setting(struct store *s, const char *key, const char *value)
{
	struct pg_args a = { 0 };
	char name[64];

	snprintf(name, sizeof(name), "setting.%s", key);
	pg_args__text(&a, name);
	pg_args__text(&a, value);
	return pg__exec(s, "INSERT INTO slideops_meta (key, value) VALUES ($1, $2)"
			   " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			&a, NULL);
}

/* ---- the workspace token ---- */

int pg__token(struct store *s, const char *candidate, char *out, size_t size)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	/* The first server to start keeps its candidate; every other reads that one. */
	pg_args__text(&a, candidate);
	err = pg__exec(s, "WITH kept AS (INSERT INTO slideops_meta (key, value) VALUES"
			  " ('token', $1) ON CONFLICT (key) DO NOTHING RETURNING value)"
			  " SELECT value FROM kept UNION ALL"
			  " SELECT value FROM slideops_meta WHERE key = 'token'",
		       &a, &res);
	if (err)
		return err;
	if (PQntuples(res) < 1 || (size_t)PQgetlength(res, 0, 0) != size - 1) {
		err = -EBADMSG; /* a token not of this length: not one a server made */
	} else {
		memcpy(out, PQgetvalue(res, 0, 0), size - 1);
		out[size - 1] = '\0';
	}
	PQclear(res);
	return err;
}
