// SPDX-License-Identifier: MIT
/*
 * The SQLite backend: DIR/workspace.db (the profiles index, symbol and line tables by
 * build id, services, servers) and DIR/profiles/ID.pb.gz (one gzip'd pprof a profile).
 * This file: the SQL helpers its files share, and its operations table.
 *
 * Symbol tables are small compressed blobs in the database itself: they are read once
 * per profile shown and replaced by build id, which SQLite does atomically for free.
 * Several slideops processes may share a workspace, hence a busy timeout.
 */
#include "store/store_lite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lite__err(sqlite3 *db, int rc)
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

int lite__exec(struct store *s, const char *sql)
{
	return lite__err(s->db, sqlite3_exec(s->db, sql, NULL, NULL, NULL));
}

int lite__prepare(struct store *s, const char *sql, sqlite3_stmt **st)
{
	return lite__err(s->db, sqlite3_prepare_v2(s->db, sql, -1, st, NULL));
}

int lite__run(struct store *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lite__err(s->db, rc);
}

int lite__any_row(struct store *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : lite__err(s->db, rc);
}

char *lite__text(sqlite3_stmt *st, int col)
{
	return store__strdup((const char *)sqlite3_column_text(st, col));
}

int lite__blob(sqlite3_stmt *st, int col, void **data, size_t *len)
{
	const void *b = sqlite3_column_blob(st, col);
	int bytes = sqlite3_column_bytes(st, col);

	*len = bytes > 0 ? (size_t)bytes : 0;
	*data = malloc(*len ? *len : 1);
	if (!*data)
		return -ENOMEM;
	if (*len)
		memcpy(*data, b, *len);
	return 0;
}

int lite__select_rows(struct store *s, const char *sql, size_t elem_size,
		      int (*row)(sqlite3_stmt *st, void *elem),
		      void (*free_rows)(void *rows, size_t n), void **out, size_t *n)
{
	sqlite3_stmt *st;
	int err;

	*out = NULL;
	*n = 0;
	err = lite__prepare(s, sql, &st);
	if (err)
		return err;
	return lite__fetch_rows(s, st, elem_size, row, free_rows, out, n);
}

int lite__fetch_rows(struct store *s, sqlite3_stmt *st, size_t elem_size,
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
		err = lite__err(s->db, rc);
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

const struct store_ops store_lite_ops = {
	.close = lite__close,
	.exists = lite__exists,
	.free_space = lite__free_space,
	.check_writable = lite__check_writable,
	.leftovers = lite__leftovers,
	.save_profile = lite__save_profile,
	.load_profile = lite__load_profile,
	.query_profiles = lite__query_profiles,
	.set_answer = lite__set_answer,
	.refresh_answer = lite__refresh_answer,
	.delete_profile = lite__delete_profile,
	.prune_profiles = lite__prune_profiles,
	.get_setting = lite__get_setting,
	.put_setting = lite__put_setting,
	.put_symbols = lite__put_symbols,
	.has_symbols = lite__has_symbols,
	.get_symbols = lite__get_symbols,
	.put_lines = lite__put_lines,
	.get_lines = lite__get_lines,
	.list_uploads = lite__list_uploads,
	.delete_upload = lite__delete_upload,
	.add_service = lite__add_service,
	.remove_service = lite__remove_service,
	.list_services = lite__list_services,
	.put_server = lite__put_server,
	.list_servers = lite__list_servers,
	.put_enrolment = lite__put_enrolment,
	.enrolment_valid = lite__enrolment_valid,
	.put_server_symbols = lite__put_server_symbols,
	.has_server_symbols = lite__has_server_symbols,
	.get_server_symbols = lite__get_server_symbols,
	.profile_server = lite__profile_server,
	.server_refused = lite__server_refused,
	.put_server_lines = lite__put_server_lines,
	.get_server_lines = lite__get_server_lines,
	.enrol = lite__enrol,
	.authenticate = lite__authenticate,
	.server_seen = lite__server_seen,
	.remove_server = lite__remove_server,
	.find_batch = lite__find_batch,
	.queue_command = lite__queue_command,
	.take_commands = lite__take_commands,
	.unqueue_command = lite__unqueue_command,
	.reply_command = lite__reply_command,
	.command_reply = lite__command_reply,
	.servers_waiting = lite__servers_waiting,
	.put_agent_capture = lite__put_agent_capture,
	.get_agent_capture = lite__get_agent_capture,
};
