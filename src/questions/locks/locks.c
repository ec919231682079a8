// SPDX-License-Identifier: MIT
/*
 * "What is waiting on locks": locks.bpf.c times every futex wait and every kernel lock
 * contention and sends the waiter's stacks with the time waited. Which of the waits
 * are locks (a mutex, not a condition variable, a join or an idle pool) is told from
 * the stacks once they have names (analysis/waits.c). The question's plug-in
 * (questions/question.h): its capture row, its values, its analysis and its answer; its
 * views are locks_views.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "analysis/analysis_internal.h"
#include "analysis/waits.h"
#include "capture/capture_internal.h"
#include "locks_answer.h"
#include "locks_own.h"
#include "locks_views.h"
#include "locks.h"
#include "locks.skel.h"
#include "locks_fp.skel.h"
#include "locks_no_loop.skel.h"
#include "questions/question.h"

static const char *const programs[] = {
	"on_sys_enter",
	"on_sys_exit",
	"on_contention_begin",
	"on_contention_end",
};

/* The lock_kind label of each kind (locks.h). */
static const char *const lock_kinds[LOCK_KIND__COUNT] = {
	[LOCK_KIND_FUTEX] = "futex",
	[LOCK_KIND_FUTEX_BITSET] = "futex_bitset",
	[LOCK_KIND_FUTEX_PI] = "futex_pi",
	[LOCK_KIND_FUTEX_REQUEUE_PI] = "futex_requeue_pi",
	[LOCK_KIND_FUTEX_WAITV] = "futex_waitv",
	[LOCK_KIND_SPINLOCK] = "kernel spinlock",
	[LOCK_KIND_RWLOCK] = "kernel rwlock",
	[LOCK_KIND_MUTEX] = "kernel mutex",
	[LOCK_KIND_RWSEM] = "kernel rwsem",
	[LOCK_KIND_RTMUTEX] = "kernel rt_mutex",
	[LOCK_KIND_PERCPU_RWSEM] = "kernel percpu_rwsem",
	[LOCK_KIND_FUTEX_WAKE] = "futex_wake",
};

/* A holder's release (a futex wake while others waited), not a wait: it counts nowhere
 * but in its lock's holders. */
static bool sample__is_release(const struct profile *p, const struct prof_sample *s)
{
	return strcmp(profile__str(p, s->labels.lock_kind), "futex_wake") == 0;
}

static struct bpf_object *locks_open(void **skel, const struct kernel_features *k)
{
	struct locks_bpf *s = QUESTION_SKEL_OPEN(locks, k, locks_bpf__open());

	*skel = s;
	return s ? s->obj : NULL;
}

static void locks_destroy(void *skel)
{
	locks_bpf__destroy(skel);
}

/* A busy server's contended waits: a ring buffer for bursts of this many a second. */
static uint64_t locks_events_per_cpu(const struct capture_config *c)
{
	(void)c;
	return 4096;
}

static int locks_attach(struct capture_session *s, const struct bpf_loaded *l, const int *cpus,
			int ncpus)
{
	(void)cpus;
	(void)ncpus;
	return capture_session__attach_tracing(s, l, programs, 4);
}

static int locks_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	return bpf_loaded__probe_tracing(l, programs, 4, detail, size);
}

static const struct capture_question capture = {
	.id = QUESTION_LOCKS,
	.kernel_needs = KERNEL_NEEDS_LOCK_CONTENTION,
	.open = locks_open,
	.destroy = locks_destroy,
	.events_per_cpu = locks_events_per_cpu,
	.attach = locks_attach,
	.probe = locks_probe,
	.lock_kinds = lock_kinds,
	.nlock_kinds = LOCK_KIND__COUNT,
};

/* ---- the analysis: by address ---- */

/* The waits that are not for a lock (condition variables, joins, idle pools) are kept
 * in the profile and counted nowhere. */
static bool locks_sample_counts(const struct profile *p, const struct prof_sample *s)
{
	return !sample__is_release(p, s) && wait__is_lock(p, s);
}

/* The analysis's own (locks_own.h), one block: each group's waits and the longest, and
 * room for nlocks locks after the groups (none filled yet). NULL on ENOMEM. */
