/* SPDX-License-Identifier: MIT */
/*
 * The workspace: profiles (an index and gzip'd pprof blobs), symbol and line tables by
 * build id, uploads, services and servers. Two backends behind this one interface,
 * chosen at open:
 *   - by default a data directory: DIR/workspace.db (SQLite) and DIR/profiles/ID.pb.gz.
 *     A profile is written to a temporary file, fsync'd, renamed, and only then
 *     indexed: a crash never lists half a profile.
 *   - with a URL (store__set_url: --store, SLIDEOPS_STORE) a PostgreSQL database
 *     holding everything, blobs included, so that several workspace processes serve one
 *     workspace; the data directory then keeps only this machine's profiler and caches.
 * Reads outnumber writes; symbol tables are read once per profile shown.
 */
#ifndef SLIDEOPS_STORE_H
#define SLIDEOPS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/service.h"
#include "profile/profile.h"
#include "symbols/lines.h"
#include "symbols/symbolize.h"

#define STORE_ID_MAX 40

struct store;
struct symtab;

/* $SLIDEOPS_DATA, else /var/lib/slideops (root) or $XDG_DATA_HOME/slideops
 * (~/.local/share/slideops). Returns a static buffer. */
const char *store__default_dir(void);

/*
 * The workspace of every store__open* after it: a PostgreSQL URL
 * (postgresql://USER@HOST:PORT/DB[?sslmode=...]), or NULL for the SQLite workspace in
 * the data directory. -EINVAL when url is not one (store__check_url).
 */
int store__set_url(const char *url);
/* The URL store__set_url set, or NULL. */
const char *store__url(void);
/*
 * 0 when url is a postgresql:// (or postgres://) URL this store can use; -EINVAL when
 * it is not one, -EACCES when it carries a password (a password is read from PGPASSFILE
 * or ~/.pgpass, never from a command line, where every user can read it).
 */
int store__check_url(const char *url);
/* store__open on the PostgreSQL workspace at url, whatever store__set_url said; dir
 * holds this machine's caches. */
struct store *store__open_url(const char *url, const char *dir);

/*
 * Opens (creating) the store in dir, to read and write. With a URL (store__set_url),
 * the database instead: NULL with errno set to
 *   ECONNREFUSED  it cannot be reached or refused us (store__problem: libpq's reason)
 *   EMEDIUMTYPE   it holds another program's tables
 *   EPROTO        a newer slideops made it
 * and nothing in it changed. In the data directory: The directory is opened once,
 * O_NOFOLLOW, and everything in it is checked: NULL with errno set to
 *   EPERM    it, or something in it, is owned by another user (store__problem: which)
 *   EACCES   it, or something in it, may be written by other users
 *   ELOOP    a link (or a file of the wrong type) where the index or profiles/ should be
 *   EUCLEAN  profile blobs are there but the index is missing, empty or damaged: it is
 *            never recreated over them
 *   EPROTO   a newer slideops made it
 * A new workspace is created 0700, its files 0600; a workspace readable by others is
 * made its owner's alone.
 */
struct store *store__open(const char *dir);
/* The same checks, to read only: creates nothing, writes nothing, needs no free space,
 * and works on a read-only workspace. A directory that does not exist (yet) reads as an
 * empty workspace. */
struct store *store__open_read(const char *dir);
/* To read and write a workspace that exists: ENOENT when dir is not one (no index), and
 * store__problem() names what is missing. Creates nothing. */
struct store *store__open_existing(const char *dir);
/*
 * Opens, to read and write, a workspace this process opened with store__open before (a
 * server opening it per request): the same checks, except that profiles' files are
 * checked as store__load_profile opens each, not all at open, and an index gone or
 * emptied since is refused (EUCLEAN). Creates nothing.
 */
