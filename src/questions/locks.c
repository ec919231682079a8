// SPDX-License-Identifier: MIT
/*
 * "What is waiting on locks": locks.bpf.c times every futex wait and every kernel lock
 * contention and sends the waiter's stacks with the time waited. Which of the waits
 * are locks (a mutex, not a condition variable, a join or an idle pool) is told from
 * the stacks once they have names (analysis/waits.c). This is the question's row.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "questions/question.h"
#include "locks.h"
#include "locks.skel.h"
#include "util/messages.h"

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
};

static struct bpf_object *locks_open(void **skel, const struct kernel_features *k)
{
	struct locks_bpf *s = locks_bpf__open();

	(void)k;
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
	.q = QUESTION_LOCKS,
	.id = "locks",
	.title = "What is waiting on locks",
	.value_types = { { "contentions", "count" }, { "delay", "nanoseconds" },
			 { "longest", "nanoseconds" } },
	.main_value = 1,
	.folded_value = 1,
	.max_value = 2,
	.views = { "groups", "locks", "flamegraph", "functions" },
	.pprof_match = locks_pprof_match,
	.capture = &capture,
};