_Static_assert(sizeof(struct locks_own) % _Alignof(struct locks_lock) == 0 &&
		       sizeof(struct locks_group) % _Alignof(struct locks_lock) == 0,
	       "the locks follow the groups aligned");

static struct locks_own *locks_own__new(struct analysis_pass *c, struct analysis *a,
					size_t nlocks)
{
	const struct profile *p = c->p;
	size_t head = sizeof(struct locks_own) + c->ngroups * sizeof(struct locks_group);
	struct locks_own *own = calloc(1, head + (nlocks ? nlocks : 1) * sizeof(struct locks_lock));

	if (!own)
		return NULL;
	a->own = own;
	own->locks = (struct locks_lock *)((char *)own + head);
	analysis_pass__own_groups(c, own->groups, sizeof(own->groups[0]), c->ngroups);
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		struct locks_group *g;

		if (c->group[i] == NONE)
			continue;
		g = &own->groups[c->group[i]];
		g->contentions += s->values[0];
		if (p->nvalues > 2 && s->values[2] > g->longest)
			g->longest = s->values[2];
	}
	return own;
}

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

/* The LOCKS_WAITERS largest waiters of one lock's run w[0..n) (sorted here). */
static void lock__waiters(const struct profile *p, struct lock_wait *w, size_t n,
			  struct locks_waiter *out)
{
	qsort(w, n, sizeof(*w), lock_wait__cmp_waiter);
	for (size_t i = 0; i < n;) {
		struct locks_waiter cand = { profile__str(p, w[i].name), w[i].waiter_pid,
						     0 };
		size_t j = i;

		for (; j < n && lock_wait__cmp_waiter(&w[i], &w[j]) == 0; j++)
			cand.wait_ns += w[j].wait_ns;
		if (w[i].name != NONE) {
			for (int k = 0; k < LOCKS_WAITERS; k++) {
				if (out[k].name && out[k].wait_ns >= cand.wait_ns)
					continue;
				memmove(&out[k + 1], &out[k],
					sizeof(*out) * (size_t)(LOCKS_WAITERS - 1 - k));
				out[k] = cand;
				break;
			}
		}
		i = j;
	}
}

