/* SPDX-License-Identifier: MIT */
/*
 * Inside the store: the operations a backend provides, chosen at open. store.c checks
 * and normalizes what callers pass (build ids lowercased, names non-empty), encodes and
 * decodes profiles, symbol and line tables, and hands a backend only rows and blobs.
 *
 * Two backends: SQLite in the data directory (store_lite_*.c: the index, with profile
 * blobs as files beside it) and PostgreSQL (store_pg_*.c: everything in the database,
 * so any workspace process can serve any request).
 */
#ifndef SLIDEOPS_STORE_BACKEND_H
#define SLIDEOPS_STORE_BACKEND_H

#include "store/store.h"

struct sqlite3;
struct pg_conn;

/* What the index keeps of a profile beside its blob. */
struct profile_row {
	enum question question;
	const char *server;
	int64_t started_at_ns;
	int64_t duration_ns;
	const char *answer;
	int64_t saved_at_ns;
	/* A delivered batch: its key is kept in the profile's transaction (NULL: none).
	 * A key kept already: -EALREADY, nothing saved. */
	const struct batch_key *batch;
};

struct store_ops {
	void (*close)(struct store *s);
	bool (*exists)(const struct store *s);
	int (*free_space)(struct store *s, uint64_t needed, uint64_t *available);
	/* 0 when a profile could be kept now; -EROFS, -EACCES, -errno. */
	int (*check_writable)(struct store *s);
	int (*leftovers)(struct store *s, int64_t older_than_ns,
			 int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx);

	/* Saves a gzip'd pprof blob and its row under a new id (store__new_id). */
	int (*save_profile)(struct store *s, const struct profile_row *row,
			    const void *blob, size_t len, char id[STORE_ID_MAX]);
	int (*load_profile)(struct store *s, const char *id, struct profile **out);
	int (*query_profiles)(struct store *s, const struct profile_query *q,
			      struct profile_entry **out, size_t *n, uint64_t *total);
	int (*set_answer)(struct store *s, const char *id, const char *answer);
	int (*refresh_answer)(struct store *s, const char *id, const char *answer);
	int (*delete_profile)(struct store *s, const char *id);
	/* Deletes at most max profiles started before before_ns, oldest first, in one
	 * transaction; *deleted says how many. */
	int (*prune_profiles)(struct store *s, int64_t before_ns, size_t max, size_t *deleted);

	/* The workspace's settings by name: -ENOENT when one is not set. */
	int (*get_setting)(struct store *s, const char *key, char *value, size_t size);
	int (*put_setting)(struct store *s, const char *key, const char *value);

	/* Blobs are symtab__serialize's and line_table__serialize's; *data is malloc'd. */
	int (*put_symbols)(struct store *s, const char *bid, enum symbol_source src,
			   const char *file_name, uint64_t functions, const void *data,
			   size_t len);
	int (*has_symbols)(struct store *s, const char *bid, enum symbol_source src);
	int (*get_symbols)(struct store *s, const char *bid, enum symbol_source min,
			   enum symbol_source *src, void **data, size_t *len);
	/* An agent's tables, its server's alone (docs/security.md). get: the best one. */
	int (*put_server_symbols)(struct store *s, const char *server_id, const char *bid,
				  enum symbol_source src, uint64_t functions, const void *data,
				  size_t len);
	int (*has_server_symbols)(struct store *s, const char *server_id, const char *bid,
				  enum symbol_source src);
	int (*get_server_symbols)(struct store *s, const char *server_id, const char *bid,
				  enum symbol_source *src, void **data, size_t *len);
	int (*put_server_lines)(struct store *s, const char *server_id, const char *bid,
				uint64_t addresses, const void *data, size_t len);
	int (*get_server_lines)(struct store *s, const char *server_id, const char *bid,
				void **data, size_t *len);
	/* The server whose agent delivered profile id: 0, or -ENOENT (this server's). */
	int (*profile_server)(struct store *s, const char *id, char server_id[STORE_ID_MAX]);
	int (*put_lines)(struct store *s, const char *bid, uint64_t addresses,
			 const void *data, size_t len);
	int (*get_lines)(struct store *s, const char *bid, void **data, size_t *len);
	int (*list_uploads)(struct store *s, struct upload_entry **out, size_t *n);
	int (*delete_upload)(struct store *s, const char *prefix,
			     char deleted[BUILD_ID_HEX_MAX + 1]);

	int (*add_service)(struct store *s, const struct service *svc, const char *match);
	int (*remove_service)(struct store *s, const char *name);
	int (*list_services)(struct store *s, struct service **out, size_t *n);
	/* Keeps candidate as the workspace token unless one is kept; the kept one in out.
	 * NULL: the workspace keeps none (its server keeps it beside the workspace). */
	int (*token)(struct store *s, const char *candidate, char *out, size_t size);
	int (*put_server)(struct store *s, const struct server_entry *srv, int64_t now_ns);
	int (*list_servers)(struct store *s, struct server_entry **out, size_t *n);

