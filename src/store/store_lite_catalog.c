// SPDX-License-Identifier: MIT
/* Settings and services in the SQLite workspace (servers: store_lite_agents.c). */
#include "store/store_lite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

/* ---- settings ---- */

int lite__get_setting(struct store *s, const char *key, char *value, size_t size)
{
	sqlite3_stmt *st;
	int rc, err;

	/* A reader of a workspace from before settings: none set. */
	if (!lite__table_exists(s, "settings"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT value FROM settings WHERE key = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(value, size, "%s", (const char *)sqlite3_column_text(st, 0) ?: "");
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
}

int lite__put_setting(struct store *s, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	return lite__run(s, st);
}

/* ---- services ---- */

int lite__add_service(struct store *s, const struct service *svc, const char *match)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s,
			    "INSERT INTO services (name, match, value, added_at_ns)"
			    " VALUES (?, ?, ?, ?)",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, svc->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, match, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, svc->value, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, clock__realtime_ns());
	return lite__run(s, st); /* the name is the key: -EEXIST when taken */
}

int lite__remove_service(struct store *s, const char *name)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "DELETE FROM services WHERE name = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	if (!err && sqlite3_changes(s->db) == 0)
		err = -ENOENT;
	return err;
}

static int service_row(sqlite3_stmt *st, void *elem)
{
	struct service *svc = elem;
	int m = store__match_parse((const char *)sqlite3_column_text(st, 1));

	if (m < 0)
		return 0; /* a kind of match a later slideops added */
	svc->match = (enum service_match)m;
	svc->name = lite__text(st, 0);
	svc->value = lite__text(st, 2);
	return svc->name && svc->value ? 1 : -ENOMEM;
}

static void service_rows__free(void *rows, size_t n)
{
	services__free(rows, n);
}

int lite__list_services(struct store *s, struct service **out, size_t *n)
{
	return lite__select_rows(s, "SELECT name, match, value FROM services ORDER BY name",
				 sizeof(**out), service_row, service_rows__free, (void **)out, n);
}
