// SPDX-License-Identifier: GPL-2.0
/*
 * "What every thread is doing right now": a sleepable task iterator visits every thread
 * on the machine, however long it has been blocked, without a signal: its state and its
 * stacks (bpf/stack.h's stack__send_task) go out as one sample each. User space reads
 * the iterator a few threads at a time (each visit writes one byte to it) and drains the
 * ring buffer in between, so 10k threads need no ring buffer of 10k samples.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "stack.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter.s/task")
int on_task(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct stack_sample *s;
	char visited = 1;

	if (!task)
		return 0;
	bpf_seq_write(ctx->meta->seq, &visited, sizeof(visited));
	s = stack__begin(STACK_SLOT_ITER);
	if (!s)
		return 0;
	s->values[0] = 1;
	s->state = BPF_CORE_READ(task, __state) == 0 ? SAMPLE_STATE_RUNNING : SAMPLE_STATE_WAITING;
	stack__send_task(s, task);
	return 0;
}
