/* SPDX-License-Identifier: MIT */
/*
 * The user-stack walk as a BPF program calls it: the maps of unwind_maps.h, the walker of
 * unwind_walk.h over them. One set of drivers for every caller: the engine's bpf/stack.h (a
 * sample's frames after its kernel ones, the current task's or, from a sleepable task
 * iterator, another task's) and bpf/unwind_check.bpf.c (the BPF unit tests and `check`).
 * Include after vmlinux.h, bpf_helpers.h, bpf_core_read.h.
 *
 * How it stays small for the verifier (docs/kernel.md, "The walker and the verifier's
 * budget"): what the verifier checks grows with the product of the paths it must keep
 * apart, so nothing that varies from frame to frame is kept where it tracks values.
 *
 *   - A walk's state (registers, where the next frame goes, why it stopped) lives in a
 *     map value the caller owns (struct unwind_walk), never on the BPF stack: each frame
 *     reads it back as unknown numbers, so every frame looks the same to the verifier.
 *   - One frame is a global function (unwind_frame_current, unwind_frame_task): checked
 *     once, on its own, with its arguments unknown; a caller sees only its result. The
 *     row search inside it is a global function of its own (unwind_search_global), and the
 *     mapping search has no jump at all (unwind_find_table).
 *   - The walk is a bounded loop over that call, not bpf_loop: each of its
 *     UNWIND_MAX_DEPTH turns costs the verifier a few instructions, and it needs nothing
 *     newer than global functions with pointer arguments (5.12).
 *
 * Measured on 6.18 (bench/kernels): a question's largest program is checked in a few
 * thousand instructions where the walker inlined into a bpf_loop callback took 337,000
 * on one build and more than 1,000,000 on a later one.
 *
 * The task walk (another thread, from a sleepable iterator) reads with
 * bpf_copy_from_user_task, which needs the task as a trusted pointer: a global function
 * takes one from 6.8 (arg:trusted). Objects built with NO_TRUSTED_ARGS, for older
 * kernels, drive the same frame inline from a bpf_loop callback instead, whose context
 * holds only what does not change (those kernels check a callback once).
 * Its circle with unwind_walk.h, unwind_maps.h stays: the verifier checks the search once, here.
 */
#ifndef SLIDEOPS_BPF_UNWIND_USER_H
#define SLIDEOPS_BPF_UNWIND_USER_H

#include "unwind_maps.h"

#define UNWIND_CTX struct unwind_bpf_ctx
#include "unwind_walk.h"

__noinline int unwind_search_global(__u32 first, __u32 count, __u32 pc, struct unwind_row *row)
{
	struct unwind_bpf_ctx uc = { 0 };

	if (!row)
		return UNWIND_STOP_TABLE_MISS;
	return unwind_search(&uc, first, count, pc, row);
}

/*
 * The pcs array a walk writes into holds UNWIND_USER_PCS entries: every store is masked
 * with UNWIND_USER_PCS_MASK, which is all the verifier needs to see it in bounds, whatever
 * entry the walk starts at (a sample's user frames start after its kernel ones).
 */
#define UNWIND_USER_PCS 256
#define UNWIND_USER_PCS_MASK (UNWIND_USER_PCS - 1)
_Static_assert((UNWIND_USER_PCS & UNWIND_USER_PCS_MASK) == 0, "a mask the verifier relies on");
_Static_assert(UNWIND_MAX_DEPTH < UNWIND_USER_PCS, "a whole walk fits");

struct unwind_pcs {
	__u64 pc[UNWIND_USER_PCS];
};

/* One walk between its frames, in a map value (a per-CPU slot of the caller's). */
struct unwind_walk {
	struct unwind_regs regs;
	__u32 at;      /* the next entry of pcs to fill */
	__u32 end;     /* no entry from here on */
	__u32 reason;  /* enum unwind_stop */
	__u32 pad;
};

#ifndef __arg_trusted
/* A global function's argument the verifier keeps as a trusted kernel pointer (6.8+). */
#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#endif

/*
 * One frame: its pc into pcs, then its caller's registers into w. 0: go on; 1: the walk
 * is over (w->reason says why). task: NULL for the current task (a constant where this is
 * expanded, so that the helper that may sleep is not even in the non-sleeping copy).
 */
static __always_inline int unwind_frame_body(struct unwind_walk *w, struct unwind_pcs *pcs,
					     const struct unwind_proc *proc,
					     struct task_struct *task)
{
	struct unwind_bpf_ctx uc = { .proc = proc, .task = task };
	struct unwind_regs regs;
	__u32 at;
	int r;

	if (!w || !pcs)
		return 1;
	at = w->at;
	regs = w->regs;
	if (regs.ip == 0) {
		w->reason = UNWIND_STOP_IP_ZERO;
		return 1;
	}
	if (at >= w->end || at >= UNWIND_USER_PCS)
		return 1; /* reason stays UNWIND_STOP_DEPTH */
	pcs->pc[at & UNWIND_USER_PCS_MASK] = regs.ip;
	w->at = at + 1;
	if (proc && proc->n == 0)
		uc.proc = NULL; /* the empty process: frame pointers only */
	r = unwind_step(&uc, &regs);
	w->regs = regs;
	if (r >= 0) {
		w->reason = (__u32)r;
		return 1;
	}
	return 0;
}

