// SPDX-License-Identifier: MIT
/*
 * One capture session's state (struct capture_session), shared by session.c (open,
 * attach, drain, free), session_unwinding.c (the unwind worker and the runtimes' readers)
 * and session_end.c (its end), and the steps they take.
 */
#ifndef SLIDEOPS_CAPTURE_SESSION_INTERNAL_H
#define SLIDEOPS_CAPTURE_SESSION_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/capture_internal.h"
#include "unwind/unwind.h"

struct capture_session {
	struct capture_config config;
	const struct capture_question *q;
	struct bpf_loaded *bpf;     /* own_bpf, or the resident profiler's */
	struct bpf_loaded own_bpf;
	struct unwind_maps *resident_maps; /* the profiler's unwind maps, tables kept */
	bool held;              /* the profiler is ours until free */
	bool installed;         /* its object was loaded by this capture */
	bool discarding;        /* what a kept ring buffer held before: dropped */
	int process_links[2];   /* exec and exit; -1 when not attached */
	int *links;             /* the question's: they make samples */
	int nlinks, cap_links;
	struct ring_buffer *rb;
	struct profile *p;
	struct binaries *binaries;
	struct cgroups *cgroups;
	struct processes *processes;
	struct unwinding *unwinding; /* NULL: frame pointers only */
	struct python_procs *python; /* NULL: no Python frames */
	struct jvm_procs *jvm;       /* NULL: no Java frames */
	struct v8_procs *v8;         /* NULL: no JavaScript frames */
	struct jvm_memory *jvm_memory; /* the kernel's reader of JVMs' memory; NULL: none */
	bool jvm_memory_kept;           /* jvm_memory is the resident profiler's: not freed here */
	struct unwind_maps_plan unwind_plan;
	uint32_t kernel_mapping;
	uint64_t counters[RECORD_MAX_COUNTERS];
	uint64_t received;      /* sample records */
	/* The drain's pace (session.c): sooner until naming_until_ns, while JavaScript
	 * functions are new; what was counted at the last step, to tell. */
	uint64_t naming_until_ns;
	uint64_t javascript_met;
	uint32_t nodes_added;
	uint64_t start_ns, deadline_ns;
	uint64_t tables_ns;     /* a snapshot's wait for its tables (load_all_tables), */
	uint32_t tables_pending; /* or a sweep's; processes still without them after it */
	bool tables_waited, tables_for_sweep;
	void *question_state;   /* the question's own, for its fold */
	volatile sig_atomic_t stop;
	bool sampling, ended;
	int err;                /* from the record callback: -ENOMEM */
};

/* The unwind worker and the runtimes' readers, over the loaded maps; without them every
 * stack is a frame-pointer walk (session_unwinding.c). */
void capture_session__start_unwinding(struct capture_session *s);

/* Sampling is over: detach, keep the duration, and let the question account for what
 * is still under way. 0 or -errno (session.c). */
int capture_session__end_sampling(struct capture_session *s);
/* The exec and exit programs detached (session.c). */
void capture_session__detach_processes(struct capture_session *s);

#endif
