/* SPDX-License-Identifier: MIT */
/*
 * What the analysis files share: the context of one analysis and the passes over it.
 *   analysis_new.c        the whole: the context, frames' tiers, stack quality, and the
 *                         passes below run in order
 *   analysis_groups.c     owner groups and their processes
 *   analysis_functions.c  functions by self and total; the stripped-binary card
 *   analysis_answers.c    what the questions' answers share
 *   analysis.c            below the passes: whose a binary is, a sample's "where" frame,
 *                         tallies
 * Each question's own measures and answer are its plug-in's (src/questions/), called
 * through its struct question_plugin with this context.
 */
#ifndef SLIDEOPS_ANALYSIS_INTERNAL_H
#define SLIDEOPS_ANALYSIS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/answer.h"

#define NONE UINT32_MAX

/*
 * How far a frame is from "the group's own code", best first. "Most of it in" takes
 * each sample's leaf-most frame of the best tier it has (architecture.md).
 */
enum tier {
	TIER_OWN,    /* the group's own code: not kernel, not a runtime, not a system library */
	TIER_USER,   /* any other user-space frame (runtimes, system libraries, vdso, anon) */
	TIER_KERNEL,
	TIER__COUNT,
};

struct analysis_pass {
	const struct profile *p;
	uint32_t main;         /* index of the main value */
	uint8_t *tier;         /* per location */
	uint32_t *group;       /* per sample: index into groups (unsorted); NONE: left out */
	uint8_t *skip;         /* per sample: not what the question is about (its
				  sample_counts said so); NULL: every sample counts */
	struct analysis_group *groups;
	uint32_t ngroups;
};

struct tally {
	uint32_t key;
	uint32_t tier;
	uint32_t name;
	int64_t value;
};

static inline uint32_t location__name(const struct prof_location *l)
{
	return l->name ? l->name : l->function;
}

static inline bool analysis_pass__counts(const struct analysis_pass *c, uint32_t sample)
{
	return !c->skip || !c->skip[sample];
}

static inline double share(int64_t value, int64_t of)
{
	return of > 0 ? (double)value / (double)of : 0.0;
}

static inline bool sample__running(const struct profile *p, const struct prof_sample *s)
{
	return strcmp(profile__str(p, s->labels.state), "running") == 0;
}

/* A binary of the user's: what the card lists and "most of it in" prefers. */
bool mapping__is_ours(const struct profile *p, const struct prof_mapping *m);
/* The sample's "where" frame: leaf-most of its best tier. NONE for an empty stack. */
uint32_t analysis_pass__where(const struct analysis_pass *c, uint32_t stack, enum tier *tier);
size_t tally__reduce(struct tally *t, size_t n);
bool tally__better(const struct profile *p, const struct tally *cand,
		   const struct tally *best);
int analysis_pass__top_places(const struct analysis_pass *c,
			      bool (*include)(const struct analysis_pass *, uint32_t),
			      uint32_t *out);

int analysis_group__cmp(const void *a, const void *b);
int analysis_pass__groups(struct analysis_pass *c, struct analysis *a);
int analysis_pass__top_functions(struct analysis_pass *c);
int analysis_pass__functions(struct analysis_pass *c, struct analysis *a);
int analysis_pass__stripped(struct analysis_pass *c, struct analysis *a);
/* A question's own measures of each group: entries, n of each bytes in a row (the group
 * of index g, c->groups unsorted, at entries + g * each), become the own of the first n
 * groups. The question makes and frees entries (a part of the analysis's own). */
void analysis_pass__own_groups(struct analysis_pass *c, void *entries, size_t each, uint32_t n);

/* A group as an answer names it. */
struct answer_group analysis_group__answer(const struct analysis_group *g);
/* An answer sentence of answer.h naming the first group and the next (NULL: none). */
typedef char *answer_sentence(uint64_t duration_ns, const struct answer_group *first,
			      const struct answer_group *next);
/* The two largest groups by the main value as an answer names them, in buf: *first
 * and *next point into it, or are NULL when there is no such group. */
struct answer_largest {
	struct answer_group buf[2];
	const struct answer_group *first, *next;
};
void analysis__largest_groups(const struct analysis *a, struct answer_largest *out);
/* The answer naming the two largest groups by the main value, in sentence's words. */
char *analysis__answer_largest(const struct analysis *a, answer_sentence *sentence);

#endif
