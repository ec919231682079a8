/* SPDX-License-Identifier: MIT */
/*
 * The user-stack walk as a BPF program calls it (the engine's bpf/stack.h, and
 * bpf/unwind_check.bpf.c): the maps of unwind_maps.h, the walker of unwind_walk.h over
 * them, driven one frame per bpf_loop iteration, and a per-CPU counter of every reason a
 * walk stopped. Include after vmlinux.h, bpf_helpers.h, bpf_core_read.h.
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

/* A walk's state and result: large (1 KB of pcs), so it lives in a map value (a per-CPU
 * scratch array), never on the 512-byte BPF stack. */
struct unwind_stack {
	__u64 pcs[UNWIND_PCS];
	struct unwind_regs regs;
	__u32 n;       /* frames in pcs */
	__u32 reason;  /* enum unwind_stop */
};

/* unwind_stops[reason]: walks that stopped for that reason, per CPU. The clean ends
 * (root, ip 0, rbp 0) over all walks is the stack-quality figure; the others say why
 * stacks are short. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNWIND_STOP_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stops SEC(".maps");

/* bpf_loop's context, on the caller's stack: pointers kept in a map value would lose
 * their type for the verifier. */
struct unwind_loop_ctx {
	struct unwind_stack *st;
	struct unwind_bpf_ctx uc;
};

static long unwind_loop_frame(__u32 i, void *arg)
{
	struct unwind_loop_ctx *l = arg;
	struct unwind_stack *st = l->st;
	int r;

	if (st->regs.ip == 0) {
		st->reason = UNWIND_STOP_IP_ZERO;
		return 1;
	}
	st->pcs[st->n & UNWIND_PCS_MASK] = st->regs.ip;
	st->n++;
	r = unwind_step(&l->uc, &st->regs);
	if (r >= 0) {
		st->reason = (__u32)r;
		return 1;
	}
	return 0;
}

/*
 * Walks the user stack of task (NULL: the current task, read with bpf_probe_read_user;
 * else bpf_copy_from_user_task, so only from sleepable programs) in process tgid from
 * its registers. bp_known is 0 when bp is not the task's real rbp. at_ip is 1 when ip is
 * where the task is (a sample, a syscall), not a return address. Fills st; returns the
 * number of frames.
 */
static __always_inline __u32 unwind_user_stack(struct unwind_stack *st, struct task_struct *task,
					       __u32 tgid, __u64 ip, __u64 sp, __u64 bp,
					       __u32 bp_known)
{
	struct unwind_loop_ctx l = {};
	__u32 reason;
	__u64 *count;

	st->regs.ip = ip;
	st->regs.sp = sp;
	st->regs.bp = bp;
	st->regs.bp_known = bp_known;
	st->regs.after_signal = 1;
	st->n = 0;
	st->reason = UNWIND_STOP_DEPTH;
	l.st = st;
	l.uc.proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
	l.uc.task = task;
	bpf_loop(UNWIND_MAX_DEPTH, unwind_loop_frame, &l, 0);
	reason = st->reason;
	count = bpf_map_lookup_elem(&unwind_stops, &reason);
	if (count)
		__sync_fetch_and_add(count, 1);
	return st->n;
}

#endif
