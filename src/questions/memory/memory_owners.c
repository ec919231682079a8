// SPDX-License-Identifier: MIT
/* memory: the owner groups' resident memory at a capture's start and end (memory_owners.h). */
#include "questions/memory/memory_owners.h"

#include <errno.h>
#include <stdlib.h>

int memory_snapshot__add(struct memory_snapshot *s, const struct memory_process *proc)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct memory_process *more = realloc(s->procs, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		s->procs = more;
		s->cap = cap;
	}
	s->procs[s->n++] = *proc;
	return 0;
}

void memory_snapshot__free(struct memory_snapshot *s)
{
	free(s->procs);
	*s = (struct memory_snapshot){ 0 };
}

static int process__cmp(const void *a, const void *b)
{
	const struct memory_process *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start_ticks > y->start_ticks) - (x->start_ticks < y->start_ticks);
}

/* The process's owner's sums; NULL on ENOMEM. */
static struct memory_owner *owner_of(struct profile *p, const struct memory_process *proc)
{
	return memory_owners__add(p, profile__str(p, proc->group), proc->kind);
}

int memory_owners__sum(struct profile *p, struct memory_snapshot *start,
		       struct memory_snapshot *end)
{
	size_t i = 0, j = 0;

	if (start->n)
		qsort(start->procs, start->n, sizeof(*start->procs), process__cmp);
	if (end->n)
		qsort(end->procs, end->n, sizeof(*end->procs), process__cmp);
	/* A merge of the two by process: in both, at the start only, at the end only. */
	while (i < start->n || j < end->n) {
		const struct memory_process *s = i < start->n ? &start->procs[i] : NULL;
		const struct memory_process *e = j < end->n ? &end->procs[j] : NULL;
		int order = !s ? 1 : !e ? -1 : process__cmp(s, e);
		struct memory_owner *om;

		if (order <= 0) {
			om = owner_of(p, s);
			if (!om)
				return -ENOMEM;
			om->rss_start += s->rss;
			om->file_start += s->file;
			om->exited += order < 0;
			i++;
		}
		if (order >= 0) {
			om = owner_of(p, e);
			if (!om)
				return -ENOMEM;
			om->rss_end += e->rss;
			om->file_end += e->file;
			om->started += order > 0;
			j++;
		}
	}
	return 0;
}
