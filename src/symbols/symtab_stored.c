// SPDX-License-Identifier: MIT
/*
 * A symbol table's stored form (symtab.h): zlib-compressed, a fixed header, then per
 * symbol the address as a delta from the previous one and the size, as LEB128 varints,
 * then the names in symbol order, each NUL-terminated. Deltas keep the numbers small, so
 * a table packs to a few bytes a symbol plus its compressed names. A stored blob is read
 * as hostile: its counts are checked against limits and inflating is bounded.
 */
#include "symbols/symtab.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/byte_cursor.h"

#define SYMTAB_MAGIC "SOSYMTB1"
#define SYMTAB_HEADER_LEN 32 /* magic, nsyms, names_len, payload_len */
/* More than any real binary holds; a stored blob claiming more is not trusted. */
#define SYMTAB_MAX_SYMS (64u << 20)
#define SYMTAB_MAX_NAMES (2ull << 30)
#define SYMTAB_MAX_RATIO 128
#define SYMTAB_MIN_BUDGET (1ull << 20)

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* A deflate stream fed from a small staging buffer into a growing output buffer. */
struct packer {
	z_stream z;
	unsigned char *out;
	size_t cap;
	unsigned char stage[64 << 10];
	size_t staged;
};

static int packer__drain(struct packer *pk, int flush)
{
	pk->z.next_in = pk->stage;
	pk->z.avail_in = (uInt)pk->staged;
	do {
		size_t used = SYMTAB_HEADER_LEN + pk->z.total_out;
		int ret;

		if (pk->z.avail_out == 0) {
			size_t ncap = pk->cap * 2;
			unsigned char *p = realloc(pk->out, ncap);

			if (!p)
				return -ENOMEM;
			pk->out = p;
			pk->cap = ncap;
			pk->z.next_out = p + used;
			pk->z.avail_out = (uInt)(ncap - used > UINT32_MAX ? UINT32_MAX : ncap - used);
		}
		ret = deflate(&pk->z, flush);
		if (ret == Z_STREAM_ERROR)
			return -EINVAL;
		if (ret == Z_STREAM_END)
			break;
	} while (pk->z.avail_in > 0 || pk->z.avail_out == 0 ||
		 (flush == Z_FINISH));
	pk->staged = 0;
	return 0;
}

static int packer__put(struct packer *pk, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		size_t n = sizeof(pk->stage) - pk->staged;
		int err;

		if (n > len)
			n = len;
		memcpy(pk->stage + pk->staged, p, n);
		pk->staged += n;
		p += n;
		len -= n;
		if (pk->staged == sizeof(pk->stage)) {
			err = packer__drain(pk, Z_NO_FLUSH);
			if (err)
				return err;
		}
	}
	return 0;
}

