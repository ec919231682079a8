/* SPDX-License-Identifier: MIT */
/*
 * An index of ids: an open-addressing hash table that stores (hash, id) pairs and asks
 * the caller whether a candidate key equals the element behind an id. The elements live
 * in the caller's own arrays, so the index costs 12 bytes a slot and never copies keys.
 */
#ifndef SLIDEOPS_UTIL_HASHMAP_H
#define SLIDEOPS_UTIL_HASHMAP_H

#include <stdbool.h>
#include <stdint.h>

#define HASHMAP_NONE UINT32_MAX

struct hashmap;

typedef bool (*hashmap_equal_fn)(const void *key, uint32_t id, void *ctx);

struct hashmap *hashmap__new(void);
void hashmap__free(struct hashmap *map);

/* The id whose element equals key, or HASHMAP_NONE. */
uint32_t hashmap__find(const struct hashmap *map, uint64_t hash, const void *key,
		       hashmap_equal_fn equal, void *ctx);

/* Adds id under hash (the caller has checked it is not there). 0 or -ENOMEM. */
int hashmap__insert(struct hashmap *map, uint64_t hash, uint32_t id);

uint32_t hashmap__count(const struct hashmap *map);

#endif
