// SPDX-License-Identifier: MIT
/*
 * Lock waits told from other waits by the waiting stack, leaf first: the first frame
 * that names a kind of wait decides (Go's runtime.futexsleep sleeps for its locks and
 * for its idle scheduler alike, so the frame above it decides). Without such a frame,
 * the futex operation does: glibc's mutexes wait with FUTEX_WAIT (or a PI lock), its
 * condition variables, joins and semaphores with FUTEX_WAIT_BITSET.
 */
#include "analysis/waits.h"

#include <string.h>

/* Frames of lock waits, matched anywhere in the function's name. */
static const char *const lock_frames[] = {
	"__lll_lock_wait",        /* glibc: pthread_mutex_lock's slow path, stdio's locks */
	"pthread_mutex_lock",
	"pthread_mutex_timedlock",
	"pthread_mutex_clocklock",
	"pthread_rwlock_",
	"pthread_spin_lock",
	"runtime.lock2",          /* Go: the runtime's own locks */
	"runtime.lockWithRank",
	"sync.(*Mutex).lockSlow", /* Go: sync.Mutex, sync.RWMutex */
	"sync.(*RWMutex)",
	"ObjectMonitor::enter",   /* HotSpot: synchronized */
	"ObjectMonitor::EnterI",
	"lock_contended",         /* Rust: std's futex mutex and rwlock */
	"RawMutex::lock_slow",    /* Rust: parking_lot */
};

/* Frames of waits that are not for a lock. */
static const char *const other_frames[] = {
	"pthread_cond_",          /* glibc: condition variables */
	"pthread_join",
	"pthread_clockjoin",
	"pthread_timedjoin",
	"sem_wait",
	"sem_timedwait",
	"sem_clockwait",
	"runtime.notesleep",      /* Go: the scheduler's idle Ms */
	"runtime.notetsleep",
	"runtime.stopm",
	"ObjectMonitor::wait",    /* HotSpot: Object.wait */
	"Condvar",                /* Rust: condition variables, parking */
	"std::thread::park",
};

static int frame__kind(const char *name)
{
	for (size_t i = 0; i < sizeof(lock_frames) / sizeof(lock_frames[0]); i++)
		if (strstr(name, lock_frames[i]))
			return 1;
	for (size_t i = 0; i < sizeof(other_frames) / sizeof(other_frames[0]); i++)
		if (strstr(name, other_frames[i]))
			return -1;
	return 0;
}

bool wait__is_lock(const struct profile *p, const struct prof_sample *s)
{
	const char *kind = profile__str(p, s->labels.lock_kind);
	uint32_t depth;
	const uint32_t *locs = profile__stack(p, s->stack, &depth);

	/* The kernel's own locks (contention_begin): always a lock. */
	if (strncmp(kind, "kernel ", 7) == 0)
		return true;
	for (uint32_t i = 0; i < depth; i++) {
		const struct prof_location *l = &p->locations[locs[i]];
		int k = frame__kind(profile__str(p, l->name ? l->name : l->function));

		if (k)
			return k > 0;
	}
	return strcmp(kind, "futex") == 0 || strcmp(kind, "futex_pi") == 0;
}

bool sample__counts(const struct profile *p, const struct prof_sample *s)
{
	const struct question_plugin *q = question__get(p->header.question);

	return !q || !q->sample_counts || q->sample_counts(p, s);
}
