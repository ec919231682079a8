// SPDX-License-Identifier: MIT
/*
 * Symbol and line tables by build id, and uploads, whatever backend keeps them: build
 * ids lowercased, tables serialized here, so a backend keeps only rows and blobs.
 */
#include "store/store_backend.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/lines.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"

/* ---- symbol tables ---- */

/* Lowercase copy of a build id; -EINVAL when empty or too long. */
static int build_id__norm(const char *in, char out[BUILD_ID_HEX_MAX + 1])
{
	size_t len = in ? strlen(in) : 0;

	if (len == 0 || len > BUILD_ID_HEX_MAX)
		return -EINVAL;
	for (size_t i = 0; i <= len; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	return 0;
}

int store__put_symbols(struct store *s, const char *build_id, enum symbol_source src,
		       const char *file_name, const struct symtab *tab)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	void *blob = NULL;
	size_t len;
	int err;

	if ((unsigned)src > SYMBOLS_DYNSYM || !tab)
		return -EINVAL;
	err = build_id__norm(build_id, bid);
	if (err)
		return err;
	err = store__need_db(s, true);
	if (err)
		return err;
	err = symtab__serialize(tab, &blob, &len);
	if (err)
		return err;
	if (len > INT_MAX)
		err = -EFBIG;
	if (!err)
		err = s->ops->put_symbols(s, bid, src, file_name ? file_name : "",
					  (uint64_t)symtab__named(tab), blob, len);
	free(blob);
	return err;
}

int store__has_symbols(struct store *s, const char *build_id, enum symbol_source src)
{
	char bid[BUILD_ID_HEX_MAX + 1];

	if (build_id__norm(build_id, bid) || !s->ops->exists(s))
		return 0;
	return s->ops->has_symbols(s, bid, src);
}

/* The best table for build_id of a source at least min. */
static int get_symbols_from(struct store *s, const char *build_id, enum symbol_source min,
			    struct symtab **out, enum symbol_source *src)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	enum symbol_source found;
	void *data = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if (build_id__norm(build_id, bid) || !s->ops->exists(s))
		return -ENOENT;
	err = s->ops->get_symbols(s, bid, min, &found, &data, &len);
	if (err)
		return err;
	if (src)
		*src = found;
	errno = 0;
	*out = symtab__deserialize(data, len);
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
	free(data);
	return err;
}

int store__get_symbols(struct store *s, const char *build_id, struct symtab **out,
		       enum symbol_source *src)
{
	return get_symbols_from(s, build_id, SYMBOLS_UPLOAD, out, src);
}

/*
 * An upload names first; what it cannot name (a debug file has no PLT, and knows no
 * function it was not given) the binary's own table, kept at capture, still does.
 */
int store__keeps_full_names(void *store, const char *build_id)
{
	return store__has_symbols(store, build_id, SYMBOLS_UPLOAD) == 1 ||
	       store__has_symbols(store, build_id, SYMBOLS_SYMTAB) == 1;
}

int store__symbols_get(void *store, const char *build_id, struct symtab **out)
{
	enum symbol_source src;
	struct symtab *own;
	int err = store__get_symbols(store, build_id, out, &src);

	if (err || src != SYMBOLS_UPLOAD)
		return err;
	err = get_symbols_from(store, build_id, SYMBOLS_SYMTAB, &own, NULL);
	if (err)
		return err == -ENOMEM ? err : 0;
	err = symtab__fill(*out, own);
	symtab__free(own);
	if (err) {
		symtab__free(*out);
		*out = NULL;
	}
	return err;
}

struct symbol_lookup store__symbol_lookup(struct store *s)
{
	return (struct symbol_lookup){ .get = store__symbols_get, .ctx = s };
}

/* ---- an agent's tables, its server's alone ---- */

int store__put_server_symbols(struct store *s, const char *server_id, const char *build_id,
			      enum symbol_source src, const struct symtab *tab)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	void *blob = NULL;
	size_t len;
	int err;

	if (src == SYMBOLS_UPLOAD || (unsigned)src > SYMBOLS_DYNSYM || !tab || !server_id ||
	    !*server_id)
		return -EINVAL;
	err = build_id__norm(build_id, bid);
	if (!err)
		err = store__need_db(s, true);
	if (!err)
		err = symtab__serialize(tab, &blob, &len);
	if (err)
		return err;
	err = len > INT_MAX ? -EFBIG :
			      s->ops->put_server_symbols(s, server_id, bid, src,
							 (uint64_t)symtab__named(tab), blob, len);
	free(blob);
	return err;
}

