// SPDX-License-Identifier: MIT
#include "util/strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/hashmap.h"

#define BLOCK_SIZE (64 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct strtab {
	const char **strings;
	uint32_t *lengths;
	uint32_t count, cap;
	struct block *blocks;
	struct hashmap *index;
};

struct candidate {
	const char *s;
	size_t len;
};

static bool candidate__equal(const void *key, uint32_t id, void *ctx)
{
	const struct candidate *c = key;
	const struct strtab *tab = ctx;

	return tab->lengths[id] == c->len && memcmp(tab->strings[id], c->s, c->len) == 0;
}

struct strtab *strtab__new(void)
{
	struct strtab *tab = calloc(1, sizeof(*tab));

	if (!tab)
		return NULL;
	tab->index = hashmap__new();
	if (!tab->index || strtab__intern_len(tab, "", 0) != 0) {
		strtab__free(tab);
		errno = ENOMEM;
		return NULL;
	}
	return tab;
}

void strtab__free(struct strtab *tab)
{
	if (!tab)
		return;
	while (tab->blocks) {
		struct block *next = tab->blocks->next;

		free(tab->blocks);
		tab->blocks = next;
	}
	hashmap__free(tab->index);
	free(tab->strings);
	free(tab->lengths);
	free(tab);
}

static char *strtab__alloc(struct strtab *tab, size_t len)
{
	struct block *b = tab->blocks;
	char *out;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		/* A string larger than a block gets its own, kept behind the current one. */
		if (tab->blocks && size > BLOCK_SIZE) {
			b->next = tab->blocks->next;
			tab->blocks->next = b;
		} else {
			b->next = tab->blocks;
			tab->blocks = b;
		}
	}
	out = b->data + b->used;
	b->used += len + 1;
	return out;
}

uint32_t strtab__intern_len(struct strtab *tab, const char *s, size_t len)
{
	struct candidate c = { s ? s : "", s ? len : 0 };
	uint64_t h = hash_bytes(c.s, c.len, 0);
	uint32_t id = hashmap__find(tab->index, h, &c, candidate__equal, tab);
	char *copy;

	if (id != HASHMAP_NONE)
		return id;
	if (c.len > UINT32_MAX - 1)
		return STRTAB_NONE;
	if (tab->count == tab->cap) {
		uint32_t cap = tab->cap ? tab->cap * 2 : 256;
		const char **strings = realloc(tab->strings, sizeof(*strings) * cap);
		uint32_t *lengths;

		if (!strings)
			return STRTAB_NONE;
		tab->strings = strings;
		lengths = realloc(tab->lengths, sizeof(*lengths) * cap);
		if (!lengths)
			return STRTAB_NONE;
		tab->lengths = lengths;
		tab->cap = cap;
	}
	copy = strtab__alloc(tab, c.len);
	if (!copy)
		return STRTAB_NONE;
	memcpy(copy, c.s, c.len);
	copy[c.len] = '\0';
	id = tab->count;
	if (hashmap__insert(tab->index, h, id))
		return STRTAB_NONE;
	tab->strings[id] = copy;
	tab->lengths[id] = (uint32_t)c.len;
	tab->count++;
	return id;
}

uint32_t strtab__intern(struct strtab *tab, const char *s)
{
	return strtab__intern_len(tab, s, s ? strlen(s) : 0);
}

const char *strtab__get(const struct strtab *tab, uint32_t id)
{
	return id < tab->count ? tab->strings[id] : "";
}

uint32_t strtab__count(const struct strtab *tab)
{
	return tab->count;
}
