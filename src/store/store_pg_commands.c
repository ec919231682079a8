// SPDX-License-Identifier: MIT
/* Agents' commands and captures in the PostgreSQL workspace (store.h). A database an
 * older slideops made has none until a writer migrates it. */
#include "store/store_pg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg__queue_command(struct store *s, const char *server_id, const char *id,
		      const char *body, int64_t now_ns, int64_t forget_before_ns)
{
	struct pg_args forget = { 0 }, a = { 0 };
	int err;

	pg_args__int64(&forget, forget_before_ns);
	err = pg__exec(s, "DELETE FROM agent_commands WHERE queued_at_ns < $1", &forget, NULL);
	if (err)
		return err;
	pg_args__text(&a, id);
	pg_args__str(&a, server_id);
	pg_args__str(&a, body);
	pg_args__int64(&a, now_ns);
	return pg__exec(s, "INSERT INTO agent_commands (id, server_id, body, queued_at_ns)"
			   " VALUES ($1, $2, $3, $4)", &a, NULL);
}

/* Rows of one bytea column as strings. */
static int strings_of(PGresult *res, int col, char ***out, size_t *n)
{
	int rows = PQntuples(res);
	char **got = calloc((size_t)rows + 1, sizeof(*got));

	if (!got)
		return -ENOMEM;
	for (int i = 0; i < rows; i++) {
		got[i] = pg__str(res, i, col);
		if (!got[i]) {
			store__free_strings(got, (size_t)i);
			return -ENOMEM;
		}
	}
	*out = got;
	*n = (size_t)rows;
	return 0;
}

int pg__take_commands(struct store *s, const char *server_id, int64_t now_ns, size_t max,
		      char ***bodies, size_t *n)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	pg_args__int64(&a, now_ns);
	pg_args__str(&a, server_id);
	pg_args__int64(&a, (int64_t)max);
	/* One statement: the rows are locked as they are picked, so another process taking
	 * them at once waits, then finds them delivered. */
	err = pg__exec(s, "WITH taken AS (UPDATE agent_commands SET delivered_at_ns = $1"
			  " WHERE id IN (SELECT id FROM agent_commands WHERE server_id = $2 AND"
			  " delivered_at_ns = 0 ORDER BY queued_at_ns, id LIMIT $3 FOR UPDATE)"
			  " AND delivered_at_ns = 0 RETURNING body, queued_at_ns, id)"
			  " SELECT body FROM taken ORDER BY queued_at_ns, id", &a, &res);
	if (err)
		return err;
	err = strings_of(res, 0, bodies, n);
	PQclear(res);
	return err;
}

int pg__unqueue_command(struct store *s, const char *server_id, const char *id)
{
	struct pg_args a = { 0 };

	pg_args__text(&a, id);
	pg_args__str(&a, server_id);
	return pg__exec_one_row(s, "DELETE FROM agent_commands WHERE id = $1 AND"
				   " server_id = $2 AND delivered_at_ns = 0", &a);
}

int pg__reply_command(struct store *s, const char *server_id, const char *id, int status,
		      const char *doc)
{
	struct pg_args a = { 0 };

	pg_args__int32(&a, status);
	pg_args__str(&a, doc);
	pg_args__text(&a, id);
	pg_args__str(&a, server_id);
	return pg__exec_one_row(s, "UPDATE agent_commands SET status = $1, reply = $2 WHERE"
				   " id = $3 AND server_id = $4 AND status = 0", &a);
}

int pg__command_reply(struct store *s, const char *server_id, const char *id, int *status,
		      char **doc)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 5)
		return -ENOENT;
	pg_args__text(&a, id);
	pg_args__str(&a, server_id);
	err = pg__exec(s, "SELECT status, coalesce(reply, ''::bytea) FROM agent_commands"
			  " WHERE id = $1 AND server_id = $2", &a, &res);
	if (err)
		return err;
	if (PQntuples(res) < 1) {
		err = -ENOENT;
	} else if (pg__int32(res, 0, 0) == 0) {
		err = -EAGAIN;
	} else {
		*status = pg__int32(res, 0, 0);
		*doc = pg__str(res, 0, 1);
		err = *doc ? 0 : -ENOMEM;
	}
	PQclear(res);
	return err;
}

int pg__servers_waiting(struct store *s, char ***ids, size_t *n)
{
	PGresult *res;
	int err;

	if (s->pg_version < 5)
		return 0;
	err = pg__exec(s, "SELECT DISTINCT server_id FROM agent_commands WHERE"
			  " delivered_at_ns = 0", NULL, &res);
	if (err)
		return err;
	err = strings_of(res, 0, ids, n);
	PQclear(res);
	return err;
}

int pg__put_agent_capture(struct store *s, const char *server_id, const char *state,
			  int64_t now_ns)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, server_id);
	pg_args__str(&a, state);
	pg_args__int64(&a, now_ns);
	return pg__exec(s, "INSERT INTO agent_captures (server_id, state, updated_at_ns)"
			   " VALUES ($1, $2, $3) ON CONFLICT (server_id) DO UPDATE SET"
			   " state = excluded.state, updated_at_ns = excluded.updated_at_ns",
			&a, NULL);
}

int pg__get_agent_capture(struct store *s, const char *server_id, char **state)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 5)
		return -ENOENT;
	pg_args__str(&a, server_id);
	err = pg__exec(s, "SELECT state FROM agent_captures WHERE server_id = $1", &a, &res);
	if (err)
		return err;
	if (PQntuples(res) < 1) {
		err = -ENOENT;
	} else {
		*state = pg__str(res, 0, 0);
		err = *state ? 0 : -ENOMEM;
	}
	PQclear(res);
	return err;
}