	/* Agents (store_agents.c hashes the secrets; a backend sees only hashes). */
	int (*put_enrolment)(struct store *s, const char *token_hash, int64_t created_ns,
			     int64_t expires_ns);
	/* 1 when an enrolment of this hash is unused and unexpired at now_ns, 0 when not:
	 * read only. */
	int (*enrolment_valid)(struct store *s, const char *token_hash, int64_t now_ns);
	/* In one transaction: uses the enrolment (-EACCES when unknown, used or expired
	 * at now_ns), makes srv->name unique (replacing it with a malloc'd one), adds the
	 * server and its credential. */
	int (*enrol)(struct store *s, const char *token_hash, int64_t now_ns,
		     struct server_entry *srv, const char *credential_hash);
	/* The server of a credential not revoked: 0 and *out (one entry), -EACCES. */
	int (*authenticate)(struct store *s, const char *credential_hash,
			    struct server_entry **out);
	int (*server_seen)(struct store *s, const char *id, int64_t now_ns, const char *kernel,
			   const char *agent_version, const char *boot_id);
	int (*remove_server)(struct store *s, const char *id, int64_t now_ns);
	int (*server_refused)(struct store *s, const char *id, const char *why, int64_t now_ns);
	int (*find_batch)(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX]);

	/* Agents' commands and captures (store_commands.c). queue_command also forgets
	 * commands queued before forget_before_ns. */
	int (*queue_command)(struct store *s, const char *server_id, const char *id,
			     const char *body, int64_t now_ns, int64_t forget_before_ns);
	int (*take_commands)(struct store *s, const char *server_id, int64_t now_ns,
			     size_t max, char ***bodies, size_t *n);
	int (*unqueue_command)(struct store *s, const char *server_id, const char *id);
	int (*reply_command)(struct store *s, const char *server_id, const char *id,
			     int status, const char *doc);
	int (*command_reply)(struct store *s, const char *server_id, const char *id,
			     int *status, char **doc);
	int (*servers_waiting)(struct store *s, char ***ids, size_t *n);
	int (*put_agent_capture)(struct store *s, const char *server_id, const char *state,
				 int64_t now_ns);
	int (*get_agent_capture)(struct store *s, const char *server_id, char **state);
};

struct store {
	const struct store_ops *ops;
	char *dir;          /* SQLite: the workspace; PostgreSQL: this machine's caches */
	char *where;        /* what messages name: the directory, or the URL */
	int dir_fd;         /* the data directory, opened once, O_NOFOLLOW, checked; -1 none */
	bool writable;

	/* SQLite */
	char *profiles_dir;
	int profiles_fd;    /* DIR/profiles; -1 when there is none yet (reading) */
	bool create;
	bool again;         /* store__open_again: profile files checked as they are read */
	struct sqlite3 *db; /* NULL: no workspace there yet (reading) */

	/* PostgreSQL */
	struct pg_conn *pg;
	int pg_version;     /* the schema version of the database (a reader's may be older) */
};

enum store_mode { STORE_WRITE, STORE_READ, STORE_EXISTING, STORE_AGAIN };

/* Each backend's open: 0 or -errno; the store is closed by the caller on error. */
int store_lite__open(struct store *s, enum store_mode mode);
int store_pg__open(struct store *s, const char *url, enum store_mode mode);

/* Creates the workspace's schema in the database at url as version `version` was (for
 * tests of upgrades). 0 or -errno. */
int store_pg__create_at(const char *url, int version);

extern const struct store_ops store_lite_ops;
extern const struct store_ops store_pg_ops;

/* "20261202-150405-cpu-1a2b": when it started (UTC), what it asks, and 16 random bits. */
void store__new_id(enum question q, int64_t started_at_ns, char id[STORE_ID_MAX]);
/* The kinds of service match by enum service_match, as the tables spell them. */
extern const char *const store__match_names[];
int store__match_parse(const char *name);
/* The problem store__problem reports: err, with the path (dir/name) and its owner. */
int store__set_problem(int err, const char *dir, const char *name, uid_t uid);
/* No problem to report (an open begins so). */
void store__clear_problem(void);
/* A name this store wrote itself: no slash, no dot-dot, not empty. */
bool store__plain_name(const char *name);
/* The three parts of a cursor (store__cursor); -EINVAL when it is not one. */
int store__parse_cursor(const char *cursor, int64_t *started_at_ns, int64_t *saved_at_ns,
			char id[STORE_ID_MAX]);
/* 0 when s can be read (write: and written); a reader's store may have no workspace
 * yet: -ENOENT to read, -EROFS to write. */
int store__need_db(const struct store *s, bool write);
/* store__save_profile listed as server (NULL: the profile's hostname), with a batch's
 * key (NULL: none) kept in its transaction: -EALREADY when that key is kept. */
int store__save_row(struct store *s, const struct profile *p, const char *answer,
		    const char *server, const struct batch_key *batch, char id[STORE_ID_MAX]);
/* Frees an entry's strings and zeroes it. */
void server_entry__clear(struct server_entry *e);
/* mkdir -p; the last component gets mode, those above 0755. 0 or -errno. */
int store__mkdir_p(const char *path, mode_t mode);
/* A copy of s, "" for NULL. */
char *store__strdup(const char *s);

#endif