struct store *store__open_again(const char *dir);
void store__close(struct store *s);
/* The data directory (with a URL: this machine's profiler and caches). */
const char *store__dir(const struct store *s);
/* Where the workspace is, for messages: the data directory, or the URL. */
const char *store__where(const struct store *s);
/* True when the workspace is a database several workspace processes share. */
bool store__is_shared(const struct store *s);
/* The path that made the last open fail (EPERM, EACCES, ELOOP, EUCLEAN), and its owner. */
const char *store__problem(uid_t *owner);
/* The workspace directory's fd (-1 when a reader found none). */
int store__dirfd(const struct store *s);
/* False when a reader found no workspace there. */
bool store__exists(const struct store *s);
/*
 * Free space where the workspace keeps profiles: 0 when at least needed bytes can be
 * written, -ENOSPC when not; *available is what there is. A capture calls it before it
 * samples (with STORE_SAVE_BYTES_MIN) and, when a save fails with -ENOSPC, reports
 * store__profile_bytes() as what it needed.
 */
#define STORE_SAVE_BYTES_MIN (4u << 20)
int store__free_space(struct store *s, uint64_t needed, uint64_t *available);
/* Whether a profile could be kept here now: 0, or -EROFS (a read-only file system, or
 * an index that opened read-only), -EACCES, -errno. A capture calls it before it samples. */
int store__check_writable(struct store *s);
/* The bytes saving p takes: its blob (written, then renamed) and the index row. */
int store__profile_bytes(const struct profile *p, uint64_t *bytes);
/*
 * Files of saves this workspace began before older_than_ns and never finished, as its
 * index lists them: each is removed and reported to found (which may be NULL) with its
 * path and size. Nothing the index does not name is touched. 0 or -errno.
 */
int store__leftovers(struct store *s, int64_t older_than_ns,
		     int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx);

/* ---- profiles ---- */

/* Saves p with its answer text; writes its new id (e.g. "20261202-150405-cpu-1a2b")
 * into id. 0 or -errno (-ENOSPC on a full disk, nothing listed then). */
int store__save_profile(struct store *s, const struct profile *p, const char *answer,
			char id[STORE_ID_MAX]);
/* 0, -ENOENT (no such id), -ENODATA (listed, but its file is gone), -EBADMSG (the
 * file is not a whole profile, or is too large for its size), -errno. */
int store__load_profile(struct store *s, const char *id, struct profile **out);

struct profile_entry {
	char id[STORE_ID_MAX];
	enum question question;
	char *server;
	int64_t started_at_ns;
	uint64_t duration_ns;
	char *answer;
	int64_t saved_at_ns;
};

/* Newest first. */
int store__list_profiles(struct store *s, struct profile_entry **out, size_t *n);

/* A page of the profiles, newest first, read from the index alone. */
struct profile_query {
	int question;        /* enum question; -1: any */
	const char *server;  /* a hostname; NULL: any */
	uint64_t limit;      /* 0: every one from offset on */
	uint64_t offset;
	const char *after;   /* a cursor (store__cursor): the page after that profile; offset
			      * must then be 0 */
};

#define STORE_CURSOR_MAX (STORE_ID_MAX + 48)
/* The cursor of the page after e: a profile saved meanwhile does not shift it. */
void store__cursor(const struct profile_entry *e, char cursor[STORE_CURSOR_MAX]);

/* The page in *out, and in *total how many match the filters in all. 0 or -errno. */
int store__query_profiles(struct store *s, const struct profile_query *q,
			  struct profile_entry **out, size_t *n, uint64_t *total);
void profile_entries__free(struct profile_entry *e, size_t n);
/* Replaces the stored answer (names change it after an upload). */
int store__set_answer(struct store *s, const char *id, const char *answer);
/* The same from a reader: writes only when the answer changed, and only if the
 * workspace can be written (best effort). */
int store__refresh_answer(struct store *s, const char *id, const char *answer);
int store__delete_profile(struct store *s, const char *id);

/*
 * Deletes the profiles that started before before_ns, oldest first, batch (0:
 * STORE_PRUNE_BATCH) at a time, each batch one transaction; progress (may be NULL) hears
 * the running count after each, and stops the walk by returning non-zero. *deleted: how
 * many were deleted, also on an error. 0 or -errno.
 */
#define STORE_PRUNE_BATCH 500
int store__prune_profiles(struct store *s, int64_t before_ns, size_t batch,
			  int (*progress)(void *ctx, uint64_t deleted), void *ctx,
			  uint64_t *deleted);

/*
 * The workspace's retention: profiles that started more than seconds ago are deleted as
 * new ones are saved, at most STORE_RETENTION_BATCH a save (0: kept until deleted).
 * store__retention: 0 when none is set.
 */
