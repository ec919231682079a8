// SPDX-License-Identifier: MIT
/*
 * What the analysis's passes share (analysis_internal.h), below them and below
 * analysis_new.c, which runs them: whose a binary is, each sample's "where" frame, and
 * tallies by (key, tier, name) reduced to the best place of each key.
 */
#include "analysis/analysis_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "elf/elf_file.h"

/* A binary of the user's: what the card lists and "most of it in" prefers. */
bool mapping__is_ours(const struct profile *p, const struct prof_mapping *m)
{
	const char *path = profile__str(p, m->path);

	if (m->kind != MAPPING_EXE && m->kind != MAPPING_LIB && m->kind != MAPPING_JIT)
		return false;
	return !binary__is_system(path, m->from_package);
}

/* The sample's "where" frame: leaf-most of its best tier. NONE for an empty stack. */
uint32_t analysis_pass__where(const struct analysis_pass *c, uint32_t stack, enum tier *tier)
{
	uint32_t depth, best = NONE;
	const uint32_t *locs = profile__stack(c->p, stack, &depth);
	enum tier best_tier = TIER__COUNT;

	for (uint32_t i = 0; i < depth && best_tier != TIER_OWN; i++) {
		if (c->tier[locs[i]] < best_tier) {
			best_tier = c->tier[locs[i]];
			best = locs[i];
		}
	}
	*tier = best_tier;
	return best;
}

/* ---- tallies: sums by (key, tier, name), reduced by sorting ---- */

static int tally__cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return 0;
}

/* Sorts and merges equal (key, tier, name) entries; returns the new count. */
size_t tally__reduce(struct tally *t, size_t n)
{
	size_t out = 0;

	if (!n)
		return 0;
	qsort(t, n, sizeof(*t), tally__cmp);
	for (size_t i = 1; i < n; i++) {
		if (tally__cmp(&t[out], &t[i]) == 0)
			t[out].value += t[i].value;
		else
			t[++out] = t[i];
	}
	return out + 1;
}

/* Is name a better pick than the current best (more value, then the first by name)? */
bool tally__better(const struct profile *p, const struct tally *cand,
		   const struct tally *best)
{
	if (!best)
		return true;
	if (cand->value != best->value)
		return cand->value > best->value;
	return strcmp(profile__str(p, cand->name), profile__str(p, best->name)) < 0;
}

/*
 * For each key in [0, nkeys): the name with the most value in the best tier the key
 * has. out[key] is a string id, or NONE. t is reduced in place.
 */
static void tally__best(const struct profile *p, struct tally *t, size_t n, uint32_t nkeys,
			uint32_t *out)
{
	const struct tally *best = NULL;

	for (uint32_t k = 0; k < nkeys; k++)
		out[k] = NONE;
	n = tally__reduce(t, n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].value <= 0)
			continue;
		best = out[t[i].key] == NONE ? NULL : best;
		/* Entries are sorted by tier within a key: the first tier seen is the best. */
		if (best && t[i].tier != best->tier)
			continue;
		if (tally__better(p, &t[i], best)) {
			best = &t[i];
			out[t[i].key] = t[i].name;
		}
	}
}

/*
 * "Most of it in" for every group, over the samples include() accepts (NULL: all).
 * out[g] is a string id or NONE.
 */
int analysis_pass__top_places(const struct analysis_pass *c,
			      bool (*include)(const struct analysis_pass *, uint32_t),
			      uint32_t *out)
{
	const struct profile *p = c->p;
	struct tally *t = malloc(sizeof(*t) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0;

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		enum tier tier;
		uint32_t loc;

		if (c->group[i] == NONE || (include && !include(c, i)))
			continue;
		loc = analysis_pass__where(c, s->stack, &tier);
		if (loc == NONE)
			continue;
		t[n++] = (struct tally){ c->group[i], tier,
					 location__name(&p->locations[loc]),
					 s->values[c->main] };
	}
	tally__best(p, t, n, c->ngroups, out);
	free(t);
	return 0;
}
