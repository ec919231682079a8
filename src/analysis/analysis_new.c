// SPDX-License-Identifier: MIT
/*
 * What a symbolized profile says (architecture.md): owner groups and their processes,
 * "most of it in", the answer, the functions by self and total, and the stripped-binary
 * card. One pass over the samples per measure; everything keyed by dense ids (string ids
 * of names and labels, indexes of locations and mappings), so a profile of 100k samples
 * and 50k locations is analysed in a few arrays, without hashing strings.
 * This file runs the passes (analysis_groups.c, analysis_functions.c, the question's own)
 * in order; what they share is analysis.c's, below them.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/waits.h"
#include "elf/elf_file.h"
#include "util/messages.h"

/*
 * Samples kept in the profile but not in the answer, groups, shares or functions: those
 * the question's sample_counts leaves out (waits.h).
 */
static int analysis_pass__classify_samples(struct analysis_pass *c, struct analysis *a,
				 const struct question_plugin *question)
{
	const struct profile *p = c->p;

	a->total = 0;
	if (question->sample_counts) {
		c->skip = calloc(p->nsamples ? p->nsamples : 1, 1);
		if (!c->skip)
			return -ENOMEM;
		for (uint32_t i = 0; i < p->nsamples; i++)
			c->skip[i] = !sample__counts(p, &p->samples[i]);
	}
	for (uint32_t i = 0; i < p->nsamples; i++)
		if (analysis_pass__counts(c, i))
			a->total += p->samples[i].values[c->main];
	return 0;
}

static int analysis_pass__classify_locations(struct analysis_pass *c)
{
	const struct profile *p = c->p;
	uint8_t *ours;

	c->tier = calloc(p->nlocations ? p->nlocations : 1, 1);
	ours = calloc(p->nmappings ? p->nmappings : 1, 1);
	if (!c->tier || !ours) {
		free(ours);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < p->nmappings; i++)
		ours[i] = mapping__is_ours(p, &p->mappings[i]);
	for (uint32_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *l = &p->locations[i];
		const struct prof_mapping *m = l->mapping < p->nmappings ?
						       &p->mappings[l->mapping] : NULL;

		if (m && m->kind == MAPPING_KERNEL)
			c->tier[i] = TIER_KERNEL;
		else if (l->file && python__is_library_file(profile__str(p, l->file)))
			c->tier[i] = TIER_USER; /* Python's standard library, installed packages */
		else if (l->language == LANGUAGE_JAVA &&
			 java__is_library_method(profile__str(p, l->name)))
			c->tier[i] = TIER_USER; /* the JDK's own classes */
		else if (l->file || (m && ours[l->mapping]))
			c->tier[i] = TIER_OWN; /* the user's interpreted code */
		else
			c->tier[i] = TIER_USER;
	}
	free(ours);
	return 0;
}

/* ---- the analysis ---- */

/* ---- stack quality ---- */

bool analysis__is_stack_root(const char *name)
{
	static const char *const roots[] = {
		"libc_start_main", "libc_start_main_impl", "libc_start_call_main",
		"clone", "clone3", "start_thread",
	};
	size_t len;

	/* _start is the ELF entry point; a function called start is anybody's. */
	if (strncmp(name, "_start", 6) == 0 && (name[6] == '\0' || name[6] == '@'))
		return true;
	while (*name == '_')
		name++;
	if (strncmp(name, "GI_", 3) == 0)
		for (name += 3; *name == '_'; name++)
			;
	len = strcspn(name, "@");
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (strlen(roots[i]) == len && strncmp(name, roots[i], len) == 0)
			return true;
	return false;
}

/* A location with no name in a file that had none for it (no .symtab, no upload). */
static bool location__unnamed(const struct profile *p, const struct prof_location *l)
{
	const struct prof_mapping *m = l->mapping < p->nmappings ? &p->mappings[l->mapping] : NULL;

	return !l->named && m && (m->kind == MAPPING_EXE || m->kind == MAPPING_LIB) &&
	       !m->has_symtab;
}

void analysis__unnamed_start_sentence(const struct analysis_unnamed_start *u, char *out,
				      size_t size)
{
	const char *slash = strrchr(u->path, '/');

	msg_format(out, size, MSG_STACKS_UNNAMED_START, slash ? slash + 1 : u->path);
}

/* The largest few of the user's binaries whose unnamed code begins stacks. */
static void analysis__unnamed_starts(const struct profile *p, struct analysis *a,
				     const int64_t *by_mapping, int64_t with_user)
{
	for (uint32_t m = 0; m < p->nmappings; m++) {
		struct analysis_unnamed_start cand = { profile__str(p, p->mappings[m].path),
						       share(by_mapping[m], with_user) };
		size_t k = 0;

		if (by_mapping[m] <= 0)
			continue;
		while (k < a->nunnamed_starts && a->unnamed_starts[k].share >= cand.share)
			k++;
		if (k == ANALYSIS_UNNAMED_STARTS)
			continue;
		if (a->nunnamed_starts < ANALYSIS_UNNAMED_STARTS)
			a->nunnamed_starts++;
		memmove(&a->unnamed_starts[k + 1], &a->unnamed_starts[k],
			sizeof(cand) * (a->nunnamed_starts - 1 - k));
		a->unnamed_starts[k] = cand;
	}
}

