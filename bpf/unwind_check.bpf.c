// SPDX-License-Identifier: GPL-2.0
/*
 * The stack walker in the kernel, for tests (tests/unit/test_unwind_walk.c) and `check`:
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

#include "unwind_maps.h"
/* The walker, over the maps' accessors (defined by unwind_maps.h). */
#define UNWIND_CTX struct unwind_bpf_ctx
#include "unwind_walk.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tid = 0;

struct walk_buf {
	__u64 pcs[UNWIND_PCS];
	struct unwind_regs s;
	__u32 n, reason;
};

/* bpf_loop's context, on the program's stack: pointers kept in a map value would lose
 * their type for the verifier. */
struct walk_ctx {
	struct walk_buf *b;
	struct unwind_bpf_ctx uc;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_buf);
} walk_scratch SEC(".maps");

/*
 * One frame per bpf_loop iteration: the verifier checks this body once instead of
 * unrolling UNWIND_MAX_DEPTH frames of binary searches (which exceeds its 1M
 * instructions). unwind_walk() is the same loop for the host.
 */
static long walk_frame(__u32 i, void *arg)
{
	struct walk_ctx *w = arg;
	struct walk_buf *b = w->b;
	int r;

	if (b->s.ip == 0) {
		b->reason = UNWIND_STOP_IP_ZERO;
		return 1;
	}
	b->pcs[b->n & UNWIND_PCS_MASK] = b->s.ip;
	b->n++;
	r = unwind_step(&w->uc, &b->s);
	if (r >= 0) {
		b->reason = (__u32)r;
		return 1;
	}
	return 0;
}

SEC("iter.s/task")
int walk_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct walk_buf *buf;
	struct walk_ctx w = {};
	struct pt_regs *regs;
	__u32 zero = 0, tgid, n, reason = 0;

	if (!task || task->pid != target_tid)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	buf = bpf_map_lookup_elem(&walk_scratch, &zero);
	if (!buf)
		return 0;
	buf->s.ip = BPF_CORE_READ(regs, ip);
	buf->s.sp = BPF_CORE_READ(regs, sp);
	buf->s.bp = BPF_CORE_READ(regs, bp);
	buf->s.bp_known = 1;
	buf->s.after_signal = 1; /* ip is where the task is, not a return address */
	BPF_SEQ_PRINTF(seq, "regs %d %llx %llx", task->pid, buf->s.ip, buf->s.sp);
	BPF_SEQ_PRINTF(seq, " %llx\n", buf->s.bp);

	tgid = task->tgid;
	w.b = buf;
	w.uc.proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
	w.uc.task = task;
	buf->n = 0;
	buf->reason = UNWIND_STOP_DEPTH;
	bpf_loop(UNWIND_MAX_DEPTH, walk_frame, &w, 0);
	n = buf->n;
	reason = buf->reason;
	BPF_SEQ_PRINTF(seq, "walk %u %u", n, reason);
	for (__u32 i = 0; i < UNWIND_MAX_DEPTH; i++) {
		if (i >= n)
			break;
		BPF_SEQ_PRINTF(seq, " %llx", buf->pcs[i & UNWIND_PCS_MASK]);
	}
	BPF_SEQ_PRINTF(seq, "\n");
	return 0;
}
