/* SPDX-License-Identifier: MIT */
/*
 * The PostgreSQL backend, shared by its files: store_pg_open.c (the URL, connections,
 * the operations table), store_pg.c (the query helpers), store_pg_schema.c (the schema, its versions
 * and migrations under an advisory lock), store_pg_profiles.c (profiles, blobs in the
 * database), store_pg_tables.c (symbol and line tables, uploads, services) and
 * store_pg_agents.c (servers, enrolments, credentials, delivered batches).
 *
 * Every statement is sent with typed parameters and read back in binary: strings a
 * process or a user wrote (host names, answers, file names, service names, build ids)
 * are kept as bytea, so no byte of them is refused or reinterpreted by the database's
 * encoding; ids and question names are ours, and kept as text.
 */
#ifndef SLIDEOPS_STORE_PG_H
#define SLIDEOPS_STORE_PG_H

#include <libpq-fe.h>

#include "store/store_backend.h"

/* Bump with a migration in store_pg_schema.c whenever the schema changes. */
#define PG_SCHEMA_VERSION 7
#define PG_ARGS_MAX 10

/* The parameters of one statement, in binary. */
struct pg_args {
	int n;
	Oid types[PG_ARGS_MAX];
	const char *values[PG_ARGS_MAX];
	int lengths[PG_ARGS_MAX];
	int formats[PG_ARGS_MAX];
	unsigned char ints[PG_ARGS_MAX][8];
};

void pg_args__bytes(struct pg_args *a, const void *data, size_t len);
/* A string kept as bytea (NULL: SQL NULL). */
void pg_args__str(struct pg_args *a, const char *s);
/* A string of ours kept as text (NULL: SQL NULL). */
void pg_args__text(struct pg_args *a, const char *s);
void pg_args__int64(struct pg_args *a, int64_t v);
void pg_args__int32(struct pg_args *a, int32_t v);
/* *v, or SQL NULL when v is NULL. */
void pg_args__int64_or_null(struct pg_args *a, const int64_t *v);

/*
 * Runs sql with a (may be NULL); on success *res (may be NULL: then freed) holds the
 * rows, in binary. 0 or -errno: -EEXIST a key taken, -ENOSPC the database's disk full,
 * -EBUSY a conflict to retry, -EACCES not allowed, -ECONNRESET the connection lost, -EIO
 * anything else (store__problem then holds the database's words).
 */
int pg__exec(struct store *s, const char *sql, const struct pg_args *a, PGresult **res);
/* libpq's words, one line, as the store's problem (store__problem): returns err. */
int pg__conn_problem(int err, const char *words);
/* Runs statements of ours with no parameters (a migration). 0 or -errno. */
int pg__script(struct store *s, const char *sql);
/* The rows a command changed. */
uint64_t pg__changed(const PGresult *res);
/* pg__exec of a command on one row: 0, -ENOENT when it changed none, or pg__exec's. */
int pg__exec_one_row(struct store *s, const char *sql, const struct pg_args *a);
int pg__begin(struct store *s);
int pg__commit(struct store *s);
void pg__rollback(struct store *s);

int64_t pg__int64(const PGresult *res, int row, int col);
int32_t pg__int32(const PGresult *res, int row, int col);
/* A malloc'd NUL-terminated copy of a bytea or text value (NULL on ENOMEM). A value
 * holding a NUL byte is cut there. */
char *pg__str(const PGresult *res, int row, int col);
/* A malloc'd copy of a bytea value. */
int pg__bytes(const PGresult *res, int row, int col, void **data, size_t *len);

/*
 * Brings the database to PG_SCHEMA_VERSION (write) or checks it can be read: -EPROTO a
 * newer slideops made it, -EMEDIUMTYPE it holds another program's tables, -ENOENT (a
 * reader) it holds no workspace yet. Two processes at once migrate once.
 */
int pg__migrate(struct store *s, bool write);

int pg__save_profile(struct store *s, const struct profile_row *row, const void *blob,
		     size_t len, char id[STORE_ID_MAX]);
int pg__load_profile(struct store *s, const char *id, struct profile **out);
int pg__query_profiles(struct store *s, const struct profile_query *q,
		       struct profile_entry **out, size_t *n, uint64_t *total);
