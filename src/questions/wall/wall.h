/* SPDX-License-Identifier: MIT */
/* The wall question's own records (bpf/wall.bpf.c sends them; src/questions/wall.c folds
 * them in). */
#ifndef SLIDEOPS_BPF_WALL_H
#define SLIDEOPS_BPF_WALL_H

#include "records.h"

enum wall_record_kind {
	/* A struct stack_sample of a thread going off CPU, value 0: where the waits that
	 * follow are counted, until its next stack. */
	RECORD_WALL_STACK = RECORD_QUESTION,
	/* struct wall_flush: waiting time of a thread, for its last RECORD_WALL_STACK. */
	RECORD_WALL_FLUSH,
};

/* Per reason (ns[r - 1] for enum wait_reason r), and the thread's time on a CPU, both
 * since its last flush. */
struct wall_flush {
	__u32 kind;  /* RECORD_WALL_FLUSH */
	__u32 tid;
	__u64 ns[WAIT_REASON__COUNT - 1];
	__u64 ran_ns;
};

#endif
