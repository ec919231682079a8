/* SPDX-License-Identifier: MIT */
/*
 * The SQLite backend, shared by its files: store_lite_dir.c (the workspace directory
 * and opening it), store_lite_schema.c (the schema and its migrations),
 * store_lite_profiles.c (profiles: blobs as files beside the index),
 * store_lite_tables.c (symbol and line tables, uploads), store_lite_catalog.c
 * (settings and services), store_lite_agents.c (servers, enrolments, credentials,
 * delivered batches) and store_lite.c (SQL helpers and the operations table).
 */
#ifndef SLIDEOPS_STORE_LITE_H
#define SLIDEOPS_STORE_LITE_H

#include <sqlite3.h>
#include <sys/stat.h>

#include "store/store_backend.h"

/* Bump with a migration in lite__migrate whenever the schema changes. */
#define LITE_SCHEMA_VERSION 9
#define LITE_BUSY_TIMEOUT_MS 10000
#define LITE_BLOB_SUFFIX ".pb.gz"

/* An SQLite result as -errno. */
int lite__err(sqlite3 *db, int rc);
int lite__exec(struct store *s, const char *sql);
int lite__prepare(struct store *s, const char *sql, sqlite3_stmt **st);
/* Runs a prepared statement that returns no rows, then finalizes it. */
int lite__run(struct store *s, sqlite3_stmt *st);
/* Runs a prepared question, then finalizes it: 1 when it has a row, 0 when not, -errno. */
int lite__any_row(struct store *s, sqlite3_stmt *st);
char *lite__text(sqlite3_stmt *st, int col);
/*
 * Reads every row of a prepared (and bound) statement into a new element of an array of
 * elem_size bytes, then finalizes it. row fills the (zeroed) element and returns 1 to
 * keep it, 0 to pass over a row this version cannot read (before allocating anything),
 * or -errno. On an error free_rows gets what was read, and *out stays NULL.
 */
int lite__fetch_rows(struct store *s, sqlite3_stmt *st, size_t elem_size,
		     int (*row)(sqlite3_stmt *st, void *elem),
		     void (*free_rows)(void *rows, size_t n), void **out, size_t *n);
/* lite__fetch_rows of sql. */
int lite__select_rows(struct store *s, const char *sql, size_t elem_size,
		      int (*row)(sqlite3_stmt *st, void *elem),
		      void (*free_rows)(void *rows, size_t n), void **out, size_t *n);
/* A copy of a blob column; -ENOMEM. */
int lite__blob(sqlite3_stmt *st, int col, void **data, size_t *len);

/* The SQLite name of workspace.db through our checked directory fd. */
void lite__db_path(const struct store *s, char *buf, size_t size, bool uri);
/* The rule every entry of the workspace is checked by, for a file already stat'd. */
int lite__check_stat(struct store *s, const struct stat *st, const char *path, bool want_dir,
		     bool must_be_ours_type);
int lite__migrate(struct store *s, bool write, size_t blobs);
bool lite__table_exists(struct store *s, const char *name);
bool lite__column_exists(struct store *s, const char *table, const char *column);

int lite__leftovers(struct store *s, int64_t older_than_ns,
		    int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx);
int lite__save_profile(struct store *s, const struct profile_row *row, const void *blob,
		       size_t len, char id[STORE_ID_MAX]);
int lite__load_profile(struct store *s, const char *id, struct profile **out);
int lite__query_profiles(struct store *s, const struct profile_query *q,
			 struct profile_entry **out, size_t *n, uint64_t *total);
int lite__set_answer(struct store *s, const char *id, const char *answer);
int lite__refresh_answer(struct store *s, const char *id, const char *answer);
int lite__delete_profile(struct store *s, const char *id);
int lite__prune_profiles(struct store *s, int64_t before_ns, size_t max, size_t *deleted);

int lite__put_symbols(struct store *s, const char *bid, enum symbol_source src,
		      const char *file_name, uint64_t functions, const void *data, size_t len);
