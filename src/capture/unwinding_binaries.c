// SPDX-License-Identifier: MIT
/*
 * The binaries the unwind worker has looked at, by file identity: each one's build id and
 * segments read once a capture (a resident profiler keeps those facts across captures),
 * and its table taken from the on-disk cache by build id, else built from .eh_frame
 * within the caps and cached; a resident profiler's tables already in the maps are not
 * read again. The worker's whole time for this is capped (WORKER_BUDGET_NS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/binaries.h"
#include "capture/elf_facts.h"
#include "capture/unwinding_internal.h"
#include "elf/elf_reader.h"
#include "util/clock.h"

static size_t known__slot(dev_t dev, uint64_t ino, size_t cap)
{
	uint64_t h = (ino ^ ((uint64_t)dev << 32) ^ (uint64_t)dev) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

struct known *unwinding__find(struct unwinding *u, dev_t dev, uint64_t ino)
{
	if (!u->index_cap)
		return NULL;
	for (size_t i = known__slot(dev, ino, u->index_cap);; i = (i + 1) & (u->index_cap - 1)) {
		uint32_t at = u->index[i];

		if (!at)
			return NULL;
		if (u->known[at - 1].dev == dev && u->known[at - 1].ino == ino)
			return &u->known[at - 1];
	}
}

/* Room in the index for one more binary: -ENOMEM or 0. */
static int unwinding__index_reserve(struct unwinding *u)
{
	size_t cap = u->index_cap ? u->index_cap : 128;
	uint32_t *index;

	while ((u->nknown + 1) * 2 > cap)
		cap *= 2;
	if (cap == u->index_cap)
		return 0;
	index = calloc(cap, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (size_t k = 0; k < u->nknown; k++) {
		size_t i = known__slot(u->known[k].dev, u->known[k].ino, cap);

		while (index[i])
			i = (i + 1) & (cap - 1);
		index[i] = (uint32_t)k + 1;
	}
	free(u->index);
	u->index = index;
	u->index_cap = cap;
	return 0;
}

/* Reads fd's build id and gets its table, within the caps. The outcome is kept either
 * way: a binary is tried once per capture. copy: fd is a guarded read's copy, whose
 * facts are not kept by file identity (a new file each capture). */
static void known__read(struct unwinding *u, struct known *k, int fd, bool copy)
{
	const struct binaries_budget *b = binaries_budget__in_force();
	int64_t start = clock__thread_cpu_ns();
	struct elf_limits limits = {
		.max_sections = b->sections,
		.max_symbols = b->symbols,
		.bytes_left = b->bytes,
		.deadline = clock_budget__from_now(b->per_binary_ns),
	};

	if (fd < 0 || u->spent_ns >= WORKER_BUDGET_NS)
		goto out;
	/* The build id and segments: whether it has symbols is the reading's question. */
	if (elf_facts__read_identity(copy ? NULL : u->facts, fd, &limits, &k->info) != 0 ||
	    !k->info.build_id[0])
		goto out;
	k->ok = true;
	if (!u->owns_maps && unwind_maps__loaded(u->maps, k->info.build_id)) {
		k->in_maps = true;
		u->stats.cached++;
		goto out;
	}
	known__table(u, k, fd);
out:
	u->stats.binaries++;
	if (k->table || k->in_maps)
		u->stats.tables++;
	else
		u->stats.not_read++;
	u->spent_ns += clock__thread_cpu_ns() - start;
}

/* k's table: from the cache, else built from fd within the caps (and cached). */
void known__table(struct unwinding *u, struct known *k, int fd)
{
	enum unwind_not_read why = UNWIND_READ;
	struct unwind_caps caps;
	int err;

	unwind_caps__default(&caps);
	caps.max_ms = TABLE_MAX_MS;
	if (u->cache_dir) {
		struct unwind_table *cached = NULL;

		if (unwind_table__load(u->cache_dir, k->info.build_id, &cached) == 0) {
			k->table = cached;
			u->stats.cached++;
			return;
		}
		err = unwind_table__get(u->cache_dir, k->info.build_id, fd, &caps, &k->table,
					&why);
	} else {
		err = unwind_table__build(fd, &caps, &k->table, &why);
	}
	if (err)
		k->table = NULL;
}

struct known *unwinding__get(struct unwinding *u, const struct unwinding_mapping *m)
{
	struct known *k = unwinding__find(u, m->dev, m->ino);

	if (k)
		return k;
	if (unwinding__index_reserve(u))
		return NULL;
	if (u->nknown == u->cap_known) {
		size_t cap = u->cap_known ? u->cap_known * 2 : 64;
		struct known *grown = realloc(u->known, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		u->known = grown;
		u->cap_known = cap;
	}
	k = &u->known[u->nknown];
	memset(k, 0, sizeof(*k));
	k->dev = m->dev;
	k->ino = m->ino;
	{
		size_t i = known__slot(m->dev, m->ino, u->index_cap);

		while (u->index[i])
			i = (i + 1) & (u->index_cap - 1);
		u->index[i] = (uint32_t)++u->nknown;
	}
	known__read(u, k, m->fd, m->copy);
	return k;
}