int store__has_server_symbols(struct store *s, const char *server_id, const char *build_id,
			      enum symbol_source src)
{
	char bid[BUILD_ID_HEX_MAX + 1];

	if (build_id__norm(build_id, bid) || !s->ops->exists(s))
		return 0;
	return s->ops->has_server_symbols(s, server_id, bid, src);
}

int store__server_keeps_full_names(struct store *s, const char *server_id,
				   const char *build_id)
{
	return store__has_symbols(s, build_id, SYMBOLS_UPLOAD) == 1 ||
	       store__has_server_symbols(s, server_id, build_id, SYMBOLS_SYMTAB) == 1;
}

int store__profile_server(struct store *s, const char *id, char server_id[STORE_ID_MAX])
{
	server_id[0] = '\0';
	if (!s->ops->exists(s))
		return -ENOENT;
	return s->ops->profile_server(s, id, server_id);
}

/* The best table server_id's agent sent for build_id: 0, -ENOENT, -errno. */
static int get_server_symbols(struct store *s, const char *server_id, const char *build_id,
			      struct symtab **out)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	enum symbol_source src;
	void *data = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if (build_id__norm(build_id, bid) || !s->ops->exists(s))
		return -ENOENT;
	err = s->ops->get_server_symbols(s, server_id, bid, &src, &data, &len);
	if (err)
		return err;
	errno = 0;
	*out = symtab__deserialize(data, len);
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
	free(data);
	return err;
}

/* A profile of an agent's server: an upload first, what it cannot name (a debug file has
 * no PLT) by the server's own table, else the workspace's own (never another agent's). */
static int server_symbols_get(void *ctx, const char *build_id, struct symtab **out)
{
	struct server_names *n = ctx;
	struct symtab *upload = NULL, *own = NULL;
	enum symbol_source src;
	int err;

	*out = NULL;
	if (!n->server_id[0] || strcmp(n->server_id, "local") == 0)
		return store__symbols_get(n->s, build_id, out);
	err = get_symbols_from(n->s, build_id, SYMBOLS_UPLOAD, &upload, &src);
	if (err && err != -ENOENT)
		return err;
	if (!err && src != SYMBOLS_UPLOAD) {
		symtab__free(upload);
		upload = NULL;
	}
	err = get_server_symbols(n->s, n->server_id, build_id, &own);
	if (err == -ENOENT)
		err = get_symbols_from(n->s, build_id, SYMBOLS_SYMTAB, &own, NULL);
	if (err && err != -ENOENT) {
		symtab__free(upload);
		return err;
	}
	if (!upload) {
		*out = own;
		return own ? 0 : -ENOENT;
	}
	err = own ? symtab__fill(upload, own) : 0;
	symtab__free(own);
	if (err) {
		symtab__free(upload);
		return err;
	}
	*out = upload;
	return 0;
}

struct symbol_lookup store__server_symbol_lookup(struct server_names *n, struct store *s,
						 const char *server_id)
{
	n->s = s;
	snprintf(n->server_id, sizeof(n->server_id), "%s", server_id ? server_id : "");
	return (struct symbol_lookup){ .get = server_symbols_get, .ctx = n };
}

/* ---- line tables ---- */

int store__put_lines(struct store *s, const char *build_id, const struct line_table *t)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	struct line_table *kept = NULL, *merged = NULL;
	void *blob = NULL;
	size_t len;
	int err;

	err = store__need_db(s, true);
	if (err)
		return err;
	err = build_id__norm(build_id, bid);
	if (err)
		return err;
	/* A capture's exact rows join those kept for the build; a whole table (an upload)
	 * replaces them, and is not replaced by exact rows. */
	if (t->exact && store__get_lines(s, bid, &kept) == 0) {
		if (!kept->exact) {
			line_table__free(kept);
			return 0;
		}
		merged = line_table__merge(kept, t);
		line_table__free(kept);
		if (!merged)
			return -ENOMEM;
		t = merged;
	}
	err = line_table__serialize(t, &blob, &len);
	if (!err && len > INT_MAX)
		err = -EFBIG;
	if (!err)
		err = s->ops->put_lines(s, bid, (uint64_t)t->n, blob, len);
	free(blob);
	line_table__free(merged);
	return err;
}

