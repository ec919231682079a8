/* SPDX-License-Identifier: MIT */
/*
 * The user-stack walk as a BPF program calls it: the maps of unwind_maps.h, the walker of
 * unwind_walk.h over them, driven one frame per bpf_loop iteration. One driver for every
 * caller: the engine's bpf/stack.h (a sample's frames after its kernel ones, the current
 * task's or, from a sleepable task iterator, another task's) and bpf/unwind_check.bpf.c
 * (the BPF unit tests and `check`), through unwind_user_stack below with its per-CPU
 * counter of every reason a walk stopped. Include after vmlinux.h, bpf_helpers.h,
 * bpf_core_read.h.
 *
 * bpf_loop, not a bounded for loop: unrolled, UNWIND_MAX_DEPTH frames of a 25-step
 * binary search took the verifier past its 1M-instruction limit (measured on 6.18);
 * with bpf_loop it checks one frame's body once.
 */
#ifndef SLIDEOPS_BPF_UNWIND_USER_H
#define SLIDEOPS_BPF_UNWIND_USER_H

#include "unwind_maps.h"

#define UNWIND_CTX struct unwind_bpf_ctx
#include "unwind_walk.h"

/*
 * The pcs array a walk writes into holds UNWIND_USER_PCS entries from where the caller
 * points it: every store is masked with UNWIND_USER_PCS_MASK, which is all the verifier
 * needs to see it in bounds, whatever offset the walk starts at (a sample's user frames
 * start after its kernel ones).
 */
#define UNWIND_USER_PCS 256
#define UNWIND_USER_PCS_MASK (UNWIND_USER_PCS - 1)
_Static_assert((UNWIND_USER_PCS & UNWIND_USER_PCS_MASK) == 0, "a mask the verifier relies on");
_Static_assert(UNWIND_MAX_DEPTH < UNWIND_USER_PCS, "a whole walk fits");

/* One walk: bpf_loop's context, on the caller's stack (pointers kept in a map value
 * would lose their type for the verifier). */
struct unwind_user_walk {
	struct unwind_bpf_ctx uc;
	struct unwind_regs regs;
	__u64 *pcs;     /* UNWIND_USER_PCS entries, in a map value */
	__u32 at;       /* the next entry of pcs to fill */
	__u32 reason;   /* enum unwind_stop */
};

/*
 * One frame: its pc into pcs, then its caller's registers.
 *
 * The verifier checks this body until the states it sees at each call repeat. Measured on
 * 6.18: variants of this loop's state that looked equivalent (a frame count beside at, a
 * bound kept in the context instead of the constant) kept them from repeating and took a
 * sampling program past the verifier's million instructions. Change it only with the
 * load times of every question's object in view (bpftool prog loadall).
 */
static long unwind_user_frame(__u32 i, void *arg)
{
	struct unwind_user_walk *w = arg;
	__u32 at = w->at;
	int r;

	if (w->regs.ip == 0) {
		w->reason = UNWIND_STOP_IP_ZERO;
		return 1;
	}
	if (at >= UNWIND_USER_PCS)
		return 1; /* reason stays UNWIND_STOP_DEPTH */
	w->pcs[at & UNWIND_USER_PCS_MASK] = w->regs.ip;
	w->at = at + 1;
	r = unwind_step(&w->uc, &w->regs);
	if (r >= 0) {
		w->reason = (__u32)r;
		return 1;
	}
	return 0;
}

/*
 * Walks the user stack from w->regs (bp_known and after_signal set by the caller) with
 * the tables of w->uc.proc (NULL: frame pointers all the way, the walker's fallback),
 * reading the memory of w->uc.task (NULL: the current task, bpf_probe_read_user; else
 * bpf_copy_from_user_task, so only from sleepable programs). Frames go to pcs[at] on, at
 * most max of them (a constant, UNWIND_MAX_DEPTH at most), never past
 * pcs[UNWIND_USER_PCS - 1]. Returns the number of frames; w->reason says why the walk
 * stopped (UNWIND_STOP_DEPTH: max frames, or the end of pcs).
 */
static __always_inline __u32 unwind_user_walk(struct unwind_user_walk *w, __u64 *pcs, __u32 at,
					      __u32 max)
{
	w->pcs = pcs;
	w->at = at;
	w->reason = UNWIND_STOP_DEPTH;
	bpf_loop(max < UNWIND_MAX_DEPTH ? max : UNWIND_MAX_DEPTH, unwind_user_frame, w, 0);
	return w->at - at;
}

/* The whole walk with its own counters, for programs that are not a question's (bpf/stack.h
 * counts into its own counters map and defines UNWIND_USER_DRIVER_ONLY). */
#ifndef UNWIND_USER_DRIVER_ONLY

/* A walk's result for unwind_user_stack: large (2 KB of pcs), so it lives in a map value
 * (a per-CPU scratch array), never on the 512-byte BPF stack. */
struct unwind_stack {
	__u64 pcs[UNWIND_USER_PCS];
	__u32 n;       /* frames in pcs */
	__u32 reason;  /* enum unwind_stop */
};

/* unwind_stops[reason]: walks of unwind_user_stack that stopped for that reason, per CPU.
 * The clean ends (root, ip 0, rbp 0) over all walks is the stack-quality figure; the
 * others say why stacks are short. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNWIND_STOP_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stops SEC(".maps");

/*
 * Walks the user stack of task (NULL: the current task) in process tgid from its
 * registers, with the tables user space loaded for tgid. bp_known is 0 when bp is not the
 * task's real rbp. Fills st; returns the number of frames.
 */
static __always_inline __u32 unwind_user_stack(struct unwind_stack *st, struct task_struct *task,
					       __u32 tgid, __u64 ip, __u64 sp, __u64 bp,
					       __u32 bp_known)
{
	struct unwind_user_walk w = {};
	__u32 reason;
	__u64 *count;

	w.regs.ip = ip;
	w.regs.sp = sp;
	w.regs.bp = bp;
	w.regs.bp_known = bp_known;
	w.regs.after_signal = 1; /* the first ip is where the task is, not a return address */
	w.uc.proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
	w.uc.task = task;
	st->n = unwind_user_walk(&w, st->pcs, 0, UNWIND_MAX_DEPTH);
	st->reason = reason = w.reason;
	count = bpf_map_lookup_elem(&unwind_stops, &reason);
	if (count)
		__sync_fetch_and_add(count, 1);
	return st->n;
}

#endif /* UNWIND_USER_DRIVER_ONLY */

#endif
