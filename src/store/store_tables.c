// SPDX-License-Identifier: MIT
/*
 * Symbol and line tables by build id, and uploads, whatever backend keeps them: build
 * ids lowercased, tables serialized here, so a backend keeps only rows and blobs.
 */
#include "store/store_backend.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
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
