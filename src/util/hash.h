/* SPDX-License-Identifier: MIT */
/* Hashing for the interning tables: 64-bit FNV-1a, then a final mix. Not for adversaries. */
#ifndef SLIDEOPS_UTIL_HASH_H
#define SLIDEOPS_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static inline uint64_t hash_u64(uint64_t h, uint64_t v)
{
	return hash_bytes(&v, sizeof(v), h);
}

#endif
