// SPDX-License-Identifier: MIT
/* Servers, enrolments, credentials and delivered batches in the SQLite workspace. */
#include "store/store_lite.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/server_name.h"

/* ---- servers ---- */

int lite__put_server(struct store *s, const struct server_entry *srv, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT INTO servers (id, hostname, this_server, added_at_ns, name)"
			       " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
			       " hostname = excluded.hostname, this_server = excluded.this_server,"
			       " name = excluded.name",
			    &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, srv->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, srv->hostname, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, srv->this_server);
	sqlite3_bind_int64(st, 4, now_ns);
	sqlite3_bind_text(st, 5, srv->name, -1, SQLITE_STATIC);
	return lite__run(s, st);
}

#define SERVER_COLUMNS "id, hostname, this_server, added_at_ns, name, machine_id, kernel," \
		       " agent_version, boot_id, cpus, last_seen_ns, removed_at_ns"

static int server_row(sqlite3_stmt *st, void *row)
{
	struct server_entry *e = row;
	const char *id = (const char *)sqlite3_column_text(st, 0);
	bool agents = sqlite3_column_count(st) > 4;

	snprintf(e->id, sizeof(e->id), "%s", id ? id : "");
	e->hostname = lite__text(st, 1);
	e->this_server = sqlite3_column_int(st, 2) != 0;
	e->added_at_ns = sqlite3_column_int64(st, 3);
	/* A reader of a workspace from before agents: the name is the hostname. */
	e->name = agents ? lite__text(st, 4) : lite__text(st, 1);
	e->machine_id = agents ? lite__text(st, 5) : strdup("");
	e->kernel = agents ? lite__text(st, 6) : strdup("");
	e->agent_version = agents ? lite__text(st, 7) : strdup("");
	e->boot_id = agents ? lite__text(st, 8) : strdup("");
	if (agents) {
		e->cpus = (uint32_t)sqlite3_column_int64(st, 9);
		e->last_seen_ns = sqlite3_column_int64(st, 10);
		e->removed_at_ns = sqlite3_column_int64(st, 11);
	}
	/* A reader of a workspace from before the count (v8): none counted. */
	if (sqlite3_column_count(st) > 12)
		e->spool_dropped = (uint64_t)sqlite3_column_int64(st, 12);
	/* From before refusals were kept (v9): none. */
	if (sqlite3_column_count(st) > 15) {
		e->batches_refused = (uint64_t)sqlite3_column_int64(st, 13);
		e->last_refusal = lite__text(st, 14);
		e->last_refusal_ns = sqlite3_column_int64(st, 15);
	} else {
		e->last_refusal = strdup("");
	}
	return e->hostname && e->name && e->machine_id && e->kernel && e->agent_version &&
			       e->boot_id && e->last_refusal ? 1 : -ENOMEM;
}

static void server_rows__free(void *rows, size_t n)
{
	server_entries__free(rows, n);
}

int lite__list_servers(struct store *s, struct server_entry **out, size_t *n)
{
	const char *sql;

	/* A reader of a workspace from before servers: none. */
	if (!lite__table_exists(s, "servers"))
		return 0;
	if (!lite__table_exists(s, "credentials"))
		return lite__select_rows(s, "SELECT id, hostname, this_server, added_at_ns"
					    " FROM servers ORDER BY this_server DESC, hostname",
					 sizeof(**out), server_row, server_rows__free,
					 (void **)out, n);
	sql = lite__column_exists(s, "servers", "batches_refused") ?
		"SELECT " SERVER_COLUMNS ", spool_dropped, batches_refused, last_refusal,"
		" last_refusal_ns FROM servers ORDER BY this_server DESC, removed_at_ns <> 0, name, id" :
	      lite__column_exists(s, "servers", "spool_dropped") ?
		"SELECT " SERVER_COLUMNS ", spool_dropped FROM servers"
		" ORDER BY this_server DESC, removed_at_ns <> 0, name, id" :
		"SELECT " SERVER_COLUMNS " FROM servers"
		" ORDER BY this_server DESC, removed_at_ns <> 0, name, id";
	return lite__select_rows(s, sql, sizeof(**out), server_row, server_rows__free,
				 (void **)out, n);
}

