// SPDX-License-Identifier: MIT
#include "util/hashmap.h"

#include <errno.h>
#include <stdlib.h>

struct slot {
	uint64_t hash;
	uint32_t id; /* HASHMAP_NONE: empty */
};

struct hashmap {
	struct slot *slots;
	uint32_t cap; /* power of two */
	uint32_t count;
};

static struct slot *slots__new(uint32_t cap)
{
	struct slot *slots = malloc(sizeof(*slots) * cap);

	if (!slots)
		return NULL;
	for (uint32_t i = 0; i < cap; i++)
		slots[i].id = HASHMAP_NONE;
	return slots;
}

struct hashmap *hashmap__new(void)
{
	struct hashmap *map = calloc(1, sizeof(*map));

	if (!map)
		return NULL;
	map->cap = 64;
	map->slots = slots__new(map->cap);
	if (!map->slots) {
		free(map);
		errno = ENOMEM;
		return NULL;
	}
	return map;
}

void hashmap__free(struct hashmap *map)
{
	if (!map)
		return;
	free(map->slots);
	free(map);
}

uint32_t hashmap__find(const struct hashmap *map, uint64_t hash, const void *key,
		       hashmap_equal_fn equal, void *ctx)
{
	uint32_t mask = map->cap - 1;

	for (uint32_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
		const struct slot *s = &map->slots[i];

		if (s->id == HASHMAP_NONE)
			return HASHMAP_NONE;
		if (s->hash == hash && equal(key, s->id, ctx))
			return s->id;
	}
}

static void slots__put(struct slot *slots, uint32_t cap, uint64_t hash, uint32_t id)
{
	uint32_t mask = cap - 1;
	uint32_t i = (uint32_t)hash & mask;

	while (slots[i].id != HASHMAP_NONE)
		i = (i + 1) & mask;
	slots[i].hash = hash;
	slots[i].id = id;
}

int hashmap__insert(struct hashmap *map, uint64_t hash, uint32_t id)
{
	/* Keep the load under 1/2 so probes stay short. */
	if ((map->count + 1) * 2 > map->cap) {
		uint32_t cap = map->cap * 2;
		struct slot *slots;

		if (cap < map->cap)
			return -ENOMEM;
		slots = slots__new(cap);
		if (!slots)
			return -ENOMEM;
		for (uint32_t i = 0; i < map->cap; i++)
			if (map->slots[i].id != HASHMAP_NONE)
				slots__put(slots, cap, map->slots[i].hash, map->slots[i].id);
		free(map->slots);
		map->slots = slots;
		map->cap = cap;
	}
	slots__put(map->slots, map->cap, hash, id);
	map->count++;
	return 0;
}

uint32_t hashmap__count(const struct hashmap *map)
{
	return map->count;
}
