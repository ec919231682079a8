// SPDX-License-Identifier: MIT
/*
 * The SQLite workspace's schema, versioned by PRAGMA user_version, and its migrations:
 * a writer brings an older index up to date in one IMMEDIATE transaction (two first
 * runs at once create the tables once); a reader reads an older one as it is.
 */
#include "store/store_lite.h"

#include <errno.h>
#include <stdio.h>

/*
 * symbols.source holds enum symbol_source (0 upload, 1 symtab, 2 dynsym): the lowest
 * is the best table for a build, so "ORDER BY source LIMIT 1" picks it.
 * Times are Unix epoch nanoseconds.
 */
static const char schema_v1[] =
	"CREATE TABLE profiles ("
	"  id TEXT PRIMARY KEY,"
	"  question TEXT NOT NULL,"
	"  server TEXT NOT NULL,"
	"  started_at_ns INTEGER NOT NULL,"
	"  duration_ns INTEGER NOT NULL,"
	"  answer TEXT NOT NULL DEFAULT '',"
	"  blob TEXT NOT NULL,"
	"  saved_at_ns INTEGER NOT NULL);"
	"CREATE INDEX profiles_by_start ON profiles (started_at_ns);"
	"CREATE TABLE symbols ("
	"  build_id TEXT NOT NULL,"
	"  source INTEGER NOT NULL,"
	"  file_name TEXT NOT NULL DEFAULT '',"
	"  functions INTEGER NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (build_id, source));"
	"CREATE TABLE services ("
	"  name TEXT PRIMARY KEY,"
	"  match TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  added_at_ns INTEGER NOT NULL);";

/* v3: the servers of the workspace. The machine the workspace runs on is one of them
 * ("this server"); agents on other machines add theirs. */
static const char schema_v3[] =
	"CREATE TABLE servers ("
	"  id TEXT PRIMARY KEY,"
	"  hostname TEXT NOT NULL,"
	"  this_server INTEGER NOT NULL DEFAULT 0,"
	"  added_at_ns INTEGER NOT NULL);";


/* v2: saves in progress (pending), so that a sweep or `remove` only ever deletes files
 * this workspace said it was making; line tables by build id for exports. */
static const char schema_v2[] =
	"CREATE TABLE pending ("
	"  blob TEXT PRIMARY KEY,"
	"  tmp TEXT NOT NULL,"
	"  started_at_ns INTEGER NOT NULL);"
	"CREATE TABLE lines ("
	"  build_id TEXT PRIMARY KEY,"
	"  addresses INTEGER NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  data BLOB NOT NULL);";

/* v4: an index for each filter of the profile list (by server, by question), newest
 * first within it, so a page of a large workspace reads only its rows. */
static const char schema_v4[] =
	"CREATE INDEX profiles_by_server ON profiles (server, started_at_ns);"
	"CREATE INDEX profiles_by_question ON profiles (question, started_at_ns);";

/* v5: the workspace's settings (its retention). */
static const char schema_v5[] =
	"CREATE TABLE settings ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL);";

/* v6: agents. A server's name (unique among those not removed: profiles are listed by
 * it), what its agent said of itself, when it was last heard and removed; one-use
 * enrolment tokens and agents' credentials, by their SHA-256 only; the batches agents
 * delivered, so a batch sent again is stored once. */
static const char schema_v6[] =
	"ALTER TABLE servers ADD COLUMN name TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE servers ADD COLUMN machine_id TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE servers ADD COLUMN kernel TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE servers ADD COLUMN agent_version TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE servers ADD COLUMN boot_id TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE servers ADD COLUMN cpus INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE servers ADD COLUMN last_seen_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE servers ADD COLUMN removed_at_ns INTEGER NOT NULL DEFAULT 0;"
	"UPDATE servers SET name = hostname;"
	"CREATE TABLE enrolments ("
	"  token_hash TEXT PRIMARY KEY,"
	"  created_at_ns INTEGER NOT NULL,"
	"  expires_at_ns INTEGER NOT NULL,"
	"  used_at_ns INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE credentials ("
	"  hash TEXT PRIMARY KEY,"
	"  server_id TEXT NOT NULL,"
	"  created_at_ns INTEGER NOT NULL,"
	"  revoked_at_ns INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE batches ("
	"  server_id TEXT NOT NULL,"
	"  boot_id TEXT NOT NULL,"
	"  sequence INTEGER NOT NULL,"
	"  profile_id TEXT NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  PRIMARY KEY (server_id, boot_id, sequence));";

/* v7: agents' commands waiting for their poll (or delivered, and their replies), and
 * each server's last capture on its agent, so that every process of the workspace can
 * hand a command over and follow its capture. */
