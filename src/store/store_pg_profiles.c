// SPDX-License-Identifier: MIT
/*
 * Profiles in the PostgreSQL workspace: the row in profiles, the gzip'd pprof in
 * profile_blobs, both written in one transaction. A process killed mid-save leaves
 * nothing: the database rolls the transaction back when its connection drops, so every
 * other workspace process lists only whole profiles.
 */
#include "store/store_pg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof.h"

/* Tries at a fresh id when one is taken (ids hold 16 random bits a second). */
#define ID_TRIES 64

int pg__save_profile(struct store *s, const struct profile_row *row, const void *blob,
		     size_t len, char id[STORE_ID_MAX])
{
	PGresult *res;
	int err, tries;

	err = pg__begin(s);
	if (err)
		return err;
	for (tries = 0; tries < ID_TRIES; tries++) {
		struct pg_args a = { 0 };
		uint64_t added;

		store__new_id(row->question, row->started_at_ns, id);
		pg_args__text(&a, id);
		pg_args__text(&a, question__id(row->question));
		pg_args__str(&a, row->server);
		pg_args__int64(&a, row->started_at_ns);
		pg_args__int64(&a, row->duration_ns);
		pg_args__str(&a, row->answer);
		pg_args__int64(&a, row->saved_at_ns);
		pg_args__int64(&a, (int64_t)len);
		err = pg__exec(s,
			       "INSERT INTO profiles (id, question, server, started_at_ns,"
			       " duration_ns, answer, saved_at_ns, bytes) VALUES"
			       " ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING",
			       &a, &res);
		if (err)
			goto out_rollback;
		added = pg__changed(res);
		PQclear(res);
		if (added)
			break;
	}
	if (tries == ID_TRIES) {
		err = -EEXIST;
		goto out_rollback;
	}
	{
		struct pg_args a = { 0 };

		pg_args__text(&a, id);
		pg_args__bytes(&a, blob, len);
		err = pg__exec(s, "INSERT INTO profile_blobs (id, data) VALUES ($1, $2)", &a,
			       NULL);
	}
	if (!err && row->batch)
		err = pg__keep_batch(s, row->batch, id, row->saved_at_ns);
	/* Listed with its blob (and its batch's key), or none of these. */
	if (!err)
		err = pg__commit(s);
	if (!err)
		return 0;
out_rollback:
	pg__rollback(s);
	return err;
}

int pg__load_profile(struct store *s, const char *id, struct profile **out)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	pg_args__text(&a, id);
	err = pg__exec(s, "SELECT b.data FROM profiles p LEFT JOIN profile_blobs b"
			  " ON b.id = p.id WHERE p.id = $1",
		       &a, &res);
	if (err)
		return err;
	if (PQntuples(res) == 0)
		err = -ENOENT;
	else if (PQgetisnull(res, 0, 0))
		err = -ENODATA;
	else
		err = pprof__decode(PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), out);
	PQclear(res);
	/* Listed but unreadable as a profile: the profile is damaged, not absent. */
	if (err == -EINVAL || err == -EFBIG)
		err = -EBADMSG;
	return err;
}

/* The filters of the list, only those asked, so the planner picks each one's index;
 * $5..$7 are the cursor's row, the page starting after it in the order of the list. */
static void filter_sql(const struct profile_query *q, bool with_cursor, char *out, size_t size)
{
	snprintf(out, size, " WHERE true%s%s%s", q->question >= 0 ? " AND question = $1" : "",
		 q->server ? " AND server = $2" : "",
		 with_cursor && q->after ? " AND (started_at_ns, saved_at_ns, id) <"
					   " ($5, $6, $7::text COLLATE \"C\")" :
					   "");
}

static void filter_args(struct pg_args *a, const struct profile_query *q)
{
	pg_args__text(a, q->question >= 0 ? question__id((enum question)q->question) : NULL);
	pg_args__str(a, q->server);
}

static int profile_rows(const PGresult *res, struct profile_entry **out, size_t *n)
{
	int rows = PQntuples(res);
	struct profile_entry *e = calloc(rows ? (size_t)rows : 1, sizeof(*e));
	size_t count = 0;

	if (!e)
		return -ENOMEM;
	for (int r = 0; r < rows; r++) {
		struct profile_entry *pe = &e[count];
		int q = question__parse(PQgetvalue(res, r, 1));

		/* A question a later slideops added is not one this one can show. */
		if (q < 0 || PQgetlength(res, r, 0) >= STORE_ID_MAX)
			continue;
		strcpy(pe->id, PQgetvalue(res, r, 0));
		pe->question = (enum question)q;
		pe->server = pg__str(res, r, 2);
		pe->started_at_ns = pg__int64(res, r, 3);
		pe->duration_ns = (uint64_t)pg__int64(res, r, 4);
		pe->answer = pg__str(res, r, 5);
		pe->saved_at_ns = pg__int64(res, r, 6);
		count++;
		if (!pe->server || !pe->answer) {
			profile_entries__free(e, count);
			return -ENOMEM;
		}
	}
	*out = e;
	*n = count;
	return 0;
}

