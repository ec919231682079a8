// SPDX-License-Identifier: MIT
/*
 * Symbol and line tables by build id in the SQLite workspace, and the uploads among
 * them. symbols.source holds enum symbol_source (0 upload, 1 symtab, 2 dynsym): the
 * lowest is the best table for a build, so "ORDER BY source LIMIT 1" picks it.
 */
#include "store/store_lite.h"

#include <errno.h>
#include <string.h>

#include "util/clock.h"

int lite__put_symbols(struct store *s, const char *bid, enum symbol_source src,
		      const char *file_name, uint64_t functions, const void *data, size_t len)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s,
			    "INSERT OR REPLACE INTO symbols (build_id, source, file_name, functions,"
			    " stored_at_ns, data) VALUES (?, ?, ?, ?, ?, ?)",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)src);
	sqlite3_bind_text(st, 3, file_name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)functions);
	sqlite3_bind_int64(st, 5, clock__realtime_ns());
	sqlite3_bind_blob(st, 6, data, (int)len, SQLITE_STATIC);
	return lite__run(s, st);
}

int lite__has_symbols(struct store *s, const char *bid, enum symbol_source src)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "SELECT 1 FROM symbols WHERE build_id = ? AND source = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)src);
	return lite__any_row(s, st);
}

/* The first row's columns 0 (when src) and col of a statement bound by the caller. */
static int one_blob(struct store *s, sqlite3_stmt *st, int col, enum symbol_source *src,
		    void **data, size_t *len)
{
	int rc = sqlite3_step(st), err;

	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
	}
	if (src)
		*src = (enum symbol_source)sqlite3_column_int(st, 0);
	err = lite__blob(st, col, data, len);
	sqlite3_finalize(st);
	return err;
}

int lite__get_symbols(struct store *s, const char *bid, enum symbol_source min,
		      enum symbol_source *src, void **data, size_t *len)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s,
			    "SELECT source, data FROM symbols WHERE build_id = ? AND source >= ?"
			    " ORDER BY source LIMIT 1",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)min);
	return one_blob(s, st, 1, src, data, len);
}

/* ---- an agent's tables, its server's alone ---- */

int lite__put_server_symbols(struct store *s, const char *server_id, const char *bid,
			     enum symbol_source src, uint64_t functions, const void *data,
			     size_t len)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s,
			    "INSERT OR REPLACE INTO server_symbols (server_id, build_id, source,"
			    " functions, stored_at_ns, data) VALUES (?, ?, ?, ?, ?, ?)",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, (int)src);
	sqlite3_bind_int64(st, 4, (int64_t)functions);
	sqlite3_bind_int64(st, 5, clock__realtime_ns());
	sqlite3_bind_blob(st, 6, data, (int)len, SQLITE_STATIC);
	return lite__run(s, st);
}

int lite__has_server_symbols(struct store *s, const char *server_id, const char *bid,
			     enum symbol_source src)
{
	sqlite3_stmt *st;
	int err;

	if (!lite__table_exists(s, "server_symbols"))
		return 0;
	err = lite__prepare(s, "SELECT 1 FROM server_symbols WHERE server_id = ? AND"
			       " build_id = ? AND source = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, (int)src);
	return lite__any_row(s, st);
}

int lite__get_server_symbols(struct store *s, const char *server_id, const char *bid,
			     enum symbol_source *src, void **data, size_t *len)
{
	sqlite3_stmt *st;
	int err;

	if (!lite__table_exists(s, "server_symbols"))
		return -ENOENT;
	err = lite__prepare(s,
			    "SELECT source, data FROM server_symbols WHERE server_id = ? AND"
			    " build_id = ? ORDER BY source LIMIT 1",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bid, -1, SQLITE_STATIC);
	return one_blob(s, st, 1, src, data, len);
}

int lite__put_server_lines(struct store *s, const char *server_id, const char *bid,
			   uint64_t addresses, const void *data, size_t len)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s,
			    "INSERT OR REPLACE INTO server_lines (server_id, build_id, addresses,"
			    " stored_at_ns, data) VALUES (?, ?, ?, ?, ?)",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)addresses);
	sqlite3_bind_int64(st, 4, clock__realtime_ns());
	sqlite3_bind_blob(st, 5, data, (int)len, SQLITE_STATIC);
	return lite__run(s, st);
}

int lite__get_server_lines(struct store *s, const char *server_id, const char *bid,
			   void **data, size_t *len)
{
	sqlite3_stmt *st;
	int err;

	if (!lite__table_exists(s, "server_lines"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT data FROM server_lines WHERE server_id = ? AND"
			       " build_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, bid, -1, SQLITE_STATIC);
	return one_blob(s, st, 0, NULL, data, len);
}

int lite__profile_server(struct store *s, const char *id, char server_id[STORE_ID_MAX])
{
	sqlite3_stmt *st;
	int rc, err;

	if (!lite__table_exists(s, "batches"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT server_id FROM batches WHERE profile_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(server_id, STORE_ID_MAX, "%s",
			 (const char *)sqlite3_column_text(st, 0) ?: "");
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
}

int lite__put_lines(struct store *s, const char *bid, uint64_t addresses, const void *data,
		    size_t len)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s,
			    "INSERT OR REPLACE INTO lines (build_id, addresses, stored_at_ns, data)"
			    " VALUES (?, ?, ?, ?)",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)addresses);
	sqlite3_bind_int64(st, 3, clock__realtime_ns());
	sqlite3_bind_blob(st, 4, data, (int)len, SQLITE_STATIC);
	return lite__run(s, st);
}

int lite__get_lines(struct store *s, const char *bid, void **data, size_t *len)
{
	sqlite3_stmt *st;
	int err;

	/* A reader of a workspace from before line tables: none kept. */
	if (!lite__table_exists(s, "lines"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT data FROM lines WHERE build_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, bid, -1, SQLITE_STATIC);
	return one_blob(s, st, 0, NULL, data, len);
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
	ue->file_name = lite__text(st, 0);
	return ue->file_name ? 1 : -ENOMEM;
}

static void upload_rows__free(void *rows, size_t n)
{
	upload_entries__free(rows, n);
}

int lite__list_uploads(struct store *s, struct upload_entry **out, size_t *n)
{
	return lite__select_rows(s,
				 "SELECT file_name, functions, build_id, stored_at_ns FROM symbols"
				 " WHERE source = 0 ORDER BY stored_at_ns DESC, build_id",
				 sizeof(**out), upload_row, upload_rows__free, (void **)out, n);
}

int lite__delete_upload(struct store *s, const char *prefix,
			char deleted[BUILD_ID_HEX_MAX + 1])
{
	char found[BUILD_ID_HEX_MAX + 1] = "";
	sqlite3_stmt *st;
	int rc, err, matches = 0;

	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	/* The whole id wins even when it also starts a longer one (Go build ids vary). */
	err = lite__prepare(s,
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
		err = lite__err(s->db, rc);
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
	err = lite__prepare(s, "DELETE FROM symbols WHERE source = 0 AND build_id = ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, found, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (err)
		goto out_rollback;
	strcpy(deleted, found);
	return 0;

out_rollback:
	lite__exec(s, "ROLLBACK");
	return err;
}
