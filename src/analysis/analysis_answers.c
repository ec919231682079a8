// SPDX-License-Identifier: MIT
/*
 * The answer sentence of each question, from the groups and the places the
 * samples are "most of it in".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/answer.h"
#include "util/format.h"
#include "analysis/waits.h"

/* ---- answers ---- */

static struct answer_group answer_group__of(const struct analysis_group *g)
{
	return (struct answer_group){ .label = g->label, .share = g->share, .value = g->value,
				      .where = g->top_function };
}

/* memory: the two groups that grew the most, net of what they gave back. */
static char *analysis__answer_memory(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	const struct analysis_group *best[2] = { NULL, NULL };
	struct answer_group first, next;

	for (size_t g = 0; g < a->ngroups; g++) {
		const struct analysis_group *x = &a->groups[g];

		if (x->net_bytes <= 0)
			continue;
		if (!best[0] || x->net_bytes > best[0]->net_bytes) {
			best[1] = best[0];
			best[0] = x;
		} else if (!best[1] || x->net_bytes > best[1]->net_bytes) {
			best[1] = x;
		}
	}
	for (int i = 0; i < 2 && best[i]; i++) {
		struct answer_group *ag = i == 0 ? &first : &next;

		*ag = answer_group__of(best[i]);
		ag->value = best[i]->net_bytes;
	}
	return answer__memory(h->duration_ns, best[0] ? &first : NULL, best[1] ? &next : NULL);
}

/* cpu, locks: the two largest groups by the main value. */
char *analysis__answer_amount(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	struct answer_group first, next;
	bool any = a->ngroups && a->total > 0;
	bool more = any && a->ngroups > 1 && a->groups[1].value > 0;

	if (any)
		first = answer_group__of(&a->groups[0]);
	if (more)
		next = answer_group__of(&a->groups[1]);
	switch (h->question) {
	case QUESTION_LOCKS:
		return answer__locks(h->duration_ns, any ? &first : NULL, more ? &next : NULL);
	case QUESTION_MEMORY:
		return analysis__answer_memory(a);
	default:
		return answer__cpu(h->duration_ns, any ? &first : NULL, more ? &next : NULL);
	}
}

static bool include_waiting(const struct ctx *c, uint32_t sample)
{
	return !sample__running(c->p, &c->p->samples[sample]);
}

struct wall_rank {
	uint32_t group;
	int64_t running, waiting;
	int64_t rank;
};

static int wall_rank__cmp(const void *a, const void *b)
{
	const struct wall_rank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->running + x->waiting != y->running + y->waiting)
		return x->running + x->waiting > y->running + y->waiting ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

/*
 * wall: which group's threads spent their time how. A machine has dozens of kernel
 * threads asleep for the whole capture; their waiting says nothing, so the System
 * group's waiting does not count towards which group leads.
 */
char *analysis__answer_wall(const struct ctx *c, const struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t ng = c->ngroups ? c->ngroups : 1;
	struct wall_rank *r = calloc(ng, sizeof(*r));
	uint32_t *waited_in = malloc(sizeof(*waited_in) * ng);
	struct answer_group first, next;
	char *answer = NULL;

	if (!r || !waited_in || ctx__top_places(c, include_waiting, waited_in))
		goto out_free;
	for (uint32_t g = 0; g < c->ngroups; g++)
		r[g].group = g;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (c->group[i] == NONE)
			continue;
		if (sample__running(p, s))
			r[c->group[i]].running += s->values[c->main];
		else
			r[c->group[i]].waiting += s->values[c->main];
	}
	for (uint32_t g = 0; g < c->ngroups; g++)
		r[g].rank = r[g].running +
			    (c->groups[g].kind == GROUP_SYSTEM ? 0 : r[g].waiting);
	qsort(r, c->ngroups, sizeof(*r), wall_rank__cmp);
	for (int i = 0; i < 2 && (uint32_t)i < c->ngroups; i++) {
		struct answer_group *ag = i == 0 ? &first : &next;

		*ag = (struct answer_group){
			.label = c->groups[r[i].group].label,
			.share = c->groups[r[i].group].share,
			.value = r[i].running,
			.waiting = r[i].waiting,
			.where = waited_in[r[i].group] == NONE ?
					 NULL :
					 profile__str(p, waited_in[r[i].group]),
		};
	}
	if (!c->ngroups || a->total <= 0)
		answer = answer__wall(p->header.duration_ns, NULL, NULL);
	else
		answer = answer__wall(p->header.duration_ns, &first,
				      c->ngroups > 1 && r[1].running + r[1].waiting > 0 ? &next :
											  NULL);

out_free:
	free(r);
	free(waited_in);
	return answer;
}

/*
 * threads: how many, running and waiting, and the largest set of threads waiting in the
 * same place (one group, one "where" frame). Kernel threads all sleep in the same few
 * kernel functions; the System group is only chosen when nothing else waits.
 */
char *analysis__answer_threads(const struct ctx *c)
{
	const struct profile *p = c->p;
	struct tally *t = malloc(sizeof(*t) * (p->nsamples ? p->nsamples : 1));
	struct answer_threads at = { 0 };
	const struct tally *best[2] = { NULL, NULL }; /* [0] others, [1] System */
	size_t n = 0;
	char *answer;

	if (!t)
		return NULL;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		int64_t v = s->values[c->main];
		enum tier tier;
		uint32_t loc;

		at.threads += v;
		if (sample__running(p, s)) {
			at.running += v;
			continue;
		}
		at.waiting += v;
		loc = ctx__where(c, s->stack, &tier);
		if (loc != NONE)
			t[n++] = (struct tally){ c->group[i], 0, location__name(&p->locations[loc]),
						 v };
	}
	n = tally__reduce(t, n);
	for (size_t i = 0; i < n; i++) {
		int sys = c->groups[t[i].key].kind == GROUP_SYSTEM;

		if (t[i].value > 0 && tally__better(p, &t[i], best[sys]))
			best[sys] = &t[i];
	}
	if (!best[0] || best[0]->value < 2)
		best[0] = best[1];
	if (best[0]) {
		at.set_size = best[0]->value;
		at.set_group = c->groups[best[0]->key].label;
		at.set_where = profile__str(p, best[0]->name);
	}
	answer = answer__threads(&at);
	free(t);
	return answer;
}