int pg__query_profiles(struct store *s, const struct profile_query *q,
		       struct profile_entry **out, size_t *n, uint64_t *total)
{
	int64_t started, saved, limit, offset;
	char where[256], sql[512];
	struct pg_args a = { 0 };
	char id[STORE_ID_MAX];
	PGresult *res;
	int err;

	if (q->after && store__parse_cursor(q->after, &started, &saved, id))
		return -EINVAL;
	/* The count and the page from one snapshot: the total is the page's. */
	err = pg__exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, NULL);
	if (err)
		return err;
	filter_args(&a, q);
	filter_sql(q, false, where, sizeof(where));
	/* From version 3 the counts are kept per server and question: a sum of at most
	 * servers x questions rows, however many profiles there are. */
	snprintf(sql, sizeof(sql), s->pg_version >= 3 ?
		 "SELECT coalesce(sum(n), 0)::bigint FROM profile_counts%s" :
		 "SELECT count(*) FROM profiles%s", where);
	err = pg__exec(s, sql, &a, &res);
	if (err)
		goto out_end;
	*total = (uint64_t)pg__int64(res, 0, 0);
	PQclear(res);
	limit = q->limit && q->limit <= INT64_MAX ? (int64_t)q->limit : INT64_MAX;
	offset = q->offset <= INT64_MAX ? (int64_t)q->offset : INT64_MAX;
	pg_args__int64(&a, limit);
	pg_args__int64(&a, offset);
	pg_args__int64_or_null(&a, q->after ? &started : NULL);
	pg_args__int64_or_null(&a, q->after ? &saved : NULL);
	pg_args__text(&a, q->after ? id : NULL);
	/* Only rows are read, never a blob: a page costs its rows. */
	filter_sql(q, true, where, sizeof(where));
	snprintf(sql, sizeof(sql),
		 "SELECT id, question, server, started_at_ns, duration_ns, answer, saved_at_ns"
		 " FROM profiles%s ORDER BY started_at_ns DESC, saved_at_ns DESC, id DESC"
		 " LIMIT $3 OFFSET $4",
		 where);
	err = pg__exec(s, sql, &a, &res);
	if (err)
		goto out_end;
	err = profile_rows(res, out, n);
	PQclear(res);
out_end:
	pg__rollback(s);
	return err;
}

int pg__set_answer(struct store *s, const char *id, const char *answer)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, answer);
	pg_args__text(&a, id);
	return pg__exec_one_row(s, "UPDATE profiles SET answer = $1 WHERE id = $2", &a);
}

int pg__refresh_answer(struct store *s, const char *id, const char *answer)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	/* Written only when the words changed. */
	pg_args__str(&a, answer);
	pg_args__text(&a, id);
	err = pg__exec(s, "WITH changed AS (UPDATE profiles SET answer = $1 WHERE id = $2"
			  " AND answer <> $1 RETURNING 1)"
			  " SELECT EXISTS (SELECT 1 FROM profiles WHERE id = $2)",
		       &a, &res);
	if (err)
		return err;
	err = *PQgetvalue(res, 0, 0) ? 0 : -ENOENT;
	PQclear(res);
	return err;
}

int pg__delete_profile(struct store *s, const char *id)
{
	struct pg_args a = { 0 };

	/* Its blob goes with it (ON DELETE CASCADE), in the same statement. */
	pg_args__text(&a, id);
	return pg__exec_one_row(s, "DELETE FROM profiles WHERE id = $1", &a);
}

int pg__prune_profiles(struct store *s, int64_t before_ns, size_t max, size_t *deleted)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	*deleted = 0;
	pg_args__int64(&a, before_ns);
	pg_args__int64(&a, (int64_t)max);
	err = pg__exec(s, "DELETE FROM profiles WHERE id IN (SELECT id FROM profiles"
			  " WHERE started_at_ns < $1 ORDER BY started_at_ns LIMIT $2)",
		       &a, &res);
	if (err)
		return err;
	*deleted = (size_t)pg__changed(res);
	PQclear(res);
	return 0;
}
