// SPDX-License-Identifier: MIT
/* Servers, enrolments, credentials and delivered batches in the PostgreSQL workspace. */
#include "store/store_pg.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/server_name.h"

/* Names tried for a server whose name is taken: NAME-2 ... NAME-NAME_TRIES. */
#define NAME_TRIES 1000
/* pg_advisory_xact_lock's key for enrolments: one at a time picks a unique name. */
#define ENROL_LOCK "7236833745154584692"

/* ---- servers ---- */

int pg__put_server(struct store *s, const struct server_entry *srv, int64_t now_ns)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, srv->id);
	pg_args__str(&a, srv->hostname);
	pg_args__int32(&a, srv->this_server);
	pg_args__int64(&a, now_ns);
	pg_args__str(&a, srv->name);
	return pg__exec(s, "INSERT INTO servers (id, hostname, this_server, added_at_ns, name)"
			   " VALUES ($1, $2, $3 <> 0, $4, $5) ON CONFLICT (id) DO UPDATE SET"
			   " hostname = excluded.hostname, this_server = excluded.this_server,"
			   " name = excluded.name",
			&a, NULL);
}

#define SERVER_COLUMNS "id, hostname, this_server, added_at_ns, name, machine_id, kernel," \
		       " agent_version, boot_id, cpus, last_seen_ns, removed_at_ns"

/* The servers of a result of SERVER_COLUMNS (or, from before agents, its first four),
 * and spool_dropped after them from v6 on. */
static int server_rows(PGresult *res, struct server_entry **out, size_t *n)
{
	int rows = PQntuples(res);
	bool agents = PQnfields(res) > 4;
	struct server_entry *e = calloc(rows ? (size_t)rows : 1, sizeof(*e));
	size_t count = 0;

	for (int r = 0; e && r < rows; r++) {
		struct server_entry *x = &e[count++];

		snprintf(x->id, sizeof(x->id), "%.*s", PQgetlength(res, r, 0),
			 PQgetvalue(res, r, 0));
		x->hostname = pg__str(res, r, 1);
		x->this_server = *PQgetvalue(res, r, 2) != 0;
		x->added_at_ns = pg__int64(res, r, 3);
		x->name = pg__str(res, r, agents ? 4 : 1);
		x->machine_id = agents ? pg__str(res, r, 5) : strdup("");
		x->kernel = agents ? pg__str(res, r, 6) : strdup("");
		x->agent_version = agents ? pg__str(res, r, 7) : strdup("");
		x->boot_id = agents ? pg__str(res, r, 8) : strdup("");
		if (agents) {
			x->cpus = (uint32_t)pg__int64(res, r, 9);
			x->last_seen_ns = pg__int64(res, r, 10);
			x->removed_at_ns = pg__int64(res, r, 11);
		}
		if (PQnfields(res) > 12)
			x->spool_dropped = (uint64_t)pg__int64(res, r, 12);
		if (PQnfields(res) > 15) {
			x->batches_refused = (uint64_t)pg__int64(res, r, 13);
			x->last_refusal = pg__str(res, r, 14);
			x->last_refusal_ns = pg__int64(res, r, 15);
		} else {
			x->last_refusal = strdup("");
		}
		if (!x->hostname || !x->name || !x->machine_id || !x->kernel ||
		    !x->agent_version || !x->boot_id || !x->last_refusal) {
			server_entries__free(e, count);
			e = NULL;
		}
	}
	if (!e)
		return -ENOMEM;
	*out = e;
	*n = count;
	return 0;
}

int pg__list_servers(struct store *s, struct server_entry **out, size_t *n)
{
	PGresult *res;
	int err;

	/* A reader of a database from before agents reads it as it is. */
	if (s->pg_version < 4)
		err = pg__exec(s, "SELECT id, hostname, this_server, added_at_ns FROM servers"
				  " ORDER BY this_server DESC, hostname", NULL, &res);
	else if (s->pg_version < 6)
		err = pg__exec(s, "SELECT " SERVER_COLUMNS " FROM servers ORDER BY"
				  " this_server DESC, removed_at_ns <> 0, name, id", NULL, &res);
	else if (s->pg_version < 7)
		err = pg__exec(s, "SELECT " SERVER_COLUMNS ", spool_dropped FROM servers ORDER BY"
				  " this_server DESC, removed_at_ns <> 0, name, id", NULL, &res);
	else
		err = pg__exec(s, "SELECT " SERVER_COLUMNS ", spool_dropped, batches_refused,"
				  " last_refusal, last_refusal_ns FROM servers ORDER BY"
				  " this_server DESC, removed_at_ns <> 0, name, id", NULL, &res);
	if (err)
		return err;
	err = server_rows(res, out, n);
	PQclear(res);
	return err;
}

