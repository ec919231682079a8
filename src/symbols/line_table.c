// SPDX-License-Identifier: MIT
/*
 * A line table as a value (lines.h): built row by row and sorted, looked up by address,
 * two merged, and its stored form (serialized into the store, read back with caps).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/line_table_internal.h"
#include "symbols/lines.h"
#include "util/strtab.h"

#define LINES_MAGIC "SOLINES1"
#define LINES_MAX_ROWS (16u << 20)

struct line_table *line_table__new(bool exact)
{
	struct line_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->exact = exact;
	t->files = strtab__new();
	if (!t->files) {
		free(t);
		return NULL;
	}
	return t;
}

void line_table__free(struct line_table *t)
{
	if (!t)
		return;
	free(t->rows);
	strtab__free(t->files);
	free(t);
}

int line_table__push(struct line_table *t, size_t *cap, const struct line_row *r)
{
	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct line_row *n = realloc(t->rows, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->rows = n;
		*cap = ncap;
	}
	t->rows[t->n++] = *r;
	return 0;
}

static int row__cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

/* Sorted, one row per address: of rows at one address, the last with a line wins (an
 * end of sequence there gives way to the next sequence's start). */
void line_table__sort(struct line_table *t)
{
	size_t out = 0;

	if (!t->n)
		return;
	qsort(t->rows, t->n, sizeof(*t->rows), row__cmp);
	for (size_t i = 1; i < t->n; i++) {
		if (t->rows[i].address == t->rows[out].address) {
			if (t->rows[i].line)
				t->rows[out] = t->rows[i];
		} else {
			t->rows[++out] = t->rows[i];
		}
	}
	t->n = out + 1;
}

const struct line_row *line_table__find(const struct line_table *t, uint64_t address)
{
	size_t lo = 0, hi = t ? t->n : 0;

	/* The last row at or before address. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].address <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (t->exact && t->rows[lo - 1].address != address)
		return NULL;
	return t->rows[lo - 1].line ? &t->rows[lo - 1] : NULL;
}

const char *line_table__file(const struct line_table *t, const struct line_row *r)
{
	return strtab__get(t->files, r->file);
}

struct line_table *line_table__merge(const struct line_table *a, const struct line_table *b)
{
	struct line_table *t = line_table__new(true);
	size_t cap = 0;

	if (!t)
		return NULL;
	for (int k = 0; k < 2; k++) {
		const struct line_table *src = k ? b : a;

		for (size_t i = 0; src && i < src->n; i++) {
			struct line_row r = src->rows[i];

			r.file = strtab__intern(t->files, line_table__file(src, &src->rows[i]));
			if (r.file == STRTAB_NONE || line_table__push(t, &cap, &r)) {
				line_table__free(t);
				return NULL;
			}
		}
	}
	/* b's rows come later: the sort keeps the last row with a line per address. */
	qsort(t->rows, t->n, sizeof(*t->rows), row__cmp);
	line_table__sort(t);
	return t;
}

/* ---- stored form: magic, flags, nfiles, nrows, the files (NUL-terminated), the rows
 * (address u64, file u32, line u32, start_line u32; little-endian) ---- */

#define ROW_BYTES 20

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int line_table__serialize(const struct line_table *t, void **out, size_t *len)
{
	uint32_t nfiles = strtab__count(t->files);
	size_t size = 8 + 12, pos;
	unsigned char *buf;

	for (uint32_t i = 0; i < nfiles; i++)
		size += strlen(strtab__get(t->files, i)) + 1;
	size += t->n * ROW_BYTES;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, LINES_MAGIC, 8);
	put_u32(buf + 8, t->exact ? 1 : 0);
	put_u32(buf + 12, nfiles);
	put_u32(buf + 16, (uint32_t)t->n);
	pos = 20;
	for (uint32_t i = 0; i < nfiles; i++) {
		const char *f = strtab__get(t->files, i);
		size_t l = strlen(f) + 1;

		memcpy(buf + pos, f, l);
		pos += l;
	}
	for (size_t i = 0; i < t->n; i++, pos += ROW_BYTES) {
		put_u64(buf + pos, t->rows[i].address);
		put_u32(buf + pos + 8, t->rows[i].file);
		put_u32(buf + pos + 12, t->rows[i].line);
		put_u32(buf + pos + 16, t->rows[i].start_line);
	}
	*out = buf;
	*len = size;
	return 0;
}

struct line_table *line_table__deserialize(const void *data, size_t len)
{
	const unsigned char *in = data;
	uint32_t flags, nfiles, nrows;
	struct line_table *t = NULL;
	size_t pos = 20;
	int err = EBADMSG;

	if (!in || len < 20 || memcmp(in, LINES_MAGIC, 8) != 0)
		goto out;
	flags = get_u32(in + 8);
	nfiles = get_u32(in + 12);
	nrows = get_u32(in + 16);
	/* Every count against the bytes there are, before anything is allocated for it. */
	if (flags > 1 || nrows > LINES_MAX_ROWS || nfiles > len - 20 ||
	    (uint64_t)nrows * ROW_BYTES > len - 20)
		goto out;
	err = ENOMEM;
	t = line_table__new(flags == 1);
	if (!t)
		goto out;
	err = EBADMSG;
	for (uint32_t i = 0; i < nfiles; i++) {
		const unsigned char *nul = memchr(in + pos, '\0', len - pos);

		if (!nul)
			goto out;
		/* The first file is "", as a strtab's first string; the others are distinct. */
		if (i == 0 && nul != in + pos)
			goto out;
		if (i) {
			uint32_t id = strtab__intern(t->files, (const char *)in + pos);

			if (id == STRTAB_NONE) {
				err = ENOMEM;
				goto out;
			}
			if (id != i)
				goto out;
		}
		pos = (size_t)(nul - in) + 1;
	}
	if (nfiles == 0 || len - pos != (size_t)nrows * ROW_BYTES)
		goto out;
	err = ENOMEM;
	t->rows = malloc(sizeof(*t->rows) * (nrows ? nrows : 1));
	if (!t->rows)
		goto out;
	err = EBADMSG;
	for (uint32_t i = 0; i < nrows; i++, pos += ROW_BYTES) {
		struct line_row *r = &t->rows[i];

		r->address = get_u64(in + pos);
		r->file = get_u32(in + pos + 8);
		r->line = get_u32(in + pos + 12);
		r->start_line = get_u32(in + pos + 16);
		if (r->file >= nfiles || (i && r->address <= t->rows[i - 1].address))
			goto out;
		t->n++;
	}
	return t;

out:
	line_table__free(t);
	errno = err;
	return NULL;
}
