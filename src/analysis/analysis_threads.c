// SPDX-License-Identifier: MIT
/*
 * threads: the sets of threads the samples fall into.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/answer.h"
#include "util/format.h"
#include "analysis/waits.h"

/* ---- threads: sets of threads ---- */

static int thread_set__cmp(const void *a, const void *b)
{
	const struct analysis_thread_set *x = a, *y = b;
	int c;

	if (x->threads != y->threads)
		return x->threads > y->threads ? -1 : 1;
	if ((c = strcmp(x->group, y->group)))
		return c;
	if ((c = strcmp(x->state, y->state)))
		return c;
	if ((c = strcmp(x->wait, y->wait)))
		return c;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The same set: the strings are the profile's interned ones, so equal text is an equal
 * pointer. */
static int thread_set__cmp_key(const void *a, const void *b)
{
	const struct analysis_thread_set *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait < y->wait ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int ctx__thread_sets(const struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	size_t n = 0;

	a->thread_sets = calloc(p->nsamples ? p->nsamples : 1, sizeof(*a->thread_sets));
	if (!a->thread_sets)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		a->thread_sets[n++] = (struct analysis_thread_set){
			.threads = s->values[c->main],
			.state = profile__str(p, s->labels.state),
			.wait = profile__str(p, s->labels.wait),
			.group = profile__str(p, s->labels.group),
			.stack = s->stack,
		};
	}
	/* Equal sets next to each other, merged, then largest first. */
	qsort(a->thread_sets, n, sizeof(*a->thread_sets), thread_set__cmp_key);
	if (n) {
		size_t out = 0;

		for (size_t i = 1; i < n; i++) {
			struct analysis_thread_set *x = &a->thread_sets[out], *y = &a->thread_sets[i];

			if (thread_set__cmp_key(x, y) == 0)
				x->threads += y->threads;
			else
				a->thread_sets[++out] = *y;
		}
		n = out + 1;
	}
	qsort(a->thread_sets, n, sizeof(*a->thread_sets), thread_set__cmp);
	a->nthread_sets = n;
	return 0;
}
