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

struct wall_flush {
	__u32 kind;  /* RECORD_WALL_FLUSH */
	__u32 tid;
	__u64 ns;
};

#endif