int lite__has_symbols(struct store *s, const char *bid, enum symbol_source src);
int lite__get_symbols(struct store *s, const char *bid, enum symbol_source min,
		      enum symbol_source *src, void **data, size_t *len);
int lite__put_lines(struct store *s, const char *bid, uint64_t addresses, const void *data,
		    size_t len);
int lite__get_lines(struct store *s, const char *bid, void **data, size_t *len);
int lite__list_uploads(struct store *s, struct upload_entry **out, size_t *n);
int lite__delete_upload(struct store *s, const char *prefix,
			char deleted[BUILD_ID_HEX_MAX + 1]);

int lite__get_setting(struct store *s, const char *key, char *value, size_t size);
int lite__put_setting(struct store *s, const char *key, const char *value);
int lite__add_service(struct store *s, const struct service *svc, const char *match);
int lite__remove_service(struct store *s, const char *name);
int lite__list_services(struct store *s, struct service **out, size_t *n);
int lite__put_server(struct store *s, const struct server_entry *srv, int64_t now_ns);
int lite__list_servers(struct store *s, struct server_entry **out, size_t *n);
int lite__put_enrolment(struct store *s, const char *token_hash, int64_t created_ns,
			int64_t expires_ns);
int lite__enrolment_valid(struct store *s, const char *token_hash, int64_t now_ns);
int lite__put_server_symbols(struct store *s, const char *server_id, const char *bid,
			     enum symbol_source src, uint64_t functions, const void *data,
			     size_t len);
int lite__has_server_symbols(struct store *s, const char *server_id, const char *bid,
			     enum symbol_source src);
int lite__get_server_symbols(struct store *s, const char *server_id, const char *bid,
			     enum symbol_source *src, void **data, size_t *len);
int lite__profile_server(struct store *s, const char *id, char server_id[STORE_ID_MAX]);
int lite__server_refused(struct store *s, const char *id, const char *why, int64_t now_ns);
int lite__put_server_lines(struct store *s, const char *server_id, const char *bid,
			   uint64_t addresses, const void *data, size_t len);
int lite__get_server_lines(struct store *s, const char *server_id, const char *bid,
			   void **data, size_t *len);
int lite__enrol(struct store *s, const char *token_hash, int64_t now_ns,
		struct server_entry *srv, const char *credential_hash);
int lite__authenticate(struct store *s, const char *credential_hash,
		       struct server_entry **out);
int lite__server_seen(struct store *s, const char *id, int64_t now_ns, const char *kernel,
		      const char *agent_version, const char *boot_id);
int lite__remove_server(struct store *s, const char *id, int64_t now_ns);
int lite__queue_command(struct store *s, const char *server_id, const char *id,
			const char *body, int64_t now_ns, int64_t forget_before_ns);
int lite__take_commands(struct store *s, const char *server_id, int64_t now_ns, size_t max,
			char ***bodies, size_t *n);
int lite__unqueue_command(struct store *s, const char *server_id, const char *id);
int lite__reply_command(struct store *s, const char *server_id, const char *id, int status,
			const char *doc);
int lite__command_reply(struct store *s, const char *server_id, const char *id, int *status,
			char **doc);
int lite__servers_waiting(struct store *s, char ***ids, size_t *n);
int lite__put_agent_capture(struct store *s, const char *server_id, const char *state,
			    int64_t now_ns);
int lite__get_agent_capture(struct store *s, const char *server_id, char **state);
int lite__find_batch(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX]);
/* Keeps a batch's key for profile id, in the caller's transaction: -EALREADY when kept. */
int lite__keep_batch(struct store *s, const struct batch_key *key, const char *id,
		     int64_t now_ns);

void lite__close(struct store *s);
bool lite__exists(const struct store *s);
int lite__free_space(struct store *s, uint64_t needed, uint64_t *available);
int lite__check_writable(struct store *s);

#endif
