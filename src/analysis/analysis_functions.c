// SPDX-License-Identifier: MIT
/*
 * Functions by self and total, and the stripped-binary card: the binaries of the
 * user's without symbols, and how much of the time they hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/answer.h"
#include "util/format.h"
#include "analysis/waits.h"

/* ---- functions ---- */

struct fn_acc {
	uint32_t name;
	enum language language;
	int64_t self, total;
	uint32_t seen;  /* the last sample (+1) that counted it: once per sample */
};

static int function__cmp(const void *a, const void *b)
{
	const struct analysis_function *x = a, *y = b;

	if (x->self_value != y->self_value)
		return x->self_value > y->self_value ? -1 : 1;
	if (x->total_value != y->total_value)
		return x->total_value > y->total_value ? -1 : 1;
	return strcmp(x->name, y->name);
}

int analysis_pass__functions(struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t nstr = strtab__count(p->strings), n = 0;
	uint32_t *by_name = malloc(sizeof(*by_name) * (nstr ? nstr : 1));
	struct fn_acc *acc = calloc(p->nlocations ? p->nlocations : 1, sizeof(*acc));
	int err = -ENOMEM;

	if (!by_name || !acc)
		goto out_free;
	for (uint32_t i = 0; i < nstr; i++)
		by_name[i] = NONE;

	for (uint32_t si = 0; si < p->nsamples; si++) {
		const struct prof_sample *s = &p->samples[si];
		int64_t v = s->values[c->main];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);

		for (uint32_t i = 0; i < depth && analysis_pass__counts(c, si); i++) {
			const struct prof_location *l = &p->locations[locs[i]];
			uint32_t name = location__name(l) < nstr ? location__name(l) : 0;
			struct fn_acc *f;

			if (by_name[name] == NONE) {
				/* At most one function per location: n < nlocations. */
				by_name[name] = n;
				acc[n].name = name;
				acc[n].language = l->language;
				n++;
			}
			f = &acc[by_name[name]];
			if (i == 0)
				f->self += v;
			if (f->seen != si + 1) {
				f->seen = si + 1;
				f->total += v;
			}
		}
	}

	a->functions = calloc(n ? n : 1, sizeof(*a->functions));
	if (!a->functions)
		goto out_free;
	for (uint32_t i = 0; i < n; i++) {
		struct analysis_function *f = &a->functions[i];

		f->name = profile__str(p, acc[i].name);
		f->language = acc[i].language;
		f->self_value = acc[i].self;
		f->total_value = acc[i].total;
		f->self = share(acc[i].self, a->total);
		f->total = share(acc[i].total, a->total);
	}
	a->nfunctions = n;
	qsort(a->functions, n, sizeof(*a->functions), function__cmp);
	err = 0;

out_free:
	free(by_name);
	free(acc);
	return err;
}

/* ---- the stripped-binary card ---- */

static int stripped__cmp(const void *a, const void *b)
{
	const struct analysis_stripped *x = a, *y = b;

	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The capture could not read m at all (no build id, facts unknown): whether it was
 * stripped is not known, and "Binaries not read" says why; the card would only guess. */
static bool mapping__unread(const struct profile *p, const struct prof_mapping *m)
{
	const char *path = profile__str(p, m->path);

	if (profile__str(p, m->build_id)[0])
		return false;
	for (uint32_t i = 0; i < p->header.nnot_read; i++) {
		const struct prof_not_read *nr = &p->header.not_read[i];

		if (!profile__str(p, nr->build_id)[0] && strcmp(profile__str(p, nr->path), path) == 0)
			return true;
	}
	return false;
}

int analysis_pass__stripped(struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t nm = p->nmappings ? p->nmappings : 1;
	uint32_t *unnamed = malloc(sizeof(*unnamed) * (p->nlocations ? p->nlocations : 1));
	uint32_t *seen = calloc(nm, sizeof(*seen));
	int64_t *value = calloc(nm, sizeof(*value));
	uint8_t *ours = calloc(nm, 1);
	int err = -ENOMEM;
	size_t n = 0;

	if (!unnamed || !seen || !value || !ours)
		goto out_free;
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];

		/* JIT code is named by its runtime, never by an upload: not on the card. */
		ours[i] = m->kind != MAPPING_JIT && mapping__is_ours(p, m) &&
			  !mapping__unread(p, m);
	}
	for (uint32_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *l = &p->locations[i];

		unnamed[i] = !l->named && !l->file && l->mapping < p->nmappings &&
					     ours[l->mapping] ?
				     l->mapping :
				     NONE;
	}
	/* A sample counts once for a binary, however many of its frames have no name. */
	for (uint32_t si = 0; si < p->nsamples; si++) {
		const struct prof_sample *s = &p->samples[si];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);

		for (uint32_t i = 0; i < depth && analysis_pass__counts(c, si); i++) {
			uint32_t m = unnamed[locs[i]];

			if (m == NONE || seen[m] == si + 1)
				continue;
			seen[m] = si + 1;
			value[m] += s->values[c->main];
		}
	}

	a->stripped = calloc(nm, sizeof(*a->stripped));
	if (!a->stripped)
		goto out_free;
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];
		struct analysis_stripped *st;
		double sh = share(value[i], a->total);

		if (value[i] <= 0 || sh < 0.01)
			continue;
		st = &a->stripped[n++];
		st->path = profile__str(p, m->path);
		st->share = sh;
		st->build_id = profile__str(p, m->build_id);
		st->has_build_id = st->build_id[0] != '\0';
		st->build_id_recorded = m->build_id_recorded;
		if (!m->build_id_recorded)
			a->build_ids_missing = true;
	}
	a->nstripped = n;
	qsort(a->stripped, n, sizeof(*a->stripped), stripped__cmp);
	err = 0;

out_free:
	free(unnamed);
	free(seen);
	free(value);
	free(ours);
	return err;
}
