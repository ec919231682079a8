// SPDX-License-Identifier: GPL-2.0
/*
 * Tiny programs `slideops check` loads and attaches one at a time, to learn by doing
 * which questions this kernel can answer: each uses the attach point and the helpers
 * its question's real programs need. None of them records anything.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

__u64 hits;

/* wall: every context switch, and the blocked task's kernel stack. */
SEC("tp_btf/sched_switch")
int BPF_PROG(probe_wall, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 stack[4];

	bpf_get_task_stack(next, stack, sizeof(stack), 0);
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* threads: a sleepable walk of every task, with its kernel stack and user memory. */
SEC("iter.s/task")
int probe_threads(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct pt_regs *regs;
	__u64 stack[4], word;

	if (!task)
		return 0;
	bpf_get_task_stack(task, stack, sizeof(stack), 0);
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (regs && task->mm)
		bpf_copy_from_user_task(&word, sizeof(word), (void *)PT_REGS_SP_CORE(regs), task, 0);
	return 0;
}

/* locks: futex waits (the syscall tracepoints need tracefs)... */
SEC("tracepoint/syscalls/sys_enter_futex")
int probe_locks(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* ...and kernel lock contention. */
SEC("tp_btf/contention_begin")
int BPF_PROG(probe_locks_kernel, void *lock, unsigned int flags)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* memory: resident set changes, attributed to the faulting task. */
SEC("tp_btf/rss_stat")
int BPF_PROG(probe_memory, struct mm_struct *mm, int member)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}