int pg__set_answer(struct store *s, const char *id, const char *answer);
int pg__refresh_answer(struct store *s, const char *id, const char *answer);
int pg__delete_profile(struct store *s, const char *id);
int pg__prune_profiles(struct store *s, int64_t before_ns, size_t max, size_t *deleted);

int pg__put_symbols(struct store *s, const char *bid, enum symbol_source src,
		    const char *file_name, uint64_t functions, const void *data, size_t len);
int pg__has_symbols(struct store *s, const char *bid, enum symbol_source src);
int pg__get_symbols(struct store *s, const char *bid, enum symbol_source min,
		    enum symbol_source *src, void **data, size_t *len);
int pg__put_lines(struct store *s, const char *bid, uint64_t addresses, const void *data,
		  size_t len);
int pg__get_lines(struct store *s, const char *bid, void **data, size_t *len);
int pg__list_uploads(struct store *s, struct upload_entry **out, size_t *n);
int pg__delete_upload(struct store *s, const char *prefix, char deleted[BUILD_ID_HEX_MAX + 1]);
int pg__add_service(struct store *s, const struct service *svc, const char *match);
int pg__remove_service(struct store *s, const char *name);
int pg__list_services(struct store *s, struct service **out, size_t *n);
int pg__get_setting(struct store *s, const char *key, char *value, size_t size);
int pg__put_setting(struct store *s, const char *key, const char *value);
int pg__token(struct store *s, const char *candidate, char *out, size_t size);
int pg__put_server(struct store *s, const struct server_entry *srv, int64_t now_ns);
int pg__list_servers(struct store *s, struct server_entry **out, size_t *n);
int pg__put_enrolment(struct store *s, const char *token_hash, int64_t created_ns,
		      int64_t expires_ns);
int pg__enrolment_valid(struct store *s, const char *token_hash, int64_t now_ns);
int pg__put_server_symbols(struct store *s, const char *server_id, const char *bid,
			   enum symbol_source src, uint64_t functions, const void *data,
			   size_t len);
int pg__has_server_symbols(struct store *s, const char *server_id, const char *bid,
			   enum symbol_source src);
int pg__get_server_symbols(struct store *s, const char *server_id, const char *bid,
			   enum symbol_source *src, void **data, size_t *len);
int pg__profile_server(struct store *s, const char *id, char server_id[STORE_ID_MAX]);
int pg__server_refused(struct store *s, const char *id, const char *why, int64_t now_ns);
int pg__put_server_lines(struct store *s, const char *server_id, const char *bid,
			 uint64_t addresses, const void *data, size_t len);
int pg__get_server_lines(struct store *s, const char *server_id, const char *bid,
			 void **data, size_t *len);
int pg__enrol(struct store *s, const char *token_hash, int64_t now_ns,
	      struct server_entry *srv, const char *credential_hash);
int pg__authenticate(struct store *s, const char *credential_hash,
		     struct server_entry **out);
int pg__server_seen(struct store *s, const char *id, int64_t now_ns, const char *kernel,
		    const char *agent_version, const char *boot_id);
int pg__remove_server(struct store *s, const char *id, int64_t now_ns);
int pg__queue_command(struct store *s, const char *server_id, const char *id,
		      const char *body, int64_t now_ns, int64_t forget_before_ns);
int pg__take_commands(struct store *s, const char *server_id, int64_t now_ns, size_t max,
		      char ***bodies, size_t *n);
int pg__unqueue_command(struct store *s, const char *server_id, const char *id);
int pg__reply_command(struct store *s, const char *server_id, const char *id, int status,
		      const char *doc);
int pg__command_reply(struct store *s, const char *server_id, const char *id, int *status,
		      char **doc);
int pg__servers_waiting(struct store *s, char ***ids, size_t *n);
int pg__put_agent_capture(struct store *s, const char *server_id, const char *state,
			  int64_t now_ns);
int pg__get_agent_capture(struct store *s, const char *server_id, char **state);
int pg__find_batch(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX]);
/* Keeps a batch's key for profile id, in the caller's transaction: -EALREADY when kept. */
int pg__keep_batch(struct store *s, const struct batch_key *key, const char *id,
		   int64_t now_ns);

#endif
