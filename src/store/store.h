/* SPDX-License-Identifier: MIT */
/*
 * The workspace: a data directory with an SQLite index (profiles, symbol tables by
 * build id, uploads, services) and profile blobs (gzip'd pprof) on disk.
 *
 * Layout: DIR/workspace.db, DIR/profiles/ID.pb.gz. A profile is written to a temporary
 * file, fsync'd, renamed, and only then indexed: a crash never lists half a profile.
 * Reads outnumber writes; symbol tables are read once per profile shown.
 */
#ifndef SLIDEOPS_STORE_H
#define SLIDEOPS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/owner.h"
#include "profile/profile.h"

#define STORE_ID_MAX 40

struct store;
struct symtab;

/* $SLIDEOPS_DATA, else /var/lib/slideops (root) or $XDG_DATA_HOME/slideops
 * (~/.local/share/slideops). Returns a static buffer. */
const char *store__default_dir(void);

/* Opens (creating) the store in dir. NULL with errno set. */
struct store *store__open(const char *dir);
void store__close(struct store *s);
const char *store__dir(const struct store *s);

/* ---- profiles ---- */

/* Saves p with its answer text; writes its new id (e.g. "20261202-150405-cpu-1a2b")
 * into id. 0 or -errno (-ENOSPC on a full disk, nothing listed then). */
int store__save_profile(struct store *s, const struct profile *p, const char *answer,
			char id[STORE_ID_MAX]);
/* 0, -ENOENT (no such id), -EBADMSG (the blob is not a whole profile), -errno. */
int store__load_profile(struct store *s, const char *id, struct profile **out);

struct profile_entry {
	char id[STORE_ID_MAX];
	enum question question;
	char *server;
	int64_t started_at_ns;
	uint64_t duration_ns;
	char *answer;
};

/* Newest first. */
int store__list_profiles(struct store *s, struct profile_entry **out, size_t *n);
void profile_entries__free(struct profile_entry *e, size_t n);
/* Replaces the stored answer (names change it after an upload). */
int store__set_answer(struct store *s, const char *id, const char *answer);
int store__delete_profile(struct store *s, const char *id);

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

/* The store as where profile__symbolize finds its names. */
int store__symbols_get(void *store, const char *build_id, struct symtab **out);
/* Names p's locations from the tables kept here (profile__symbolize). 0 or -ENOMEM. */
int store__symbolize(struct store *s, struct profile *p);

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

/* ---- servers ---- */

struct server_entry {
	char id[STORE_ID_MAX];   /* "local" for this server */
	char *hostname;
	bool this_server;        /* the machine the workspace runs on */
	int64_t added_at_ns;
};

/* Adds the server, or updates its hostname. */
int store__put_server(struct store *s, const struct server_entry *srv);
/* This server first, then by hostname. */
int store__list_servers(struct store *s, struct server_entry **out, size_t *n);
void server_entries__free(struct server_entry *e, size_t n);

#endif
