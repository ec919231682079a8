/* SPDX-License-Identifier: MIT */
/*
 * A bounded cursor over bytes that are hostile until read: fixed-size integers in either
 * byte order, LEB128 varints and NUL-terminated strings, every read checked against the
 * end. A read that does not fit marks the cursor bad and returns 0; every later read
 * does the same, so a caller checks `bad` once per record instead of after each field.
 */
#ifndef SLIDEOPS_UTIL_BYTE_CURSOR_H
#define SLIDEOPS_UTIL_BYTE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct byte_cursor {
	const uint8_t *p, *end;
	bool big_endian;
	bool bad;
};

/* Over [data, data + len), little-endian. */
static inline struct byte_cursor byte_cursor__new(const void *data, size_t len)
{
	const uint8_t *p = data;

	return (struct byte_cursor){ .p = p, .end = p + len };
}

static inline size_t byte_cursor__left(const struct byte_cursor *c)
{
	return c->bad ? 0 : (size_t)(c->end - c->p);
}

/* An unsigned integer of n bytes (1 to 8) in the cursor's byte order. */
uint64_t byte_cursor__uint(struct byte_cursor *c, unsigned n);
/*
 * LEB128 (DWARF 5 §7.6). Bad when truncated, or overlong: more than 10 bytes, or a
 * 10th byte carrying bits a 64-bit value does not have (for signed values, bits other
 * than the sign's extension).
 */
uint64_t byte_cursor__uleb128(struct byte_cursor *c);
int64_t byte_cursor__sleb128(struct byte_cursor *c);
/* Moves past n bytes; bad when fewer are left. */
void byte_cursor__skip(struct byte_cursor *c, uint64_t n);
/* The NUL-terminated string at the cursor, moved past its NUL; NULL (and bad) when no
 * NUL comes before the end. */
const char *byte_cursor__cstr(struct byte_cursor *c);

#endif
