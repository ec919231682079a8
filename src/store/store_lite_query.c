// SPDX-License-Identifier: MIT
/*
 * The SQLite workspace's profile index read and annotated: profiles listed by a query
 * (filter, order, cursor) and a profile's answer set or refreshed. Blobs are not touched
 * here; saving, loading and deleting them is store_lite_profiles.c.
 */
#include "store/store_lite.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	pe->server = lite__text(st, 2);
	pe->started_at_ns = sqlite3_column_int64(st, 3);
	pe->duration_ns = (uint64_t)sqlite3_column_int64(st, 4);
	pe->answer = lite__text(st, 5);
	pe->saved_at_ns = sqlite3_column_int64(st, 6);
	return pe->server && pe->answer ? 1 : -ENOMEM;
}

static void profile_rows__free(void *rows, size_t n)
{
	profile_entries__free(rows, n);
}

/* The filters of a page of profiles, as SQL, only those asked: a planner then picks the
 * index of each (an "?1 IS NULL OR" would hide it). ?5..?7 are the cursor's row, the page
 * starting after it in the order of the list. */
static void filter_sql(const struct profile_query *q, bool with_cursor, char *out, size_t size)
{
	snprintf(out, size, " WHERE 1%s%s%s", q->question >= 0 ? " AND question = ?1" : "",
		 q->server ? " AND server = ?2" : "",
		 with_cursor && q->after ? " AND (started_at_ns, saved_at_ns, id) < (?5, ?6, ?7)" :
					   "");
}

static int bind_filter(sqlite3_stmt *st, const struct profile_query *q, bool with_cursor)
{
	int64_t started, saved;
	char id[STORE_ID_MAX];

	if (q->question >= 0)
		sqlite3_bind_text(st, 1, question__id((enum question)q->question), -1,
				  SQLITE_STATIC);
	if (q->server)
		sqlite3_bind_text(st, 2, q->server, -1, SQLITE_STATIC);
	if (!q->after || !with_cursor)
		return 0;
	if (store__parse_cursor(q->after, &started, &saved, id))
		return -EINVAL;
	sqlite3_bind_int64(st, 5, started);
	sqlite3_bind_int64(st, 6, saved);
	sqlite3_bind_text(st, 7, id, -1, SQLITE_TRANSIENT);
	return 0;
}

int lite__query_profiles(struct store *s, const struct profile_query *q,
			 struct profile_entry **out, size_t *n, uint64_t *total)
{
	char where[256], sql[512];
	sqlite3_stmt *st;
	int rc, err;

	/* The count and the page in one read transaction: total matches the page. */
	err = lite__exec(s, "BEGIN");
	if (err)
		return err;
	/* The total counts every match, the cursor's page or not. */
	filter_sql(q, false, where, sizeof(where));
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM profiles%s", where);
	err = lite__prepare(s, sql, &st);
	if (err)
		goto out_end;
	bind_filter(st, q, false);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*total = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		err = lite__err(s->db, rc);
		goto out_end;
	}
	/* Only the index is read: a page costs its rows, whatever the workspace holds. */
	filter_sql(q, true, where, sizeof(where));
	snprintf(sql, sizeof(sql),
		 "SELECT id, question, server, started_at_ns, duration_ns, answer, saved_at_ns"
		 " FROM profiles%s ORDER BY started_at_ns DESC, saved_at_ns DESC, id DESC"
		 " LIMIT ?3 OFFSET ?4",
		 where);
	err = lite__prepare(s, sql, &st);
	if (err)
		goto out_end;
	err = bind_filter(st, q, true);
	if (err) {
		sqlite3_finalize(st);
		goto out_end;
	}
	sqlite3_bind_int64(st, 3, q->limit && q->limit <= INT64_MAX ? (sqlite3_int64)q->limit : -1);
	sqlite3_bind_int64(st, 4, q->offset <= INT64_MAX ? (sqlite3_int64)q->offset : INT64_MAX);
	err = lite__fetch_rows(s, st, sizeof(**out), profile_row, profile_rows__free,
			       (void **)out, n);
out_end:
	lite__exec(s, "COMMIT");
	return err;
}

int lite__set_answer(struct store *s, const char *id, const char *answer)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "UPDATE profiles SET answer = ? WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, answer, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	if (!err && sqlite3_changes(s->db) == 0)
		err = -ENOENT;
	return err;
}

int lite__refresh_answer(struct store *s, const char *id, const char *answer)
{
	char path[PATH_MAX];
	sqlite3_stmt *st;
	sqlite3 *db = NULL;
	bool same;
	int rc;

	if (lite__prepare(s, "SELECT answer FROM profiles WHERE id = ?", &st))
		return -EIO;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	same = rc == SQLITE_ROW &&
	       strcmp((const char *)sqlite3_column_text(st, 0) ?: "", answer) == 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW || same)
		return rc == SQLITE_ROW ? 0 : -ENOENT;
	if (s->writable)
		return lite__set_answer(s, id, answer);
	/* A reader writes only when the words changed, and only if it can. */
	lite__db_path(s, path, sizeof(path), false);
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, LITE_BUSY_TIMEOUT_MS);
		rc = sqlite3_prepare_v2(db, "UPDATE profiles SET answer = ? WHERE id = ?", -1, &st,
					NULL);
	}
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, answer, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_finalize(st);
	}
	sqlite3_close_v2(db);
	return rc == SQLITE_OK ? 0 : -EROFS;
}