/* ---- enrolment ---- */

int pg__put_enrolment(struct store *s, const char *token_hash, int64_t created_ns,
		      int64_t expires_ns)
{
	struct pg_args a = { 0 };

	pg_args__text(&a, token_hash);
	pg_args__int64(&a, created_ns);
	pg_args__int64(&a, expires_ns);
	return pg__exec(s, "INSERT INTO enrolments (token_hash, created_at_ns, expires_at_ns)"
			   " VALUES ($1, $2, $3)", &a, NULL);
}

int pg__enrolment_valid(struct store *s, const char *token_hash, int64_t now_ns)
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 4)
		return 0;
	pg_args__text(&a, token_hash);
	pg_args__int64(&a, now_ns);
	err = pg__exec(s, "SELECT 1 FROM enrolments WHERE token_hash = $1 AND used_at_ns = 0"
			  " AND expires_at_ns > $2", &a, &res);
	if (err)
		return err;
	err = PQntuples(res) > 0;
	PQclear(res);
	return err;
}

/* srv->name, or NAME-2, NAME-3 ...: the first whose look no server has, removed ones
 * included, so a removed server's history stays its own (util/server_name.h). Under the
 * enrolments' lock: one enrolment at a time picks. */
static int unique_name(struct store *s, struct server_entry *srv)
{
	char **names = NULL, *picked = NULL;
	PGresult *res;
	size_t n = 0;
	int err;

	err = pg__exec(s, "SELECT name FROM servers", NULL, &res);
	if (err)
		return err;
	n = (size_t)PQntuples(res);
	names = calloc(n ? n : 1, sizeof(*names));
	for (size_t i = 0; names && i < n; i++)
		names[i] = PQgetvalue(res, (int)i, 0);
	if (names)
		picked = server_name__pick(srv->name, names, n);
	err = !names ? -ENOMEM : !picked ? -errno : 0;
	free(names);
	PQclear(res);
	if (err)
		return err;
	srv->name = picked;
	return 0;
}

static int add_server(struct store *s, const struct server_entry *srv, int64_t now_ns)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, srv->id);
	pg_args__str(&a, srv->hostname ? srv->hostname : "");
	pg_args__int64(&a, now_ns);
	pg_args__str(&a, srv->name);
	pg_args__str(&a, srv->machine_id ? srv->machine_id : "");
	pg_args__str(&a, srv->kernel ? srv->kernel : "");
	pg_args__str(&a, srv->agent_version ? srv->agent_version : "");
	pg_args__str(&a, srv->boot_id ? srv->boot_id : "");
	pg_args__int64(&a, srv->cpus);
	return pg__exec(s, "INSERT INTO servers (" SERVER_COLUMNS ") VALUES"
			   " ($1, $2, false, $3, $4, $5, $6, $7, $8, $9, $3, 0)", &a, NULL);
}

int pg__enrol(struct store *s, const char *token_hash, int64_t now_ns,
	      struct server_entry *srv, const char *credential_hash)
{
	const char *given = srv->name;
	struct pg_args a = { 0 };
	int err;

	err = pg__begin(s);
	if (err)
		return err;
	err = pg__exec(s, "SELECT pg_advisory_xact_lock(" ENROL_LOCK ")", NULL, NULL);
	if (!err) {
		pg_args__int64(&a, now_ns);
		pg_args__text(&a, token_hash);
		err = pg__exec_one_row(s, "UPDATE enrolments SET used_at_ns = $1 WHERE"
					  " token_hash = $2 AND used_at_ns = 0 AND"
					  " expires_at_ns > $1", &a);
		if (err == -ENOENT)
			err = -EACCES;
	}
	if (!err)
		err = unique_name(s, srv);
	if (!err)
		err = add_server(s, srv, now_ns);
	if (!err) {
		a = (struct pg_args){ 0 };
		pg_args__text(&a, credential_hash);
		pg_args__str(&a, srv->id);
		pg_args__int64(&a, now_ns);
		err = pg__exec(s, "INSERT INTO credentials (hash, server_id, created_at_ns)"
				  " VALUES ($1, $2, $3)", &a, NULL);
	}
	if (!err)
		err = pg__commit(s);
	if (!err)
		return 0;
	pg__rollback(s);
	if (srv->name != given) {
		free(srv->name);
		srv->name = (char *)given;
	}
	return err;
}

int pg__authenticate(struct store *s, const char *credential_hash,
		     struct server_entry **out)
{
	struct pg_args a = { 0 };
	PGresult *res;
	size_t n = 0;
	int err;