static int locks_lock__cmp(const void *a, const void *b)
{
	const struct locks_lock *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int locks_holders(const struct analysis_pass *c, struct locks_own *own);

/*
 * The analysis's own (locks_own__new), with the waits that count by the lock they waited
 * on: a user address names a lock only within its process (two processes' mutexes may
 * sit at the same address), a kernel address is one lock for all. Each lock gets its
 * totals and its largest waiters, by function ("where", as "most of it in" picks it) and
 * by process.
 */
static int locks_analyse(struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	struct locks_own *own;
	struct lock_wait *w = malloc(sizeof(*w) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0, nlocks = 0;

	if (!w)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const char *kind = profile__str(p, s->labels.lock_kind);
		enum tier tier;
		uint32_t loc;

		if (!analysis_pass__counts(c, i) || !s->labels.lock)
			continue;
		loc = analysis_pass__where(c, s->stack, &tier);
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
	own = locks_own__new(c, a, nlocks);
	if (!own) {
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		struct locks_lock *l = &own->locks[own->nlocks++];
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
	free(w);
	if (locks_holders(c, own))
		return -ENOMEM;
	qsort(own->locks, own->nlocks, sizeof(*own->locks), locks_lock__cmp);
	return 0;
}

/* One release of a lock, as the holders are tallied: by (lock, function, process). */
struct lock_release {
	uint64_t address;
	int32_t pid;
	uint32_t function; /* string id; NONE: no stack */
	uint32_t comm;
	int64_t ns;
};

static int lock_release__cmp(const void *a, const void *b)
{
	const struct lock_release *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->function != y->function)
		return x->function < y->function ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

/* The user lock (address, pid) among own->locks, sorted by (address, pid, kind); NULL:
 * none (a wake whose waits did not count: a condition variable's, a join's). */
static struct locks_lock *lock__find(struct locks_own *own, uint64_t address, int32_t pid)
{
	size_t lo = 0, hi = own->nlocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct locks_lock *l = &own->locks[mid];

		if (l->address < address || (l->address == address && l->pid < pid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < own->nlocks && own->locks[lo].address == address && own->locks[lo].pid == pid)
		return &own->locks[lo];
	return NULL;
}

static void lock__add_holder(struct locks_lock *l, const struct locks_holder *h)
{
	l->held_ns += h->ns;
	if (!h->function)
		return;
	for (int k = 0; k < LOCKS_WAITERS; k++) {
		if (l->holders[k].function && l->holders[k].ns >= h->ns)
			continue;
		memmove(&l->holders[k + 1], &l->holders[k],
			sizeof(*h) * (size_t)(LOCKS_WAITERS - 1 - k));
		l->holders[k] = *h;
		return;
	}
}

/*
 * Who held each lock: the releases (futex wakes while threads of the same process waited
 * on the address) by function and process, with the waiting each ended. own->locks must
 * still be in (address, pid, kind) order.
 */
static int locks_holders(const struct analysis_pass *c, struct locks_own *own)
{
	const struct profile *p = c->p;
	struct lock_release *r = malloc(sizeof(*r) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0;

	if (!r)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		enum tier tier;
		uint32_t loc;

		if (!s->labels.lock || !sample__is_release(p, s))
			continue;
		loc = analysis_pass__where(c, s->stack, &tier);
		r[n++] = (struct lock_release){
			.address = s->labels.lock,
			.pid = s->labels.pid,
			.function = loc == NONE ? NONE : location__name(&p->locations[loc]),
			.comm = s->labels.comm,
			.ns = s->values[c->main],
		};
	}
	qsort(r, n, sizeof(*r), lock_release__cmp);
	for (size_t i = 0; i < n;) {
		struct locks_lock *l = lock__find(own, r[i].address, r[i].pid);
		struct locks_holder h = {
			.function = r[i].function == NONE ? NULL : profile__str(p, r[i].function),
			.process = profile__str(p, r[i].comm),
			.pid = r[i].pid,
		};
		size_t j = i;

		for (; j < n && lock_release__cmp(&r[i], &r[j]) == 0; j++)
			h.ns += r[j].ns;
		if (l)
			lock__add_holder(l, &h);
		i = j;
	}
	free(r);
	return 0;
}

/* The holder of the lock waited on most, when one function made at least half of its
 * releases' waiting: NULL otherwise. */
static const char *locks__standing_holder(const struct analysis *a)
{
	const struct locks_own *own = locks_own__of(a);
	const struct locks_lock *l = own->nlocks ? &own->locks[0] : NULL;

	if (!l || !l->holders[0].function || l->held_ns <= 0)
		return NULL;
	return l->holders[0].ns * 2 >= l->held_ns ? l->holders[0].function : NULL;
}

static char *locks_answer(const struct analysis *a)
{
	struct answer_largest g;

	analysis__largest_groups(a, &g);
	return locks_answer__held(a->profile->header.duration_ns, g.first, g.next,
				  locks__standing_holder(a));
}

/* ---- the question ---- */

/* A CPU-like pprof whose first column is contentions (Go's mutex and block profiles). */
static int locks_pprof_match(const struct question_pprof_types *t, int cols[QUESTION_MAX_VALUES])
{
	if (t->n < 2 || question_pprof__column(t, "nanoseconds", false) != 1 ||
	    strcmp(t->type[0], "contentions") != 0)
		return -1;
	cols[0] = 0;
	cols[1] = 1;
	return 3;
}

/* How many waits, how long in all, and the longest of them (which merges by its
 * maximum). */
const struct question_plugin question_locks = {
	.id = "locks",
	.title = "What is waiting on locks",
	.value_types = { { "contentions", "count" }, { "delay", "nanoseconds" },
			 { "longest", "nanoseconds" } },
	.main_value = 1,
	.folded_value = 1,
	.max_value = 2,
	.value_bounds = { VALUE_BOUND_NONE, VALUE_BOUND_THREAD_TIME, VALUE_BOUND_SAMPLE_TIME },
	.views = { "groups", "locks", "flamegraph", "functions" },
	.pprof_match = locks_pprof_match,
	.capture = &capture,
	.sample_counts = locks_sample_counts,
	.analyse = locks_analyse,
	.answer = locks_answer,
	.group_json = locks_views__group_json,
	.group_text = locks_views__group_text,
	.document_json = locks_views__document_json,
	.report_after_groups = locks_views__report_after_groups,
};