/* The current task's next frame (any program: bpf_probe_read_user). proc: its tables,
 * or a process of no mappings (unwind_no_proc) for frame pointers all the way. */
__noinline int unwind_frame_current(struct unwind_walk *w, struct unwind_pcs *pcs,
				    const struct unwind_proc *proc)
{
	return unwind_frame_body(w, pcs, proc, NULL);
}

/* A process with no mappings: what a walk without tables is handed (global functions
 * take pointers to memory, never a NULL known in advance). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_proc);
} unwind_no_proc SEC(".maps");

static __always_inline const struct unwind_proc *unwind_proc_or_none(const struct unwind_proc *p)
{
	__u32 zero = 0;

	return p ? p : bpf_map_lookup_elem(&unwind_no_proc, &zero);
}

/* Starts w: from regs, frames into pcs from entry at, at most max of them. */
static __always_inline void unwind_walk_begin(struct unwind_walk *w, const struct unwind_regs *regs,
					      __u32 at, __u32 max)
{
	w->regs = *regs;
	w->at = at;
	w->end = at + (max < UNWIND_MAX_DEPTH ? max : UNWIND_MAX_DEPTH);
	w->reason = UNWIND_STOP_DEPTH;
}

/* The walk: FRAME (a call of one of the global frame functions) until it says the walk
 * is over, at most UNWIND_MAX_DEPTH times; a loop the verifier checks in a few
 * instructions a turn, as FRAME is checked once on its own. Not unrolled: the point is
 * that nothing of it repeats. Evaluates to the frames walked. */
#define UNWIND_WALK_FRAMES(w, at, FRAME)                                \
	({                                                              \
		_Pragma("clang loop unroll(disable)")                   \
		for (int i_ = 0; i_ < UNWIND_MAX_DEPTH; i_++)           \
			if (FRAME)                                      \
				break;                                  \
		(w)->at - (at);                                         \
	})

/*
 * The current task's user stack from regs (bp_known and after_signal set by the caller)
 * with the tables of proc (NULL: frame pointers all the way): frames into pcs from entry
 * at, at most max of them, never past pcs[UNWIND_USER_PCS - 1]. Returns the number of
 * frames; w->reason says why the walk stopped (UNWIND_STOP_DEPTH: max frames, or the end
 * of pcs).
 */
static __always_inline __u32 unwind_user_walk_current(struct unwind_walk *w, struct unwind_pcs *pcs,
						      const struct unwind_proc *proc,
						      const struct unwind_regs *regs, __u32 at,
						      __u32 max)
{
	proc = unwind_proc_or_none(proc);
	if (!proc)
		return 0;
	unwind_walk_begin(w, regs, at, max);
	return UNWIND_WALK_FRAMES(w, at, unwind_frame_current(w, pcs, proc));
}

#ifndef NO_TRUSTED_ARGS
/* Another task's next frame (sleepable programs only: bpf_copy_from_user_task). */
__noinline int unwind_frame_task(struct unwind_walk *w, struct unwind_pcs *pcs,
				 const struct unwind_proc *proc,
				 struct task_struct *task __arg_trusted)
{
	return unwind_frame_body(w, pcs, proc, task);
}

/* The same walk for another task (sleepable programs only). */
static __always_inline __u32 unwind_user_walk_task(struct unwind_walk *w, struct unwind_pcs *pcs,
						   const struct unwind_proc *proc,
						   struct task_struct *task,
						   const struct unwind_regs *regs, __u32 at,
						   __u32 max)
{
	proc = unwind_proc_or_none(proc);
	if (!proc)
		return 0;
	unwind_walk_begin(w, regs, at, max);
	return UNWIND_WALK_FRAMES(w, at, unwind_frame_task(w, pcs, proc, task));
}
#else
/* Kernels before 6.8: the frame inline in a bpf_loop callback whose context never
 * changes (the walk's state is in w's map value); those kernels check a callback once. */
struct unwind_task_loop {
	struct unwind_walk *w;
	struct unwind_pcs *pcs;
	const struct unwind_proc *proc;
	struct task_struct *task;
};

static long unwind_task_frame(__u32 i, void *arg)
{
	struct unwind_task_loop *l = arg;

	return unwind_frame_body(l->w, l->pcs, l->proc, l->task);
}

static __always_inline __u32 unwind_user_walk_task(struct unwind_walk *w, struct unwind_pcs *pcs,
						   const struct unwind_proc *proc,
						   struct task_struct *task,
						   const struct unwind_regs *regs, __u32 at,
						   __u32 max)
{
	struct unwind_task_loop l = { .w = w, .pcs = pcs, .task = task };

	l.proc = unwind_proc_or_none(proc);
	if (!l.proc)
		return 0;
	unwind_walk_begin(w, regs, at, max);
	bpf_loop(UNWIND_MAX_DEPTH, unwind_task_frame, &l, 0);
	return w->at - at;
}
#endif /* NO_TRUSTED_ARGS */

#endif