int store__get_lines(struct store *s, const char *build_id, struct line_table **out)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	void *data = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if (build_id__norm(build_id, bid) || !s->ops->exists(s))
		return -ENOENT;
	err = s->ops->get_lines(s, bid, &data, &len);
	if (err)
		return err;
	errno = 0;
	*out = line_table__deserialize(data, len);
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
	free(data);
	return err;
}

int store__keep_lines(void *store, const char *build_id, const struct line_table *t)
{
	return store__put_lines(store, build_id, t);
}

static int store__lines_get(void *store, const char *build_id, struct line_table **out)
{
	return store__get_lines(store, build_id, out);
}

struct lines_lookup store__lines_lookup(struct store *s)
{
	return (struct lines_lookup){ .get = store__lines_get, .ctx = s };
}

/* ---- an agent's line tables, its server's alone ---- */

static int get_server_lines(struct store *s, const char *server_id, const char *bid,
			    struct line_table **out)
{
	void *data = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if (!s->ops->exists(s))
		return -ENOENT;
	err = s->ops->get_server_lines(s, server_id, bid, &data, &len);
	if (err)
		return err;
	errno = 0;
	*out = line_table__deserialize(data, len);
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
	free(data);
	return err;
}

int store__put_server_lines(struct store *s, const char *server_id, const char *build_id,
			    const struct line_table *t)
{
	char bid[BUILD_ID_HEX_MAX + 1];
	struct line_table *kept = NULL, *merged = NULL;
	void *blob = NULL;
	size_t len;
	int err;

	if (!server_id || !*server_id)
		return -EINVAL;
	err = store__need_db(s, true);
	if (!err)
		err = build_id__norm(build_id, bid);
	if (err)
		return err;
	/* As store__put_lines, within the server's own rows. */
	if (t->exact && get_server_lines(s, server_id, bid, &kept) == 0) {
		if (!kept->exact) {
			line_table__free(kept);
			return 0;
		}
		merged = line_table__merge(kept, t);
		line_table__free(kept);
		if (!merged)
			return -ENOMEM;
		t = merged;
	}
	err = line_table__serialize(t, &blob, &len);
	if (!err && len > INT_MAX)
		err = -EFBIG;
	if (!err)
		err = s->ops->put_server_lines(s, server_id, bid, (uint64_t)t->n, blob, len);
	free(blob);
	line_table__free(merged);
	return err;
}

/* A profile's lines: an upload's whole table first, then its agent's own server's
 * rows, else the workspace's own (this machine's captures'); this server's profiles
 * read the workspace's alone. */
static int server_lines_get(void *ctx, const char *build_id, struct line_table **out)
{
	struct server_names *n = ctx;
	struct line_table *shared = NULL;
	char bid[BUILD_ID_HEX_MAX + 1];
	int err, serr;

	*out = NULL;
	serr = store__get_lines(n->s, build_id, &shared);
	if (serr && serr != -ENOENT)
		return serr;
	if ((shared && !shared->exact) || !n->server_id[0] || strcmp(n->server_id, "local") == 0 ||
	    build_id__norm(build_id, bid)) {
		*out = shared;
		return shared ? 0 : -ENOENT;
	}
	err = get_server_lines(n->s, n->server_id, bid, out);
	if (err != -ENOENT) {
		line_table__free(shared);
		return err;
	}
	*out = shared;
	return shared ? 0 : -ENOENT;
}

struct lines_lookup store__profile_lines_lookup(struct server_names *n, struct store *s,
					       const char *profile_id)
{
	n->s = s;
	if (store__profile_server(s, profile_id, n->server_id))
		n->server_id[0] = '\0';
	return (struct lines_lookup){ .get = server_lines_get, .ctx = n };
}

/* ---- uploads ---- */

int store__list_uploads(struct store *s, struct upload_entry **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!s->ops->exists(s))
		return 0;
	return s->ops->list_uploads(s, out, n);
}

void upload_entries__free(struct upload_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++)
		free(e[i].file_name);
	free(e);
}

int store__delete_upload(struct store *s, const char *id, char deleted[BUILD_ID_HEX_MAX + 1])
{
	char prefix[BUILD_ID_HEX_MAX + 1];
	int err;

	deleted[0] = '\0';
	if (build_id__norm(id, prefix))
		return -ENOENT;
	err = store__need_db(s, true);
	if (err)
		return err;
	return s->ops->delete_upload(s, prefix, deleted);
}
