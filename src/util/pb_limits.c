// SPDX-License-Identifier: MIT
/* Protocol buffers from strangers, read within limits (pb_limits.h). */
#include "util/pb_limits.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/byte_cursor.h"

/* ---- the budget allocator ---- */

static void *budget__alloc(void *data, size_t size)
{
	struct pb_budget *b = data;
	void *p;
	size_t got;

	/* Asked for more than is left: refused before malloc is asked at all. */
	if (size > b->cap - b->used) {
		b->refused = true;
		return NULL;
	}
	p = malloc(size ? size : 1);
	if (!p)
		return NULL;
	/* What malloc gave, which is what it holds: a 1-byte string holds 24. */
	got = malloc_usable_size(p);
	if (got > b->cap - b->used) {
		free(p);
		b->refused = true;
		return NULL;
	}
	if (b->pool && atomic_fetch_add(&b->pool->used, got) + got > b->pool->cap) {
		atomic_fetch_sub(&b->pool->used, got);
		free(p);
		b->refused = b->pool_refused = true;
		return NULL;
	}
	b->used += got;
	if (b->used > b->peak)
		b->peak = b->used;
	return p;
}

static void budget__free(void *data, void *p)
{
	struct pb_budget *b = data;

	size_t got;

	if (!p)
		return;
	got = malloc_usable_size(p);
	b->used -= got;
	if (b->pool)
		atomic_fetch_sub(&b->pool->used, got);
	free(p);
}

void pb_budget__init(struct pb_budget *b, size_t cap, struct pb_pool *pool)
{
	*b = (struct pb_budget){ .cap = cap, .pool = pool };
	b->allocator = (ProtobufCAllocator){ .alloc = budget__alloc, .free = budget__free,
					     .allocator_data = b };
}

/* ---- one field where it lies ---- */

enum { WIRE_VARINT = 0, WIRE_64 = 1, WIRE_LEN = 2, WIRE_32 = 5 };

/* Walks the top-level fields to the first `field` of wire type `want`: 0 with the cursor
 * at its value; -ENOENT; -EBADMSG. */
static int seek(struct byte_cursor *c, uint32_t field, unsigned want)
{
	while (byte_cursor__left(c)) {
		uint64_t key = byte_cursor__uleb128(c);
		unsigned type = key & 7;

		if (c->bad || key >> 3 == 0 || key >> 3 > UINT32_MAX)
			return -EBADMSG;
		if (key >> 3 == field && type == want)
			return 0;
		switch (type) {
		case WIRE_VARINT:
			byte_cursor__uleb128(c);
			break;
		case WIRE_64:
			byte_cursor__skip(c, 8);
			break;
		case WIRE_LEN:
			byte_cursor__skip(c, byte_cursor__uleb128(c));
			break;
		case WIRE_32:
			byte_cursor__skip(c, 4);
			break;
		default: /* groups (3, 4) are not in proto3; 6 and 7 are nothing */
			return -EBADMSG;
		}
		if (c->bad)
			return -EBADMSG;
	}
	return -ENOENT;
}

int pb_count_fields(const void *data, size_t len, uint64_t *counts, uint32_t n)
{
	struct byte_cursor c = byte_cursor__new(data, len);

	memset(counts, 0, n * sizeof(*counts));
	while (byte_cursor__left(&c)) {
		uint64_t key = byte_cursor__uleb128(&c);

		if (c.bad || key >> 3 == 0 || key >> 3 > UINT32_MAX)
			return -EBADMSG;
		if (key >> 3 <= n)
			counts[(key >> 3) - 1]++;
		switch (key & 7) {
		case WIRE_VARINT:
			byte_cursor__uleb128(&c);
			break;
		case WIRE_64:
			byte_cursor__skip(&c, 8);
			break;
		case WIRE_LEN:
			byte_cursor__skip(&c, byte_cursor__uleb128(&c));
			break;
		case WIRE_32:
			byte_cursor__skip(&c, 4);
			break;
		default:
			return -EBADMSG;
		}
		if (c.bad)
			return -EBADMSG;
	}
	return 0;
}

int pb_peek_varint(const void *data, size_t len, uint32_t field, uint64_t *out)
{
	struct byte_cursor c = byte_cursor__new(data, len);
	int err = seek(&c, field, WIRE_VARINT);

	if (err)
		return err;
	*out = byte_cursor__uleb128(&c);
	return c.bad ? -EBADMSG : 0;
}

int pb_peek_bytes(const void *data, size_t len, uint32_t field, const uint8_t **p, size_t *n)
{
	struct byte_cursor c = byte_cursor__new(data, len);
	uint64_t size;
	int err = seek(&c, field, WIRE_LEN);

	if (err)
		return err;
	size = byte_cursor__uleb128(&c);
	if (c.bad || size > byte_cursor__left(&c))
		return -EBADMSG;
	*p = c.p;
	*n = (size_t)size;
	return 0;
}
