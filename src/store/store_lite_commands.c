// SPDX-License-Identifier: MIT
/* Agents' commands and captures in the SQLite workspace (store.h). A workspace an older
 * slideops made has none until a writer migrates it. */
#include "store/store_lite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lite__queue_command(struct store *s, const char *server_id, const char *id,
			const char *body, int64_t now_ns, int64_t forget_before_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "DELETE FROM agent_commands WHERE queued_at_ns < ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, forget_before_ns);
	err = lite__run(s, st);
	if (!err)
		err = lite__prepare(s, "INSERT INTO agent_commands (id, server_id, body,"
				       " queued_at_ns) VALUES (?, ?, ?, ?)", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, body, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now_ns);
	return lite__run(s, st);
}

int lite__take_commands(struct store *s, const char *server_id, int64_t now_ns, size_t max,
			char ***bodies, size_t *n)
{
	sqlite3_stmt *st = NULL, *mark = NULL;
	char **got = calloc(max, sizeof(*got));
	size_t k = 0;
	int rc, err;

	if (!got)
		return -ENOMEM;
	/* Most polls find none: asked first without the write lock a batch may hold. */
	err = lite__prepare(s, "SELECT 1 FROM agent_commands WHERE server_id = ? AND"
			       " delivered_at_ns = 0 LIMIT 1", &st);
	if (!err) {
		sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
		err = lite__any_row(s, st);
		st = NULL;
	}
	if (err <= 0) {
		free(got);
		return err;
	}
	/* IMMEDIATE: another process taking them at once waits, then finds none. */
	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err) {
		free(got);
		return err;
	}
	err = lite__prepare(s, "SELECT id, body FROM agent_commands WHERE server_id = ? AND"
			       " delivered_at_ns = 0 ORDER BY queued_at_ns, rowid LIMIT ?", &st);
	if (!err)
		err = lite__prepare(s, "UPDATE agent_commands SET delivered_at_ns = ? WHERE id = ?",
				    &mark);
	if (!err) {
		sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)max);
		sqlite3_bind_int64(mark, 1, now_ns);
	}
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		got[k] = lite__text(st, 1);
		if (!got[k]) {
			err = -ENOMEM;
			break;
		}
		k++;
		sqlite3_bind_text(mark, 2, (const char *)sqlite3_column_text(st, 0), -1,
				  SQLITE_TRANSIENT);
		rc = sqlite3_step(mark);
		sqlite3_reset(mark);
		if (rc != SQLITE_DONE)
			err = lite__err(s->db, rc);
	}
	if (!err && rc != SQLITE_DONE)
		err = lite__err(s->db, rc);
	sqlite3_finalize(st);
	sqlite3_finalize(mark);
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (err) {
		lite__exec(s, "ROLLBACK");
		store__free_strings(got, k);
		return err;
	}
	*bodies = got;
	*n = k;
	return 0;
}

int lite__unqueue_command(struct store *s, const char *server_id, const char *id)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "DELETE FROM agent_commands WHERE id = ? AND server_id = ? AND"
			       " delivered_at_ns = 0", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, server_id, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	return !err && sqlite3_changes(s->db) != 1 ? -ENOENT : err;
}

int lite__reply_command(struct store *s, const char *server_id, const char *id, int status,
			const char *doc)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "UPDATE agent_commands SET status = ?, reply = ? WHERE id = ? AND"
			       " server_id = ? AND status = 0", &st);
	if (err)
		return err;
	sqlite3_bind_int(st, 1, status);
	sqlite3_bind_blob(st, 2, doc, (int)strlen(doc), SQLITE_STATIC);
	sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, server_id, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	return !err && sqlite3_changes(s->db) != 1 ? -ENOENT : err;
}

int lite__command_reply(struct store *s, const char *server_id, const char *id, int *status,
			char **doc)
{
	sqlite3_stmt *st;
	int rc, err;

	if (!lite__table_exists(s, "agent_commands"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT status, reply FROM agent_commands WHERE id = ? AND"
			       " server_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, server_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int(st, 0) == 0) {
		err = -EAGAIN;
	} else if (rc == SQLITE_ROW) {
		*status = sqlite3_column_int(st, 0);
		*doc = strndup((const char *)sqlite3_column_blob(st, 1) ?: "",
			       (size_t)sqlite3_column_bytes(st, 1));
		err = *doc ? 0 : -ENOMEM;
	} else {
		err = rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
	}
	sqlite3_finalize(st);
	return err;
}

int lite__servers_waiting(struct store *s, char ***ids, size_t *n)
{
	sqlite3_stmt *st;
	char **got = NULL, **grown;
	size_t k = 0;
	int rc, err;

	if (!lite__table_exists(s, "agent_commands"))
		return 0;
	err = lite__prepare(s, "SELECT DISTINCT server_id FROM agent_commands WHERE"
			       " delivered_at_ns = 0", &st);
	if (err)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		grown = realloc(got, (k + 1) * sizeof(*got));
		if (!grown || !(grown[k] = lite__text(st, 0))) {
			got = grown ? grown : got;
			rc = SQLITE_NOMEM;
			break;
		}
		got = grown;
		k++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store__free_strings(got, k);
		return rc == SQLITE_NOMEM ? -ENOMEM : lite__err(s->db, rc);
	}
	*ids = got;
	*n = k;
	return 0;
}

int lite__put_agent_capture(struct store *s, const char *server_id, const char *state,
			    int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT INTO agent_captures (server_id, state, updated_at_ns)"
			       " VALUES (?, ?, ?) ON CONFLICT (server_id) DO UPDATE SET"
			       " state = excluded.state, updated_at_ns = excluded.updated_at_ns",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now_ns);
	return lite__run(s, st);
}

int lite__get_agent_capture(struct store *s, const char *server_id, char **state)
{
	sqlite3_stmt *st;
	int rc, err;

	if (!lite__table_exists(s, "agent_captures"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT state FROM agent_captures WHERE server_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*state = lite__text(st, 0);
		err = *state ? 0 : -ENOMEM;
	} else {
		err = rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
	}
	sqlite3_finalize(st);
	return err;
}
