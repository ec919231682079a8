// SPDX-License-Identifier: GPL-2.0
/*
 * One page of a process's memory for user space (jvm_memory.h): a sleepable task
 * iterator, created by user space for one process's threads (the link's pid), copies
 * the page at page_addr with bpf_copy_from_user_task from the first thread that has a
 * memory map, and writes the reply to the iterator's output. Nothing is attached: it
 * runs only when user space reads the iterator. Sleepable task iterators: 5.18.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "jvm_memory.h"

char LICENSE[] SEC("license") = "GPL";

__u64 page_addr;  /* set by user space: page aligned */
__u32 page_done;  /* set by user space to 0; 1 once a thread was read */
__u8 page[JVM_MEMORY_PAGE];

SEC("iter.s/task")
int read_page(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct jvm_memory_reply reply = { 0 };

	if (!task || page_done || !BPF_CORE_READ(task, mm))
		return 0;
	page_done = 1;
	reply.tid = BPF_CORE_READ(task, pid);
	reply.err = bpf_copy_from_user_task(page, sizeof(page), (void *)page_addr, task, 0);
	bpf_seq_write(ctx->meta->seq, &reply, sizeof(reply));
	if (!reply.err)
		bpf_seq_write(ctx->meta->seq, page, sizeof(page));
	return 0;
}