static const char schema_v7[] =
	"CREATE TABLE agent_commands ("
	"  id TEXT PRIMARY KEY,"
	"  server_id TEXT NOT NULL,"
	"  body TEXT NOT NULL,"
	"  queued_at_ns INTEGER NOT NULL,"
	"  delivered_at_ns INTEGER NOT NULL DEFAULT 0,"
	"  status INTEGER NOT NULL DEFAULT 0,"
	"  reply BLOB);"
	"CREATE INDEX agent_commands_waiting ON agent_commands (server_id, queued_at_ns)"
	"  WHERE delivered_at_ns = 0;"
	"CREATE TABLE agent_captures ("
	"  server_id TEXT PRIMARY KEY,"
	"  state TEXT NOT NULL,"
	"  updated_at_ns INTEGER NOT NULL);";

/* v8: the captures each server's agent said its spool dropped, counted in the
 * transaction that stores each batch, so the count outlives serve and every process of
 * the workspace shows it. */
static const char schema_v8[] =
	"ALTER TABLE servers ADD COLUMN spool_dropped INTEGER NOT NULL DEFAULT 0;";

/* v9: an agent's symbol and line tables are its own server's (docs/security.md): kept
 * apart from the workspace's own and users' uploads, by server; a delivered profile's
 * server, found from its batch; and the batches refused for what they held, by server. */
static const char schema_v9[] =
	"CREATE TABLE server_symbols ("
	"  server_id TEXT NOT NULL,"
	"  build_id TEXT NOT NULL,"
	"  source INTEGER NOT NULL,"
	"  functions INTEGER NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (server_id, build_id, source));"
	"CREATE TABLE server_lines ("
	"  server_id TEXT NOT NULL,"
	"  build_id TEXT NOT NULL,"
	"  addresses INTEGER NOT NULL,"
	"  stored_at_ns INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (server_id, build_id));"
	"CREATE INDEX batches_by_profile ON batches (profile_id);"
	"ALTER TABLE servers ADD COLUMN batches_refused INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE servers ADD COLUMN last_refusal TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE servers ADD COLUMN last_refusal_ns INTEGER NOT NULL DEFAULT 0;";

/* Creates the schema, or brings an older one up to date; refuses one a newer slideops
 * made, and an empty index beside profile blobs (it was emptied or replaced). */
int lite__migrate(struct store *s, bool write, size_t blobs)
{
	sqlite3_stmt *st;
	int version, err, rc;

	err = lite__prepare(s, "PRAGMA user_version", &st);
	if (err)
		return err;
	rc = sqlite3_step(st);
	version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (version < 0)
		return lite__err(s->db, rc) == -EBADMSG ? -EBADMSG : -EIO;
	if (version > LITE_SCHEMA_VERSION)
		return -EPROTO; /* a newer slideops made this workspace */
	if (version == 0 && blobs)
		return store__set_problem(-EUCLEAN, s->dir, "workspace.db", 0);
	if (version == LITE_SCHEMA_VERSION)
		return 0;
	/* A reader reads an older schema as it is: what v2 added (pending saves, line
	 * tables) reads as none. */
	if (!write)
		return 0;

	/* IMMEDIATE: two first runs at once must not both create the tables. */
	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = lite__prepare(s, "PRAGMA user_version", &st);
	if (err)
		goto out_rollback;
	version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (version < 0 || version > LITE_SCHEMA_VERSION) {
		err = version < 0 ? -EIO : -EPROTO;
		goto out_rollback;
	}
	if (version < 1)
		err = lite__exec(s, schema_v1);
	if (!err && version < 2)
		err = lite__exec(s, schema_v2);
	if (!err && version < 3)
		err = lite__exec(s, schema_v3);
	if (!err && version < 4)
		err = lite__exec(s, schema_v4);
	if (!err && version < 5)
		err = lite__exec(s, schema_v5);
	if (!err && version < 6)
		err = lite__exec(s, schema_v6);
	if (!err && version < 7)
		err = lite__exec(s, schema_v7);
	if (!err && version < 8)
		err = lite__exec(s, schema_v8);
	if (!err && version < 9)
		err = lite__exec(s, schema_v9);
	if (!err) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", LITE_SCHEMA_VERSION);
		err = lite__exec(s, sql);
	}
	if (err)
		goto out_rollback;
	return lite__exec(s, "COMMIT");

out_rollback:
	lite__exec(s, "ROLLBACK");
	return err;
}

/* A reader may open a workspace an older slideops made: its tables are as they were. */
bool lite__table_exists(struct store *s, const char *name)
{
	sqlite3_stmt *st;

	if (lite__prepare(s, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", &st))
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	return lite__any_row(s, st) == 1;
}

/* The same for a column of a table. */
bool lite__column_exists(struct store *s, const char *table, const char *column)
{
	sqlite3_stmt *st;

	if (lite__prepare(s, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", &st))
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	return lite__any_row(s, st) == 1;
}