int symtab__serialize(const struct symtab *tab, void **blob, size_t *len)
{
	struct packer *pk;
	uint64_t prev = 0, payload_len = 0, names_len = 0;
	unsigned char header[SYMTAB_HEADER_LEN];
	int err;

	*blob = NULL;
	*len = 0;
	for (size_t i = 0; i < tab->nsyms; i++) {
		unsigned char tmp[20];
		size_t name_len = strlen(tab->names + tab->syms[i].name) + 1;

		payload_len += put_varint(tmp, tab->syms[i].addr - prev);
		payload_len += put_varint(tmp, tab->syms[i].size);
		names_len += name_len;
		prev = tab->syms[i].addr;
	}
	payload_len += names_len;

	pk = calloc(1, sizeof(*pk));
	if (!pk)
		return -ENOMEM;
	if (deflateInit(&pk->z, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(pk);
		return -ENOMEM;
	}
	pk->cap = SYMTAB_HEADER_LEN + 4096 + (size_t)(payload_len / 4);
	pk->out = malloc(pk->cap);
	err = -ENOMEM;
	if (!pk->out)
		goto out_end;
	memcpy(header, SYMTAB_MAGIC, 8);
	put_u64(header + 8, tab->nsyms);
	put_u64(header + 16, names_len);
	put_u64(header + 24, payload_len);
	memcpy(pk->out, header, SYMTAB_HEADER_LEN);
	pk->z.next_out = pk->out + SYMTAB_HEADER_LEN;
	pk->z.avail_out = (uInt)(pk->cap - SYMTAB_HEADER_LEN);

	prev = 0;
	for (size_t i = 0; i < tab->nsyms; i++) {
		unsigned char tmp[20];
		size_t n = put_varint(tmp, tab->syms[i].addr - prev);

		n += put_varint(tmp + n, tab->syms[i].size);
		err = packer__put(pk, tmp, n);
		if (err)
			goto out_end;
		prev = tab->syms[i].addr;
	}
	for (size_t i = 0; i < tab->nsyms; i++) {
		const char *name = tab->names + tab->syms[i].name;

		err = packer__put(pk, name, strlen(name) + 1);
		if (err)
			goto out_end;
	}
	err = packer__drain(pk, Z_FINISH);
	if (err)
		goto out_end;
	*len = SYMTAB_HEADER_LEN + pk->z.total_out;
	*blob = pk->out;
	pk->out = NULL;

out_end:
	deflateEnd(&pk->z);
	free(pk->out);
	free(pk);
	return err;
}

/* The bytes of the varint at p, or 0 when truncated or past 64 bits. */
static size_t get_varint(const unsigned char *p, size_t len, uint64_t *v)
{
	struct byte_cursor c = byte_cursor__new(p, len);

	*v = byte_cursor__uleb128(&c);
	return c.bad ? 0 : (size_t)(c.p - p);
}

/*
 * Everything in a blob is checked: the header's counts against their limits and each
 * other, the stream for exactly the promised length, each symbol for order and range,
 * and the names for exactly one per symbol (empty for an unnamed function). Anything
 * else is EBADMSG.
 */
struct symtab *symtab__deserialize(const void *blob, size_t len)
{
	const unsigned char *in = blob;
	uint64_t nsyms, names_len, payload_len, prev = 0;
	unsigned char *payload = NULL;
	struct symtab *tab = NULL;
	size_t pos = 0, npos;
	z_stream z = { 0 };
	int err = EBADMSG, ret;

	if (len < SYMTAB_HEADER_LEN || memcmp(in, SYMTAB_MAGIC, 8) != 0)
		goto out;
	nsyms = get_u64(in + 8);
	names_len = get_u64(in + 16);
	payload_len = get_u64(in + 24);
	/* Each symbol takes at least two varint bytes and its name's NUL (unnamed functions
	 * have an empty name). */
	if (nsyms > SYMTAB_MAX_SYMS || names_len > SYMTAB_MAX_NAMES || names_len >= UINT32_MAX ||
	    names_len < nsyms || payload_len < names_len ||
	    payload_len - names_len < nsyms * 2 || payload_len - names_len > nsyms * 20)
		goto out;
	/* The budget: names compress 3 to 10 times, deflate at most about 1032 times. A
	 * header promising more than SYMTAB_MAX_RATIO times the blob (or 1 MB for a small
	 * one) is refused before anything is allocated for it: an index edited into a
	 * bomb costs nothing. */
	if (payload_len > SYMTAB_MIN_BUDGET &&
	    payload_len / SYMTAB_MAX_RATIO > len - SYMTAB_HEADER_LEN + 1)
		goto out;

	err = ENOMEM;
	payload = malloc(payload_len ? payload_len : 1);
	tab = symtab__new();
	if (!payload || !tab)
		goto out;
	if (nsyms) {
		tab->syms = malloc(nsyms * sizeof(*tab->syms));
		tab->names = malloc(names_len);
		if (!tab->syms || !tab->names)
			goto out;
		tab->cap = nsyms;
		tab->names_cap = names_len;
	}

	if (inflateInit(&z) != Z_OK)
		goto out;
	z.next_in = (unsigned char *)in + SYMTAB_HEADER_LEN;
	z.avail_in = (uInt)(len - SYMTAB_HEADER_LEN > UINT32_MAX ? UINT32_MAX
								 : len - SYMTAB_HEADER_LEN);
	z.next_out = payload;
	z.avail_out = (uInt)payload_len;
	ret = inflate(&z, Z_FINISH);
	err = EBADMSG;
	/* Exactly the promised bytes, the stream ends there, and nothing follows it. */
	if (ret != Z_STREAM_END || z.total_out != payload_len ||
	    z.total_in != len - SYMTAB_HEADER_LEN) {
		inflateEnd(&z);
		goto out;
	}
	inflateEnd(&z);

	for (uint64_t i = 0; i < nsyms; i++) {
		struct symbol *sym = &tab->syms[i];
		uint64_t delta, size;

		npos = get_varint(payload + pos, payload_len - names_len - pos, &delta);
		if (!npos)
			goto out;
		pos += npos;
		npos = get_varint(payload + pos, payload_len - names_len - pos, &size);
		if (!npos)
			goto out;
		pos += npos;
		/* Strictly increasing, non-empty, not wrapping. */
		if ((i > 0 && delta == 0) || delta > UINT64_MAX - prev || size == 0 ||
		    size > UINT32_MAX)
			goto out;
		sym->addr = prev + delta;
		sym->size = (uint32_t)size;
		if (size > UINT64_MAX - sym->addr)
			goto out;
		prev = sym->addr;
	}
	if (pos != payload_len - names_len)
		goto out;

	if (names_len)
		memcpy(tab->names, payload + pos, names_len);
	pos = 0;
	for (uint64_t i = 0; i < nsyms; i++) {
		const char *end = memchr(tab->names + pos, '\0', names_len - pos);

		if (!end)
			goto out;
		tab->syms[i].name = (uint32_t)pos;
		pos = (size_t)(end - tab->names) + 1;
	}
	if (pos != names_len)
		goto out;
	tab->nsyms = nsyms;
	tab->names_len = names_len;
	free(payload);
	return tab;

out:
	free(payload);
	symtab__free(tab);
	errno = err;
	return NULL;
}
