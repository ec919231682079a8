// SPDX-License-Identifier: MIT
/*
 * locks: waits by lock address, with who holds each and who waits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/answer.h"
#include "util/format.h"
#include "analysis/waits.h"

/* ---- locks: by address ---- */

struct lock_wait {
	uint64_t address;
	int32_t pid;          /* 0 for the kernel's locks: one address space */
	uint32_t kind;        /* string id */
	uint32_t function;    /* where the wait came from (string id); NONE: no stack */
	uint32_t comm;
	int32_t process;      /* the waiting process's pid */
	/* The waiter being tallied: (function, 0) or (comm, pid). */
	uint32_t name;
	int32_t waiter_pid;
	int64_t contentions, wait_ns, longest_ns;
};

static int lock_wait__cmp_lock(const void *a, const void *b)
{
	const struct lock_wait *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int lock_wait__cmp_waiter(const void *a, const void *b)
{
	const struct lock_wait *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->waiter_pid < y->waiter_pid ? -1 : x->waiter_pid > y->waiter_pid;
}

/* The ANALYSIS_LOCK_WAITERS largest waiters of one lock's run w[0..n) (sorted here). */
static void lock__waiters(const struct profile *p, struct lock_wait *w, size_t n,
			  struct analysis_lock_waiter *out)
{
	qsort(w, n, sizeof(*w), lock_wait__cmp_waiter);
	for (size_t i = 0; i < n;) {
		struct analysis_lock_waiter cand = { profile__str(p, w[i].name), w[i].waiter_pid,
						     0 };
		size_t j = i;

		for (; j < n && lock_wait__cmp_waiter(&w[i], &w[j]) == 0; j++)
			cand.wait_ns += w[j].wait_ns;
		if (w[i].name != NONE) {
			for (int k = 0; k < ANALYSIS_LOCK_WAITERS; k++) {
				if (out[k].name && out[k].wait_ns >= cand.wait_ns)
					continue;
				memmove(&out[k + 1], &out[k],
					sizeof(*out) * (size_t)(ANALYSIS_LOCK_WAITERS - 1 - k));
				out[k] = cand;
				break;
			}
		}
		i = j;
	}
}

static int analysis_lock__cmp(const void *a, const void *b)
{
	const struct analysis_lock *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * The waits that count, by the lock they waited on: a user address names a lock only
 * within its process (two processes' mutexes may sit at the same address), a kernel
 * address is one lock for all. Each lock gets its totals and its largest waiters, by
 * function ("where", as "most of it in" picks it) and by process.
 */
int ctx__locks(const struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	struct lock_wait *w = malloc(sizeof(*w) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0, nlocks = 0;

	if (!w)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const char *kind = profile__str(p, s->labels.lock_kind);
		enum tier tier;
		uint32_t loc;

		if (!ctx__counts(c, i) || !s->labels.lock)
			continue;
		loc = ctx__where(c, s->stack, &tier);
		w[n++] = (struct lock_wait){
			.address = s->labels.lock,
			.pid = strncmp(kind, "kernel ", 7) == 0 ? 0 : s->labels.pid,
			.kind = s->labels.lock_kind,
			.function = loc == NONE ? NONE : location__name(&p->locations[loc]),
			.comm = s->labels.comm,
			.process = s->labels.pid,
			.contentions = s->values[0],
			.wait_ns = s->values[c->main],
			.longest_ns = p->nvalues > 2 ? s->values[2] : 0,
		};
	}
	qsort(w, n, sizeof(*w), lock_wait__cmp_lock);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || lock_wait__cmp_lock(&w[i - 1], &w[i]))
			nlocks++;
	a->locks = calloc(nlocks ? nlocks : 1, sizeof(*a->locks));
	if (!a->locks) {
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		struct analysis_lock *l = &a->locks[a->nlocks++];
		size_t j = i;

		l->address = w[i].address;
		l->pid = w[i].pid;
		l->kind = profile__str(p, w[i].kind);
		for (; j < n && lock_wait__cmp_lock(&w[i], &w[j]) == 0; j++) {
			l->contentions += w[j].contentions;
			l->wait_ns += w[j].wait_ns;
			if (w[j].longest_ns > l->longest_ns)
				l->longest_ns = w[j].longest_ns;
		}
		l->share = share(l->wait_ns, a->total);
		for (size_t k = i; k < j; k++) {
			w[k].name = w[k].function;
			w[k].waiter_pid = 0;
		}
		lock__waiters(p, &w[i], j - i, l->functions);
		/* The same run again, each wait now under its process. */
		for (size_t k = i; k < j; k++) {
			w[k].name = w[k].comm;
			w[k].waiter_pid = w[k].process;
		}
		lock__waiters(p, &w[i], j - i, l->processes);
		i = j;
	}
	qsort(a->locks, a->nlocks, sizeof(*a->locks), analysis_lock__cmp);
	free(w);
	return 0;
}