/* ---- enrolment ---- */

int lite__put_enrolment(struct store *s, const char *token_hash, int64_t created_ns,
			int64_t expires_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT INTO enrolments (token_hash, created_at_ns, expires_at_ns)"
			       " VALUES (?, ?, ?)", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, token_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, created_ns);
	sqlite3_bind_int64(st, 3, expires_ns);
	return lite__run(s, st);
}

int lite__enrolment_valid(struct store *s, const char *token_hash, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	if (!lite__table_exists(s, "enrolments"))
		return 0;
	err = lite__prepare(s, "SELECT 1 FROM enrolments WHERE token_hash = ? AND used_at_ns = 0"
			       " AND expires_at_ns > ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, token_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now_ns);
	return lite__any_row(s, st);
}

/* Uses the enrolment: -EACCES when there is none unused and unexpired. */
static int use_enrolment(struct store *s, const char *token_hash, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "UPDATE enrolments SET used_at_ns = ?1 WHERE token_hash = ?2"
			       " AND used_at_ns = 0 AND expires_at_ns > ?1", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, now_ns);
	sqlite3_bind_text(st, 2, token_hash, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	if (!err && sqlite3_changes(s->db) != 1)
		err = -EACCES;
	return err;
}

/* srv->name, or NAME-2, NAME-3 ...: the first whose look no server has, removed ones
 * included, so a removed server's history stays its own (util/server_name.h). */
static int unique_name(struct store *s, struct server_entry *srv)
{
	char **names = NULL, **grown, *picked;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, err;

	err = lite__prepare(s, "SELECT name FROM servers", &st);
	if (err)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown)
				break;
			names = grown;
		}
		names[n] = lite__text(st, 0);
		if (!names[n])
			break;
		n++;
	}
	sqlite3_finalize(st);
	err = rc == SQLITE_DONE ? 0 : rc == SQLITE_ROW ? -ENOMEM : lite__err(s->db, rc);
	picked = err ? NULL : server_name__pick(srv->name, names, n);
	if (!err && !picked)
		err = -errno;
	store__free_strings(names, n);
	if (err)
		return err;
	srv->name = picked;
	return 0;
}

static int add_server(struct store *s, const struct server_entry *srv, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT INTO servers (" SERVER_COLUMNS ")"
			       " VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, 0)", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, srv->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, srv->hostname ? srv->hostname : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now_ns);
	sqlite3_bind_text(st, 4, srv->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, srv->machine_id ? srv->machine_id : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, srv->kernel ? srv->kernel : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, srv->agent_version ? srv->agent_version : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, srv->boot_id ? srv->boot_id : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, srv->cpus);
	sqlite3_bind_int64(st, 10, now_ns);
	return lite__run(s, st);
}

static int add_credential(struct store *s, const char *hash, const char *server_id,
			  int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT INTO credentials (hash, server_id, created_at_ns)"
			       " VALUES (?, ?, ?)", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, server_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now_ns);
	return lite__run(s, st);
}

int lite__enrol(struct store *s, const char *token_hash, int64_t now_ns,
		struct server_entry *srv, const char *credential_hash)
{
	const char *given = srv->name;
	int err;

	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = use_enrolment(s, token_hash, now_ns);
	if (!err)
		err = unique_name(s, srv);
	if (!err)
		err = add_server(s, srv, now_ns);
	if (!err)
		err = add_credential(s, credential_hash, srv->id, now_ns);
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (!err)
		return 0;
	lite__exec(s, "ROLLBACK");
	if (srv->name != given) {
		free((char *)srv->name);
		srv->name = (char *)given;
	}
	return err;
}

int lite__authenticate(struct store *s, const char *credential_hash,
		       struct server_entry **out)
{
	sqlite3_stmt *st;
	size_t n = 0;
	int err;