#define STORE_RETENTION_BATCH 100
int store__set_retention(struct store *s, int64_t seconds);
int store__retention(struct store *s, int64_t *seconds);

/* ---- symbol tables, keyed by build id (lowercase hex) ---- */

enum symbol_source {
	SYMBOLS_UPLOAD,  /* a user's upload: named first */
	SYMBOLS_SYMTAB,  /* the binary's own .symtab, cached at capture */
	SYMBOLS_DYNSYM,  /* the binary's .dynsym, cached at capture */
};

/* Replaces any table of this build id and source. file_name: the upload's file name. */
int store__put_symbols(struct store *s, const char *build_id, enum symbol_source src,
		       const char *file_name, const struct symtab *tab);
/* 1 when a table of this source is kept, 0 when not, -errno. */
int store__has_symbols(struct store *s, const char *build_id, enum symbol_source src);
/* The best table for build_id (upload, then symtab, then dynsym): 0, or -ENOENT. */
int store__get_symbols(struct store *s, const char *build_id, struct symtab **out,
		       enum symbol_source *src);

/* 1 when a build's full names are kept (an upload, or a .symtab, an installed debug
 * file's included), so a capture need not read them again; a build kept from .dynsym
 * alone is read again, in case its debug file has been installed since. The pipeline's
 * has_symbols (store is the struct store). */
int store__keeps_full_names(void *store, const char *build_id);

/* The store as where profile__symbolize finds its names. */
int store__symbols_get(void *store, const char *build_id, struct symtab **out);
/* Where profile__symbolize finds names in this workspace: the store hands out the
 * lookup; naming is the symbolizer's. */
struct symbol_lookup store__symbol_lookup(struct store *s);

/*
 * An agent's symbol tables are its own server's (docs/security.md): kept apart, by
 * server, they name that server's profiles only, so one agent cannot rename another's
 * functions. A profile of an agent's server is named by, in order: an upload (a user's),
 * its server's own tables, then the workspace's own (its machine's captures, and tables
 * agents sent before names were kept per server). This server's profiles never read an
 * agent's tables.
 */
int store__put_server_symbols(struct store *s, const char *server_id, const char *build_id,
			      enum symbol_source src, const struct symtab *tab);
/* 1 when server_id's agent sent a table of this source for build_id, 0 when not. */
int store__has_server_symbols(struct store *s, const char *server_id, const char *build_id,
			      enum symbol_source src);
/* 1 when a build's full names are kept for server_id's profiles (an upload, or the .symtab
 * its agent sent), so its agent need not send them. */
int store__server_keeps_full_names(struct store *s, const char *server_id,
				   const char *build_id);
/* The server whose agent delivered profile id: 0, or -ENOENT (this server's, or one
 * stored before agents). */
int store__profile_server(struct store *s, const char *id, char server_id[STORE_ID_MAX]);

/* Where profile__symbolize finds names for a profile of server_id ("" or "local": this
 * server's), n holding what the lookup needs for as long as it is used. */
struct server_names {
	struct store *s;
	char server_id[STORE_ID_MAX];
};
struct symbol_lookup store__server_symbol_lookup(struct server_names *n, struct store *s,
						 const char *server_id);

/* An agent's line table (as store__put_lines) for its own server's profiles alone. */
int store__put_server_lines(struct store *s, const char *server_id, const char *build_id,
			    const struct line_table *t);
/* Where profile__add_lines finds the lines of profile_id's locations: its agent's own
 * server's tables first, then the workspace's; never another agent's. n as above. */
struct lines_lookup store__profile_lines_lookup(struct server_names *n, struct store *s,
					       const char *profile_id);

/* ---- line tables, keyed by build id (symbols/lines.h) ---- */

struct line_table;

/*
 * Keeps a build's line table. Exact rows (a capture's, read after sampling with
 * lines__read) join those already kept for the build; a whole table (an upload's)
 * replaces them and is kept over later exact rows. 0 or -errno.
 */
int store__put_lines(struct store *s, const char *build_id, const struct line_table *t);
/* 0 and *out (the caller's to free), -ENOENT, -EBADMSG, -ENOMEM. */
int store__get_lines(struct store *s, const char *build_id, struct line_table **out);
/* Where profile__add_lines finds the source lines of p's locations in this workspace
 * (exports read only the workspace). */
