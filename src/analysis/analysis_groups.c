// SPDX-License-Identifier: MIT
/*
 * Owner groups and their processes: each sample's group, its share and its processes;
 * what a question measures of each beyond its main value is the question's own
 * (analysis_pass__own_groups).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/answer.h"
#include "util/format.h"
#include "analysis/waits.h"

/* ---- groups and their processes ---- */

static const char *group__name(const char *label, enum group_kind kind)
{
	const char *space = strchr(label, ' ');

	/* "Service billing" -> "billing"; "Signed-in sessions" and "System" are their own. */
	if ((kind == GROUP_SERVICE || kind == GROUP_CONTAINER || kind == GROUP_UNIT) && space)
		return space + 1;
	return label;
}

struct proc_entry {
	uint32_t group;
	int32_t pid;
	uint32_t comm;
	int64_t value;
};

static int proc_entry__cmp(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return 0;
}

static int process__cmp(const void *a, const void *b)
{
	const struct analysis_process *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int analysis_group__cmp(const void *a, const void *b)
{
	const struct analysis_group *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->label, y->label);
}

void analysis_pass__own_groups(struct analysis_pass *c, void *entries, size_t each, uint32_t n)
{
	for (uint32_t g = 0; g < n && g < c->ngroups; g++)
		c->groups[g].own = (char *)entries + (size_t)g * each;
}

int analysis_pass__groups(struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t nstr = strtab__count(p->strings);
	uint32_t *by_label = malloc(sizeof(*by_label) * (nstr ? nstr : 1));
	struct proc_entry *procs = malloc(sizeof(*procs) * (p->nsamples ? p->nsamples : 1));
	size_t nprocs = 0;
	int err = -ENOMEM;

	c->group = malloc(sizeof(*c->group) * (p->nsamples ? p->nsamples : 1));
	c->groups = calloc(p->nsamples ? p->nsamples : 1, sizeof(*c->groups));
	if (!by_label || !procs || !c->group || !c->groups)
		goto out_free;
	for (uint32_t i = 0; i < nstr; i++)
		by_label[i] = NONE;

	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		uint32_t label = s->labels.group < nstr ? s->labels.group : 0;
		uint32_t g = by_label[label];

		if (!analysis_pass__counts(c, i)) {
			c->group[i] = NONE;
			continue;
		}
		if (g == NONE) {
			struct analysis_group *ng = &c->groups[c->ngroups];

			g = by_label[label] = c->ngroups++;
			ng->label = profile__str(p, label);
			ng->kind = s->labels.group_kind;
			ng->name = group__name(ng->label, ng->kind);
		}
		c->group[i] = g;
		c->groups[g].value += s->values[c->main];
		procs[nprocs++] = (struct proc_entry){ g, s->labels.pid, s->labels.comm,
						       s->values[c->main] };
	}

	/* Processes: merge by (group, pid, comm), then hand each group its run. */
	if (nprocs) {
		size_t out = 0;

		qsort(procs, nprocs, sizeof(*procs), proc_entry__cmp);
		for (size_t i = 1; i < nprocs; i++) {
			if (proc_entry__cmp(&procs[out], &procs[i]) == 0)
				procs[out].value += procs[i].value;
			else
				procs[++out] = procs[i];
		}
		nprocs = out + 1;
	}
	for (size_t i = 0; i < nprocs; i++)
		c->groups[procs[i].group].nprocesses++;
	for (uint32_t g = 0; g < c->ngroups; g++) {
		c->groups[g].processes = calloc(c->groups[g].nprocesses,
						sizeof(*c->groups[g].processes));
		if (!c->groups[g].processes)
			goto out_free;
		c->groups[g].nprocesses = 0;
	}
	for (size_t i = 0; i < nprocs; i++) {
		struct analysis_group *g = &c->groups[procs[i].group];
		struct analysis_process *pr = &g->processes[g->nprocesses++];

		pr->pid = procs[i].pid;
		pr->comm = profile__str(p, procs[i].comm);
		pr->value = procs[i].value;
		pr->share = share(pr->value, a->share_of);
	}
	for (uint32_t g = 0; g < c->ngroups; g++) {
		c->groups[g].share = share(c->groups[g].value, a->share_of);
		qsort(c->groups[g].processes, c->groups[g].nprocesses,
		      sizeof(*c->groups[g].processes), process__cmp);
	}
	err = 0;

out_free:
	free(by_label);
	free(procs);
	return err;
}

/* The profiler's own samples count in System's share, and never name where it spent. */
static bool not_the_profiler(const struct analysis_pass *c, uint32_t sample)
{
	int32_t pid = c->p->header.profiler_pid;

	return !pid || c->p->samples[sample].labels.pid != pid;
}

int analysis_pass__top_functions(struct analysis_pass *c)
{
	uint32_t *top = malloc(sizeof(*top) * (c->ngroups ? c->ngroups : 1));

	if (!top || analysis_pass__top_places(c, not_the_profiler, top)) {
		free(top);
		return -ENOMEM;
	}
	for (uint32_t g = 0; g < c->ngroups; g++)
		c->groups[g].top_function = top[g] == NONE ? NULL : profile__str(c->p, top[g]);
	free(top);
	return 0;
}
