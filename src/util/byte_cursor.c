// SPDX-License-Identifier: MIT
/* The bounded byte cursor: see byte_cursor.h. */
#include "util/byte_cursor.h"

#include <string.h>

/* Ten 7-bit groups hold 64 bits; the tenth holds only bit 63. */
#define LEB128_MAX_BYTES 10

static bool byte_cursor__fail(struct byte_cursor *c)
{
	c->bad = true;
	return false;
}

uint64_t byte_cursor__uint(struct byte_cursor *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || n == 0 || n > 8 || (size_t)(c->end - c->p) < n)
		return byte_cursor__fail(c), 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (c->big_endian ? 8 * (n - 1 - i) : 8 * i);
	c->p += n;
	return v;
}

/* The groups of one LEB128 value into *v (unsigned), *last the final byte and *shift
 * the bits read; false (bad) when truncated or over ten bytes. */
static bool byte_cursor__leb128(struct byte_cursor *c, uint64_t *v, uint8_t *last,
				unsigned *shift)
{
	*v = 0;
	for (unsigned i = 0; i < LEB128_MAX_BYTES; i++) {
		uint8_t b;

		if (c->bad || c->p >= c->end)
			return byte_cursor__fail(c);
		b = *c->p++;
		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*last = b;
			*shift = 7 * (i + 1);
			return true;
		}
	}
	return byte_cursor__fail(c);
}

uint64_t byte_cursor__uleb128(struct byte_cursor *c)
{
	uint64_t v;
	uint8_t last;
	unsigned shift;

	if (!byte_cursor__leb128(c, &v, &last, &shift))
		return 0;
	/* The tenth byte holds bit 63 only. */
	if (shift == 7 * LEB128_MAX_BYTES && last > 1)
		return byte_cursor__fail(c), 0;
	return v;
}

int64_t byte_cursor__sleb128(struct byte_cursor *c)
{
	uint64_t v;
	uint8_t last;
	unsigned shift;

	if (!byte_cursor__leb128(c, &v, &last, &shift))
		return 0;
	if (shift == 7 * LEB128_MAX_BYTES) {
		/* Bit 63 and its sign extension: all zeros or all ones. */
		if (last != 0x00 && last != 0x7f)
			return byte_cursor__fail(c), 0;
		return (int64_t)v;
	}
	if (last & 0x40)
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

void byte_cursor__skip(struct byte_cursor *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		byte_cursor__fail(c);
		return;
	}
	c->p += n;
}

const char *byte_cursor__cstr(struct byte_cursor *c)
{
	const uint8_t *nul;
	const char *s;

	if (c->bad)
		return NULL;
	nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	if (!nul)
		return byte_cursor__fail(c), NULL;
	s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}