struct lines_lookup store__lines_lookup(struct store *s);
/* store__put_lines for lines__read_profile's keep (store is the struct store). */
int store__keep_lines(void *store, const char *build_id, const struct line_table *t);

struct upload_entry {
	char *file_name;
	uint64_t functions;
	char build_id[BUILD_ID_HEX_MAX + 1];
	int64_t uploaded_at_ns;
};

int store__list_uploads(struct store *s, struct upload_entry **out, size_t *n);
void upload_entries__free(struct upload_entry *e, size_t n);
/* Deletes the upload whose build id is id or starts with it; writes the full id into
 * deleted. -ENOENT none, -EEXIST more than one matches. */
int store__delete_upload(struct store *s, const char *id, char deleted[BUILD_ID_HEX_MAX + 1]);

/* ---- services ---- */

/* -EEXIST when name is taken. */
int store__add_service(struct store *s, const struct service *svc);
/* -ENOENT when there is none of that name. */
int store__remove_service(struct store *s, const char *name);
int store__list_services(struct store *s, struct service **out, size_t *n);

/* ---- the workspace token ---- */

/*
 * The token every request to the workspace's servers needs, kept in the workspace so
 * that every server of a shared workspace asks the same one: made (size - 1 lowercase
 * hex digits, from getrandom) on first use, the same ever after. -ENOTSUP when the
 * workspace keeps none (a data directory: its server keeps the token in a file there).
 */
int store__token(struct store *s, char *out, size_t size);

/* ---- servers ---- */

/*
 * A server of the workspace: the machine the workspace runs on ("this server", id
 * "local", profiled in-process) and one per enrolled agent (keyed by its credential, so
 * two agents on one machine are two servers). Everything an agent said of itself is
 * hostile input, kept as written and escaped where shown.
 */
struct server_entry {
	char id[STORE_ID_MAX];   /* "local" for this server */
	char *name;              /* unique among servers not removed; this server: its hostname */
	char *hostname;
	char *machine_id;
	char *kernel;
	char *agent_version;
	char *boot_id;
	uint32_t cpus;
	bool this_server;        /* the machine the workspace runs on */
	int64_t added_at_ns;
	int64_t last_seen_ns;    /* the agent's last poll; 0: never */
	int64_t removed_at_ns;   /* 0: not removed */
	uint64_t spool_dropped;  /* captures its agent's spool dropped, as its batches said */
	uint64_t batches_refused; /* batches refused for what they held (docs/security.md) */
	char *last_refusal;      /* the last one's reason ("" none) */
	int64_t last_refusal_ns;
};

/* Adds the server, or updates its hostname (and name: the hostname when NULL). */
int store__put_server(struct store *s, const struct server_entry *srv);
/* This server first, then by name; removed servers included (removed_at_ns). */
int store__list_servers(struct store *s, struct server_entry **out, size_t *n);
/* One server: 0 and *out (server_entries__free(*out, 1)), or -ENOENT. */
int store__get_server(struct store *s, const char *id, struct server_entry **out);
void server_entries__free(struct server_entry *e, size_t n);

/* ---- agents: enrolment tokens, credentials, delivered batches ---- */

/* Enrolment tokens and agent credentials: 32 bytes from getrandom, as hex. Only their
 * SHA-256 is kept, so a copy of the workspace holds no secret an agent could use. */
#define STORE_SECRET_HEX 64
#define STORE_ENROLMENT_TTL_S 3600

/* A one-use enrolment token, valid STORE_ENROLMENT_TTL_S from now. 0 or -errno. */
int store__new_enrolment(struct store *s, char token[STORE_SECRET_HEX + 1],
			 int64_t *expires_at_ns);
/* 1 when token is an enrolment token not used and not expired, 0 when not, -errno: read
 * only, so a stranger's guesses cost the workspace no write (serve asks this first). */
int store__enrolment_valid(struct store *s, const char *token);
/*
 * Uses token (once) to add the server srv describes (name, hostname, machine id, kernel,
 * cpus, agent version, boot id): its new id is written to srv->id, its name made unique
 * by how it looks among every server, removed ones included (util/server_name.h:
 * srv->name replaced, the caller's string is not freed, the new one is the caller's to
 * free), and its agent's credential to credential.
 * 0; -EACCES when the token is unknown, used or expired (nothing changes); -errno.
 */
