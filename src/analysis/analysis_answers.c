// SPDX-License-Identifier: MIT
/*
 * What the questions' answers share: a group as an answer names it, and the answer that
 * names the two largest groups (each question's answer is its plug-in's, src/questions/).
 */
#include "analysis/analysis_internal.h"
#include "analysis/answer.h"

/* ---- answers ---- */

struct answer_group analysis_group__answer(const struct analysis_group *g)
{
	return (struct answer_group){ .label = g->label, .share = g->share, .value = g->value,
				      .where = g->top_function };
}

/* The answer naming the two largest groups by the main value, in sentence's words. */
char *analysis__answer_largest(const struct analysis *a, answer_sentence *sentence)
{
	const struct prof_header *h = &a->profile->header;
	struct answer_group first, next;
	bool any = a->ngroups && a->total > 0;
	bool more = any && a->ngroups > 1 && a->groups[1].value > 0;

	if (any)
		first = analysis_group__answer(&a->groups[0]);
	if (more)
		next = analysis_group__answer(&a->groups[1]);
	return sentence(h->duration_ns, any ? &first : NULL, more ? &next : NULL);
}
