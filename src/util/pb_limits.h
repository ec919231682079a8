/* SPDX-License-Identifier: MIT */
/*
 * Protocol buffers from strangers (an agent's messages, a profile it sends), read within
 * limits. protobuf-c unpacks a message whole, allocating for every field it meets: two
 * bytes on the wire (an empty element of a repeated field) cost it over 60 bytes, so a
 * 64 MB body asked serve for 4 GB. Here:
 *   - pb_budget: an allocator for protobuf_c_message_unpack that refuses past a cap of
 *     bytes held at once, counted as malloc counts them: the unpack then fails whole
 *     (NULL) and gives back what it took, and `refused` says it was the cap;
 *   - pb_peek_*: one top-level field of a message read where it lies, allocating nothing
 *     and decoding nothing else (the protocol version of a message not to be read, the
 *     enrolment token of one not yet trusted).
 * Plain C over protobuf-c; no state outside what the caller holds.
 */
#ifndef SLIDEOPS_UTIL_PB_LIMITS_H
#define SLIDEOPS_UTIL_PB_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

/* What several budgets draw from together (every batch being read at once): held bytes,
 * at most cap. Thread-safe. */
struct pb_pool {
	_Atomic size_t used;
	size_t cap;
};

struct pb_budget {
	size_t cap;              /* bytes held at once, at most */
	struct pb_pool *pool;    /* NULL: none; else each byte is also the pool's */
	bool pool_refused;       /* refused because the pool was spent, not the cap */
	size_t used;             /* held now */
	size_t peak;             /* held at most, so far */
	bool refused;            /* an allocation was refused: over the cap */
	ProtobufCAllocator allocator; /* pass &b->allocator to unpack and free_unpacked */
};

/* A budget of cap bytes (drawn from pool too, unless NULL); b must stay where it is
 * while its allocator is in use. */
void pb_budget__init(struct pb_budget *b, size_t cap, struct pb_pool *pool);

/*
 * How many times each top-level field 1 .. n occurs in [data, data + len) (counts[i] for
 * field i + 1; the others are stepped over), reading nothing else: what a repeated field
 * holds, before anything is unpacked. 0, or -EBADMSG.
 */
int pb_count_fields(const void *data, size_t len, uint64_t *counts, uint32_t n);

/*
 * The value of the first top-level varint field number `field` in [data, data + len):
 * 0 and *out; -ENOENT none; -EBADMSG the bytes before it are not protocol buffer fields.
 * Fields before it are stepped over, not read.
 */
int pb_peek_varint(const void *data, size_t len, uint32_t field, uint64_t *out);
/* The first top-level length-delimited field `field` (a string, bytes or message) as it
 * lies in data: 0 with *p and *n; -ENOENT; -EBADMSG. */
int pb_peek_bytes(const void *data, size_t len, uint32_t field, const uint8_t **p, size_t *n);

#endif
