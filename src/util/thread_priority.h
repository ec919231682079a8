// SPDX-License-Identifier: MIT
/*
 * The calling thread's nice value, raised for a piece of work and set back after it.
 * Linux keeps a nice value per thread; threads (and processes) started while it is
 * raised inherit it.
 */
#ifndef SLIDEOPS_UTIL_THREAD_PRIORITY_H
#define SLIDEOPS_UTIL_THREAD_PRIORITY_H

/* What thread_priority__raise changed, for thread_priority__restore. */
struct thread_priority {
	int was;      /* the nice value before */
	int changed;  /* 0: nothing to set back */
};

/* Raises the calling thread to nice (a lower value runs first) unless it already runs
 * at that or above. 0, or -errno when not permitted (it runs as it was). */
int thread_priority__raise(int nice, struct thread_priority *saved);
/* Sets back what thread_priority__raise changed on this thread; nothing otherwise. */
void thread_priority__restore(const struct thread_priority *saved);

#endif
