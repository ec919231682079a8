/* SPDX-License-Identifier: MIT */
/* The kinds of wait the locks question tells apart (a sample's lock_kind): shared by
 * bpf/locks.bpf.c, which sets them, and src/questions/locks.c, which names them. */
#ifndef SLIDEOPS_BPF_LOCKS_H
#define SLIDEOPS_BPF_LOCKS_H

enum lock_kind {
	LOCK_KIND_NONE,
	LOCK_KIND_FUTEX,        /* FUTEX_WAIT: glibc's mutexes, Go's runtime locks and notes */
	LOCK_KIND_FUTEX_BITSET, /* FUTEX_WAIT_BITSET: glibc's condition variables, joins,
				   semaphores and timed waits */
	LOCK_KIND_FUTEX_PI,     /* FUTEX_LOCK_PI(2): priority-inheritance mutexes */
	LOCK_KIND_FUTEX_REQUEUE_PI, /* FUTEX_WAIT_REQUEUE_PI: condition variables of PI mutexes */
	LOCK_KIND_FUTEX_WAITV,  /* futex_waitv: a wait on several futexes */
	LOCK_KIND_SPINLOCK,     /* kernel locks (contention_begin's flags) */
	LOCK_KIND_RWLOCK,
	LOCK_KIND_MUTEX,
	LOCK_KIND_RWSEM,
	LOCK_KIND_RTMUTEX,
	LOCK_KIND_PERCPU_RWSEM,
	/* Not a wait: a futex wake on an address others waited on, with the waker's stack
	 * and the time they waited until it (the lock's holder, releasing it). */
	LOCK_KIND_FUTEX_WAKE,
	LOCK_KIND__COUNT,
};

#endif
