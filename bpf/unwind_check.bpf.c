// SPDX-License-Identifier: GPL-2.0
/*
 * The stack walker in the kernel, for tests (tests/unit/unwind/test_unwind_walk.c) and `check`:
 * a sleepable task iterator that, for one thread, prints its user registers from
 * pt_regs (ip, sp, bp: what /proc cannot give) and then walks its user stack with
 * bpf/unwind_walk.h over the tables user space loaded (bpf/unwind_maps.h), the same
 * walk the capture engine runs on every sample. Output, one line each:
 *   regs TID IP SP BP
 *   walk N REASON PC0 PC1 ...
 * Proves the walker passes the verifier with its full bounds and that the maps the
 * loader fills are the ones it reads.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "unwind_user.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tid = 0;
/* 0: print only "walk N REASON" (bench/unwind/walk_cost.c times the walk, not printing) */
const volatile __u32 print_pcs = 1;

/* A walk's result: large (2 KB of pcs), so it lives in a map value (a per-CPU scratch
 * array), never on the 512-byte BPF stack; the walk's state beside it. */
struct unwind_stack {
	struct unwind_pcs pcs;
	struct unwind_walk walk;
	__u32 n;       /* frames in pcs */
	__u32 reason;  /* enum unwind_stop */
};

/* Entry 0 for the iterator, 1 for the system-call program: one may interrupt the other. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct unwind_stack);
} walk_scratch SEC(".maps");

/* unwind_stops[reason]: walks that stopped for that reason, per CPU. The clean ends
 * (root, ip 0, rbp 0) over all walks is the stack-quality figure; the others say why
 * stacks are short. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNWIND_STOP_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stops SEC(".maps");

static __always_inline void count_stop(__u32 reason)
{
	__u64 *count = bpf_map_lookup_elem(&unwind_stops, &reason);

	if (count)
		__sync_fetch_and_add(count, 1);
}

SEC("iter.s/task")
int walk_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct unwind_stack *st;
	struct pt_regs *regs;
	__u32 zero = 0, n;
	__u64 ip, sp, bp;

	if (!task || task->pid != target_tid)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	st = bpf_map_lookup_elem(&walk_scratch, &zero);
	if (!regs || !st)
		return 0;
	ip = BPF_CORE_READ(regs, ip);
	sp = BPF_CORE_READ(regs, sp);
	bp = BPF_CORE_READ(regs, bp);
	if (print_pcs) {
		BPF_SEQ_PRINTF(seq, "regs %d %llx %llx", task->pid, ip, sp);
		BPF_SEQ_PRINTF(seq, " %llx\n", bp);
	}
	{
		struct unwind_regs r = { .ip = ip, .sp = sp, .bp = bp, .bp_known = 1,
					 .after_signal = 1 };
		__u32 tgid = task->tgid;

		n = unwind_user_walk_task(&st->walk, &st->pcs,
					  bpf_map_lookup_elem(&unwind_procs, &tgid), task, &r, 0,
					  UNWIND_MAX_DEPTH);
	}
	st->n = n;
	st->reason = st->walk.reason;
	count_stop(st->reason);
	BPF_SEQ_PRINTF(seq, "walk %u %u", n, st->reason);
	for (__u32 i = 0; i < UNWIND_MAX_DEPTH; i++) {
		if (i >= n || !print_pcs)
			break;
		BPF_SEQ_PRINTF(seq, " %llx", st->pcs.pc[i & UNWIND_PCS_MASK]);
	}
	BPF_SEQ_PRINTF(seq, "\n");
	return 0;
}

/*
 * The same walk as a sampling program runs it: in the context of the task, on its
 * pt_regs, reading with bpf_probe_read_user (not sleepable). Attached by
 * bench/unwind/walk_cost.c to the target's syscalls; times each walk with the BPF clock
 * so that other tasks' syscalls (filtered out at the first line) do not count.
 */
__u64 walk_ns = 0, walks = 0, walk_frames = 0;

SEC("tp_btf/sys_enter")
int BPF_PROG(walk_sys_enter, struct pt_regs *regs, long id)
{
	struct unwind_stack *st;
	__u32 one = 1, n;
	__u64 t0;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tid)
		return 0;
	st = bpf_map_lookup_elem(&walk_scratch, &one);
	if (!st)
		return 0;
	t0 = bpf_ktime_get_ns();
	{
		struct unwind_regs r = { .bp_known = 1, .after_signal = 1 };
		__u32 tgid = target_tid;

		r.ip = BPF_CORE_READ(regs, ip);
		r.sp = BPF_CORE_READ(regs, sp);
		r.bp = BPF_CORE_READ(regs, bp);
		n = unwind_user_walk_current(&st->walk, &st->pcs,
					     bpf_map_lookup_elem(&unwind_procs, &tgid), &r, 0,
					     UNWIND_MAX_DEPTH);
	}
	count_stop(st->walk.reason);
	__sync_fetch_and_add(&walk_ns, bpf_ktime_get_ns() - t0);
	__sync_fetch_and_add(&walks, 1);
	__sync_fetch_and_add(&walk_frames, n);
	return 0;
}
