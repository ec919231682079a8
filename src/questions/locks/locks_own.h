/* SPDX-License-Identifier: MIT */
/*
 * The locks question's own measures: what its analyse (locks.c) makes, its locks by
 * address and one struct locks_group a group (the group's own), all one block (the
 * analysis's own, struct locks_own), and only this folder reads (its views, and tests).
 */
#ifndef SLIDEOPS_QUESTIONS_LOCKS_OWN_H
#define SLIDEOPS_QUESTIONS_LOCKS_OWN_H

#include <stdint.h>

#include "analysis/analysis.h"

struct locks_group {
	int64_t contentions; /* how many waits */
	int64_t longest;     /* the longest of them (ns) */
};

/* How many waiters and holders of a lock it keeps. */
#define LOCKS_WAITERS 3

struct locks_waiter {
	const char *name;   /* a function (where the wait came from) or a process's comm */
	int32_t pid;        /* processes: the pid; functions: 0 */
	int64_t wait_ns;
};

/* Who held a lock: a stack that released it (a futex wake) while others waited on it. */
struct locks_holder {
	const char *function; /* where the release came from, as "most of it in" picks it */
	const char *process;  /* the releasing process's comm */
	int32_t pid;
	int64_t ns;           /* the waiting its releases ended */
};

/* One lock (an address in one process, or in the kernel) and who waited on it. */
struct locks_lock {
	uint64_t address;   /* the lock's address: a user address in pid, or a kernel one */
	const char *kind;   /* the lock_kind label: "futex", "kernel mutex", ... */
	int32_t pid;        /* the process whose memory holds a user lock; 0: the kernel's */
	int64_t contentions, wait_ns, longest_ns;
	double share;       /* of the profile's total wait */
	/* The largest first; empty names past the last. */
	struct locks_waiter functions[LOCKS_WAITERS];
	struct locks_waiter processes[LOCKS_WAITERS];
	/* The largest holders first; NULL functions past the last. Kernel locks: none (the
	 * kernel has no tracepoint at their release). */
	struct locks_holder holders[LOCKS_WAITERS];
	int64_t held_ns;    /* the waiting all its seen releases ended */
};

struct locks_own {
	struct locks_lock *locks; /* the longest total wait first; in this block, after the
				     groups */
	size_t nlocks;
	struct locks_group groups[]; /* as the samples met them: the groups' own */
};

/* A locks analysis's own. */
static inline const struct locks_own *locks_own__of(const struct analysis *a)
{
	return a->own;
}

/* The measures of g, a group of a locks analysis. */
static inline const struct locks_group *locks_group__of(const struct analysis_group *g)
{
	return g->own;
}

#endif
