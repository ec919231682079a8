// SPDX-License-Identifier: GPL-2.0
/*
 * What this kernel offers that the questions' programs have variants for, learnt by
 * loading (loader.c loads one of these at a time, as it loads a question's object; the
 * kernel's verifier answers, not its version number). docs/kernel.md has which kernels
 * have what.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* sched_process_exit(task, group_dead), run before the task lets go of its memory map. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_group_dead, struct task_struct *task, bool group_dead)
{
	return group_dead;
}

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

/* The task vma iterator (6.7): an exiting process's mappings. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(task_vmas, struct task_struct *task)
{
	struct bpf_iter_task_vma it;
	int n = 0;

	bpf_iter_task_vma_new(&it, task, 0);
	while (bpf_iter_task_vma_next(&it) && n < 4)
		n++;
	bpf_iter_task_vma_destroy(&it);
	return n;
}

#ifndef __arg_trusted
#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#endif

/* A kernel pointer as a global function's argument (arg:trusted, 6.8): before, the
 * pointer passes as plain memory, which a helper that wants a task refuses. */
__noinline int trusted_task_read(struct task_struct *task __arg_trusted)
{
	__u64 word = 0;

	if (!task)
		return 0;
	bpf_copy_from_user_task(&word, sizeof(word), (void *)0x1000, task, 0);
	return (int)word;
}

SEC("iter.s/task")
int trusted_args(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;

	return task ? trusted_task_read(task) & 0 : 0;
}

/* rss_stat(mm, member, count): the counters' new value (before 6.2's per-CPU counters). */
SEC("tp_btf/rss_stat")
int BPF_PROG(rss_stat_count, struct mm_struct *mm, int member, long count)
{
	return count > 0;
}

static long loop_step(__u32 i, void *ctx)
{
	return i > 2;
}

/* bpf_loop (5.17): every question's walkers. */
SEC("perf_event")
int loop(void *ctx)
{
	return bpf_loop(4, loop_step, NULL, 0);
}

/* A sleepable task iterator reading a task's memory (5.18): threads, wall's sweep. */
SEC("iter.s/task")
int sleepable_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	__u64 word = 0;

	if (task)
		bpf_copy_from_user_task(&word, sizeof(word), (void *)0x1000, task, 0);
	return 0;
}

/* The lock contention tracepoints (5.19): locks. */
SEC("tp_btf/contention_begin")
int BPF_PROG(lock_contention, void *lock, unsigned int flags)
{
	return flags > 0;
}