/*
 * The share of the main value in samples whose user stack is whole: its outermost frame
 * is a root, or unnamed code calling a root (a stripped binary's _start calling
 * __libc_start_main). A stack that begins in the unnamed code of a binary of the user's
 * that calls no named root cannot be judged before its debug symbols come: it is
 * counted by binary instead (what to upload), not as short. A stack cut short ends in
 * [truncated], which is no root.
 */
static void analysis__stack_quality(const struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	int64_t with_user = 0, judged = 0, complete = 0;
	uint8_t *root = calloc(p->nlocations ? p->nlocations : 1, 1);
	int64_t *unnamed = calloc(p->nmappings ? p->nmappings : 1, sizeof(*unnamed));

	a->stacks_complete = -1;
	a->nunnamed_starts = 0;
	if (!root || !unnamed)
		goto out;
	for (uint32_t i = 0; i < p->nlocations; i++)
		root[i] = c->tier[i] != TIER_KERNEL &&
			  analysis__is_stack_root(profile__str(p, location__name(&p->locations[i])));
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);
		const struct prof_location *outer;
		bool ours_unnamed;

		/* Leaf first: the last location is the outermost. */
		if (depth == 0 || c->tier[locs[depth - 1]] == TIER_KERNEL)
			continue;
		outer = &p->locations[locs[depth - 1]];
		with_user += s->values[c->main];
		ours_unnamed = location__unnamed(p, outer) &&
			       mapping__is_ours(p, &p->mappings[outer->mapping]);
		if (ours_unnamed)
			unnamed[outer->mapping] += s->values[c->main];
		if (root[locs[depth - 1]] ||
		    (location__unnamed(p, outer) && depth >= 2 && root[locs[depth - 2]])) {
			complete += s->values[c->main];
			judged += s->values[c->main];
		} else if (!ours_unnamed) {
			judged += s->values[c->main];
		}
	}
	if (judged > 0)
		a->stacks_complete = (double)complete / (double)judged;
	analysis__unnamed_starts(p, a, unnamed, with_user);
out:
	free(root);
	free(unnamed);
}

struct analysis *analysis__new(const struct profile *p)
{
	struct analysis *a = calloc(1, sizeof(*a));
	struct analysis_pass c = { .p = p };
	const struct prof_header *h = &p->header;
	const struct question_plugin *question = question__get(h->question);

	if (!a)
		return NULL;
	if (!question) {
		free(a);
		errno = EINVAL;
		return NULL;
	}
	a->profile = p;
	c.main = profile__main_value(p);
	a->unit = profile__str(p, p->value_types[c.main].unit);
	if (analysis_pass__classify_samples(&c, a, question))
		goto out_free;
	a->share_of = a->total;
	if (question__share_of_server(h->question) && h->ncpus && h->duration_ns)
		a->share_of = (int64_t)h->ncpus * (int64_t)h->duration_ns;

	if (analysis_pass__classify_locations(&c) || analysis_pass__groups(&c, a) ||
	    analysis_pass__top_functions(&c) ||
	    analysis_pass__functions(&c, a) || analysis_pass__stripped(&c, a))
		goto out_free;
	analysis__stack_quality(&c, a);

	/* The question's own measures, over the groups as the samples met them. */
	if (question->analyse && question->analyse(&c, a))
		goto out_free;

	/* The groups go out largest first; the answers above used them unsorted. */
	qsort(c.groups, c.ngroups, sizeof(*c.groups), analysis_group__cmp);
	a->groups = c.groups;
	a->ngroups = c.ngroups;
	c.groups = NULL;
	if (question->answer)
		a->answer = question->answer(a);
	if (!a->answer)
		goto out_free;

	free(c.tier);
	free(c.group);
	free(c.skip);
	return a;

out_free:
	if (c.groups) {
		for (uint32_t g = 0; g < c.ngroups; g++)
			free(c.groups[g].processes);
		free(c.groups);
	}
	free(c.tier);
	free(c.group);
	free(c.skip);
	analysis__free(a);
	errno = ENOMEM;
	return NULL;
}

void analysis__free(struct analysis *a)
{
	if (!a)
		return;
	for (size_t g = 0; g < a->ngroups; g++)
		free(a->groups[g].processes);
	free(a->groups);
	free(a->functions);
	free(a->stripped);
	free(a->own);
	free(a->answer);
	free(a);
}