	if (!lite__table_exists(s, "credentials"))
		return -EACCES;
	err = lite__prepare(s, "SELECT " SERVER_COLUMNS " FROM servers WHERE id = (SELECT server_id"
			       " FROM credentials WHERE hash = ? AND revoked_at_ns = 0)"
			       " AND removed_at_ns = 0", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, credential_hash, -1, SQLITE_STATIC);
	err = lite__fetch_rows(s, st, sizeof(**out), server_row, server_rows__free,
			       (void **)out, &n);
	if (!err && n != 1) {
		server_entries__free(*out, n);
		*out = NULL;
		err = -EACCES;
		/* Revoked (its server removed), rather than never made. */
		if (!lite__prepare(s, "SELECT 1 FROM credentials WHERE hash = ? AND"
				      " revoked_at_ns <> 0", &st)) {
			sqlite3_bind_text(st, 1, credential_hash, -1, SQLITE_STATIC);
			if (lite__any_row(s, st) == 1)
				err = -EKEYREVOKED;
		}
	}
	return err;
}

int lite__server_seen(struct store *s, const char *id, int64_t now_ns, const char *kernel,
		      const char *agent_version, const char *boot_id)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "UPDATE servers SET last_seen_ns = ?, kernel = coalesce(?, kernel),"
			       " agent_version = coalesce(?, agent_version),"
			       " boot_id = coalesce(?, boot_id) WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, now_ns);
	sqlite3_bind_text(st, 2, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, agent_version, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, boot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, id, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	return !err && sqlite3_changes(s->db) != 1 ? -ENOENT : err;
}

int lite__server_refused(struct store *s, const char *id, const char *why, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "UPDATE servers SET batches_refused = batches_refused + 1,"
			       " last_refusal = ?, last_refusal_ns = ? WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, why, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now_ns);
	sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
	return lite__run(s, st);
}

int lite__remove_server(struct store *s, const char *id, int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = lite__prepare(s, "UPDATE servers SET removed_at_ns = ? WHERE id = ?"
			       " AND removed_at_ns = 0 AND this_server = 0", &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, now_ns);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
		err = lite__run(s, st);
		if (!err && sqlite3_changes(s->db) != 1)
			err = -ENOENT;
	}
	if (!err)
		err = lite__prepare(s, "UPDATE credentials SET revoked_at_ns = ? WHERE"
				       " server_id = ? AND revoked_at_ns = 0", &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, now_ns);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
		err = lite__run(s, st);
	}
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (err)
		lite__exec(s, "ROLLBACK");
	return err;
}

/* ---- delivered batches ---- */

static void bind_key(sqlite3_stmt *st, const struct batch_key *key)
{
	sqlite3_bind_text(st, 1, key->server_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key->boot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)key->sequence);
}

int lite__find_batch(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX])
{
	sqlite3_stmt *st;
	int rc, err;

	if (!lite__table_exists(s, "batches"))
		return -ENOENT;
	err = lite__prepare(s, "SELECT profile_id FROM batches WHERE server_id = ? AND"
			       " boot_id = ? AND sequence = ?", &st);
	if (err)
		return err;
	bind_key(st, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(id, STORE_ID_MAX, "%s",
			 (const char *)sqlite3_column_text(st, 0) ?: "");
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
}

int lite__keep_batch(struct store *s, const struct batch_key *key, const char *id,
		     int64_t now_ns)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "INSERT INTO batches (server_id, boot_id, sequence, profile_id,"
			       " stored_at_ns) VALUES (?, ?, ?, ?, ?)", &st);
	if (err)
		return err;
	bind_key(st, key);
	sqlite3_bind_text(st, 4, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, now_ns);
	err = lite__run(s, st);
	if (err)
		return err == -EEXIST ? -EALREADY : err;
	if (!key->spool_dropped)
		return 0;
	/* Counted with the batch, in its transaction; a count an agent overstates stops at
	 * the largest the column holds rather than failing the batch. */
	err = lite__prepare(s, "UPDATE servers SET spool_dropped = min(spool_dropped,"
			       " 9223372036854775807 - ?1) + ?1 WHERE id = ?2", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, key->spool_dropped > INT64_MAX ? INT64_MAX :
				  (int64_t)key->spool_dropped);
	sqlite3_bind_text(st, 2, key->server_id, -1, SQLITE_STATIC);
	return lite__run(s, st);
}
