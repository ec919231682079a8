// SPDX-License-Identifier: GPL-2.0
/*
 * "Where memory grows": rss_stat fires each time a process's resident set counter
 * changes (once per page on the fault path). The counter is per-CPU; its global part,
 * which this reads, moves only every batch of ~32 pages, so comparing it with what we
 * saw last is a natural sample: each move is sent with the stacks of the task that made
 * it, and the moves add up to exactly what the process gained or gave back. A move
 * seen in another process's context (reclaim, the OOM reaper) only updates what we saw.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "stack.h"

char LICENSE[] SEC("license") = "GPL";

/* mm_struct's rss_stat members. */
#define MM_FILEPAGES 0
#define MM_ANONPAGES 1
#define MM_SWAPENTS 2
#define MM_SHMEMPAGES 3

#define PAGE_SHIFT 12

struct mm_member {
	__u64 mm;
	__u64 member;
};

/* What the global part of each (mm, member) counter was, in pages. LRU: exited
 * processes' entries go first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct mm_member);
	__type(value, __s64);
} last_pages SEC(".maps");

/* A counter of mm, now at pages: the move since it was last seen is sent with the stacks
 * of the task that made it. */
static __always_inline void rss_moved(void *ctx, struct mm_struct *mm, int member, __s64 pages)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct mm_member k = { (__u64)mm, (__u32)member };
	struct stack_sample *s;
	__s64 *last, delta;

	last = bpf_map_lookup_elem(&last_pages, &k);
	if (!last) {
		/* First sight: where it starts from. */
		bpf_map_update_elem(&last_pages, &k, &pages, BPF_ANY);
		return;
	}
	if (*last == pages)
		return;
	delta = pages - *last;
	*last = pages;
	/* Its own memory: a fault, an munmap, or the exit that frees it (the task has
	 * let go of mm by then, but still runs on it). */
	if (BPF_CORE_READ(task, mm) != mm &&
	    (BPF_CORE_READ(task, mm) || BPF_CORE_READ(task, active_mm) != mm))
		return;
	if (member == MM_FILEPAGES && delta < 0)
		return;
	s = stack__begin(STACK_SLOT_TRACE);
	if (!s)
		return;
	delta <<= PAGE_SHIFT;
	if (member == MM_FILEPAGES) {
		s->values[1] = delta;
	} else if (delta > 0) {
		s->values[0] = delta;
	} else {
		s->values[2] = -delta;
	}
	/* bpf_prog_* and bpf_trace_run2/3 are the tracepoint's own frames. */
	stack__send(ctx, s, 2);
}

/* Kernels whose counters are per-CPU (6.2 and later): the tracepoint has no value. */
SEC("tp_btf/rss_stat")
int BPF_PROG(on_rss_stat, struct mm_struct *mm, int member)
{
	__s64 pages = 0;
	void *counter;

	if (member == MM_SWAPENTS || (__u32)member > MM_SHMEMPAGES)
		return 0;
	counter = (void *)mm + bpf_core_field_offset(struct mm_struct, rss_stat) +
		  (__u32)member * bpf_core_type_size(struct percpu_counter) +
		  bpf_core_field_offset(struct percpu_counter, count);
	bpf_probe_read_kernel(&pages, sizeof(pages), counter);
	rss_moved(ctx, mm, member, pages);
	return 0;
}

/* Older kernels (6.1): the tracepoint carries the counter's new value, which moves when
 * a task's own cache of it is folded in (every 64 faults or so): the same natural sample.
 * User space loads this one where the kernel's rss_stat has three arguments. */
SEC("tp_btf/rss_stat")
int BPF_PROG(on_rss_stat_count, struct mm_struct *mm, int member, long count)
{
	if (member == MM_SWAPENTS || (__u32)member > MM_SHMEMPAGES)
		return 0;
	rss_moved(ctx, mm, member, count);
	return 0;
}