int store__enrol(struct store *s, const char *token, struct server_entry *srv,
		 char credential[STORE_SECRET_HEX + 1]);
/* The server whose agent holds credential: 0 and *out (server_entries__free(*out, 1));
 * -EKEYREVOKED when it was revoked (its server removed); -EACCES when it is no
 * credential of a server. */
int store__authenticate(struct store *s, const char *credential, struct server_entry **out);
/* An agent was heard from now: its last seen, and what it said of itself (NULL: as
 * before). 0 or -errno. */
int store__server_seen(struct store *s, const char *id, const char *kernel,
		       const char *agent_version, const char *boot_id);
/* A batch of the server's agent was refused for what it held (why): counted, and the
 * reason kept for its page. 0 or -errno. */
int store__server_refused(struct store *s, const char *id, const char *why);
/* Removes a server: its credentials revoked and the server marked removed, at once, in
 * one transaction; its profiles stay. -ENOENT none such (or removed), -EPERM this
 * server. */
int store__remove_server(struct store *s, const char *id);

/* A delivered capture's name (docs/protocol.md): a batch is stored once. */
struct batch_key {
	const char *server_id;
	const char *boot_id;
	uint64_t sequence;
	/* Not part of the name: the captures the agent's spool dropped since its last batch,
	 * as this one says; added to its server's spool_dropped when the batch is stored. */
	uint64_t spool_dropped;
};

/* 0 and the profile a batch was stored as, or -ENOENT when it was not. */
int store__find_batch(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX]);
/*
 * store__save_profile of a server's delivered batch: the profile is listed with server
 * (its server's name), and the profile, the batch's key and its spool drops (added to its
 * server's count) are committed together, so a workspace killed meanwhile has stored all
 * or none, and counted the drops once. 0 and the new id; 1 when the batch was stored
 * before (id: that profile's; nothing stored, nothing counted); -errno.
 */
int store__save_batch(struct store *s, const struct profile *p, const char *answer,
		      const char *server, const struct batch_key *key, char id[STORE_ID_MAX]);

/*
 * Agents' commands and their captures' progress, in the workspace, so that every
 * process of a shared workspace sees them: a command asked through one is delivered to
 * the agent polling another, and its reply and the capture's progress are read by the
 * one that asked. A command and a capture's state are the hub's JSON text
 * (agent_hub.h); the store keeps them as they are. Commands are forgotten an hour after
 * they were queued. Each: 0 or -errno.
 */
#define STORE_COMMAND_ID_MAX 24
#define STORE_COMMANDS_KEPT_NS (3600 * 1000000000LL)
int store__queue_command(struct store *s, const char *server_id, const char *id,
			 const char *body);
/* At most max commands queued for server_id and not yet delivered, oldest first, marked
 * delivered at once (two processes never deliver one twice): their bodies, a malloc'd
 * array of malloc'd strings (store__free_strings). */
int store__take_commands(struct store *s, const char *server_id, size_t max, char ***bodies,
			 size_t *n);
/* Takes back a command not yet delivered: 0; -ENOENT it was delivered (or is unknown). */
int store__unqueue_command(struct store *s, const char *server_id, const char *id);
/* The agent's reply to a command of its server (the first one counts): status and its
 * document (JSON text). -ENOENT no such command of that server. */
int store__reply_command(struct store *s, const char *server_id, const char *id, int status,
			 const char *doc);
/* 0 and the reply (*doc malloc'd); -EAGAIN none yet; -ENOENT no such command. */
int store__command_reply(struct store *s, const char *server_id, const char *id, int *status,
			 char **doc);
/* The servers that have commands waiting to be delivered. */
int store__servers_waiting(struct store *s, char ***ids, size_t *n);
void store__free_strings(char **v, size_t n);
/* A server's last capture on its agent: put replaces it; get: -ENOENT none. */
int store__put_agent_capture(struct store *s, const char *server_id, const char *state);
int store__get_agent_capture(struct store *s, const char *server_id, char **state);

#endif
