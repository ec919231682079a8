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

void analysis__largest_groups(const struct analysis *a, struct answer_largest *out)
{
	bool any = a->ngroups && a->total > 0;
	bool more = any && a->ngroups > 1 && a->groups[1].value > 0;

	out->first = out->next = NULL;
	if (any) {
		out->buf[0] = analysis_group__answer(&a->groups[0]);
		out->first = &out->buf[0];
	}
	if (more) {
		out->buf[1] = analysis_group__answer(&a->groups[1]);
		out->next = &out->buf[1];
	}
}

/* The answer naming the two largest groups by the main value, in sentence's words. */
char *analysis__answer_largest(const struct analysis *a, answer_sentence *sentence)
{
	struct answer_largest g;

	analysis__largest_groups(a, &g);
	return sentence(a->profile->header.duration_ns, g.first, g.next);
}