	if (s->pg_version < 4)
		return -EACCES;
	pg_args__text(&a, credential_hash);
	err = pg__exec(s, "SELECT " SERVER_COLUMNS " FROM servers WHERE id = (SELECT server_id"
			  " FROM credentials WHERE hash = $1 AND revoked_at_ns = 0)"
			  " AND removed_at_ns = 0", &a, &res);
	if (err)
		return err;
	err = server_rows(res, out, &n);
	PQclear(res);
	if (!err && n != 1) {
		server_entries__free(*out, n);
		*out = NULL;
		err = -EACCES;
		/* Revoked (its server removed), rather than never made. */
		if (!pg__exec(s, "SELECT 1 FROM credentials WHERE hash = $1 AND"
				 " revoked_at_ns <> 0", &a, &res)) {
			if (PQntuples(res) > 0)
				err = -EKEYREVOKED;
			PQclear(res);
		}
	}
	return err;
}

int pg__server_seen(struct store *s, const char *id, int64_t now_ns, const char *kernel,
		    const char *agent_version, const char *boot_id)
{
	struct pg_args a = { 0 };

	pg_args__int64(&a, now_ns);
	pg_args__str(&a, kernel);
	pg_args__str(&a, agent_version);
	pg_args__str(&a, boot_id);
	pg_args__str(&a, id);
	return pg__exec_one_row(s, "UPDATE servers SET last_seen_ns = $1,"
				   " kernel = coalesce($2, kernel),"
				   " agent_version = coalesce($3, agent_version),"
				   " boot_id = coalesce($4, boot_id) WHERE id = $5", &a);
}

int pg__server_refused(struct store *s, const char *id, const char *why, int64_t now_ns)
{
	struct pg_args a = { 0 };

	pg_args__str(&a, why);
	pg_args__int64(&a, now_ns);
	pg_args__str(&a, id);
	return pg__exec(s, "UPDATE servers SET batches_refused = batches_refused + 1,"
			   " last_refusal = $1, last_refusal_ns = $2 WHERE id = $3", &a, NULL);
}

int pg__remove_server(struct store *s, const char *id, int64_t now_ns)
{
	struct pg_args a = { 0 };
	int err;

	pg_args__int64(&a, now_ns);
	pg_args__str(&a, id);
	err = pg__begin(s);
	if (err)
		return err;
	err = pg__exec_one_row(s, "UPDATE servers SET removed_at_ns = $1 WHERE id = $2 AND"
				  " removed_at_ns = 0 AND NOT this_server", &a);
	if (!err)
		err = pg__exec(s, "UPDATE credentials SET revoked_at_ns = $1 WHERE"
				  " server_id = $2 AND revoked_at_ns = 0", &a, NULL);
	if (!err)
		err = pg__commit(s);
	if (err)
		pg__rollback(s);
	return err;
}

/* ---- delivered batches ---- */

static void key_args(struct pg_args *a, const struct batch_key *key)
{
	pg_args__str(a, key->server_id);
	pg_args__str(a, key->boot_id);
	pg_args__int64(a, (int64_t)key->sequence);
}

int pg__find_batch(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX])
{
	struct pg_args a = { 0 };
	PGresult *res;
	int err;

	if (s->pg_version < 4)
		return -ENOENT;
	key_args(&a, key);
	err = pg__exec(s, "SELECT profile_id FROM batches WHERE server_id = $1 AND"
			  " boot_id = $2 AND sequence = $3", &a, &res);
	if (err)
		return err;
	if (PQntuples(res) < 1)
		err = -ENOENT;
	else
		snprintf(id, STORE_ID_MAX, "%.*s", PQgetlength(res, 0, 0), PQgetvalue(res, 0, 0));
	PQclear(res);
	return err;
}

int pg__keep_batch(struct store *s, const struct batch_key *key, const char *id,
		   int64_t now_ns)
{
	struct pg_args a = { 0 };
	int err;

	key_args(&a, key);
	pg_args__text(&a, id);
	pg_args__int64(&a, now_ns);
	err = pg__exec(s, "INSERT INTO batches (server_id, boot_id, sequence, profile_id,"
			  " stored_at_ns) VALUES ($1, $2, $3, $4, $5)", &a, NULL);
	if (err)
		return err == -EEXIST ? -EALREADY : err;
	if (!key->spool_dropped)
		return 0;
	/* Counted with the batch, in its transaction; a count an agent overstates stops at
	 * the largest the column holds rather than failing the batch. */
	a = (struct pg_args){ 0 };
	pg_args__int64(&a, key->spool_dropped > INT64_MAX ? INT64_MAX :
			   (int64_t)key->spool_dropped);
	pg_args__str(&a, key->server_id);
	return pg__exec(s, "UPDATE servers SET spool_dropped = least(spool_dropped,"
			   " 9223372036854775807 - $1) + $1 WHERE id = $2", &a, NULL);
}
