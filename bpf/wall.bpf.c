// SPDX-License-Identifier: GPL-2.0
/*
 * "Where time goes, including waiting": running time from cpu-clock ticks (on_tick, as
 * the cpu question samples), waiting time from every context switch (on_switch).
 *
 * The switch is the hot path (100k+ a second on a busy server), so it keeps a
 * timestamp per thread and nothing else, and takes stacks only when needed: a thread
 * going off CPU has its stacks taken (RECORD_WALL_STACK) when its last were taken
 * STACK_PERIOD_NS ago or more; the waits that follow add up in the kernel and go to
 * user space (RECORD_WALL_FLUSH) with its next stacks, where they count for the stack
 * taken before them. A thread that blocks for long is stacked at every block, so long
 * waits are exact; one that switches thousands of times a second is stacked 100 times a
 * second, and its short waits count where it waited most recently.
 *
 * Threads blocked when the capture starts count from the start; threads still blocked
 * when it ends count to the end: on_sweep visits every thread once sampling is over,
 * flushes what each has added up, and sends the stack of each still waiting, taken
 * where it waits. A thread that never switched in the window never ran in it: it is
 * sent as idle (state idle), which the answer does not rank.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "stack.h"
#include "wall.h"

char LICENSE[] SEC("license") = "GPL";

#define STACK_PERIOD_NS 10000000ULL
#define TASK_RUNNING 0

enum wall_counter {
	WALL_COUNTER_TABLE_FULL = STACK_COUNTER__COUNT, /* a thread not followed: no room */
	WALL_COUNTER_FLUSH_LOST,                        /* waiting time not handed over */
};

struct thread_time {
	__u64 off_ns;        /* when it went off CPU; 0: on CPU */
	__u64 waited_ns;     /* waits not handed over yet */
	__u64 stacked_ns;    /* when its stacks were last taken; 0: never */
};

/* Threads that switched in the window (tid -> times). LRU: bounded on any machine. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct thread_time);
} threads SEC(".maps");

/* When the window began (the first switch seen) and ended (the sweep's first visit:
 * the sweep itself takes a while on a busy machine, and is not part of the window). */
__u64 window_start_ns;
__u64 window_end_ns;

static __always_inline __u64 window_start(__u64 now)
{
	__u64 start = window_start_ns;

	if (!start) {
		__sync_val_compare_and_swap(&window_start_ns, 0, now);
		start = window_start_ns;
	}
	return start;
}

static __always_inline void flush(__u32 tid, __u64 ns)
{
	struct wall_flush f = { .kind = RECORD_WALL_FLUSH, .tid = tid, .ns = ns };

	if (bpf_ringbuf_output(&records, &f, sizeof(f), BPF_RB_NO_WAKEUP))
		count(WALL_COUNTER_FLUSH_LOST);
}

SEC("perf_event")
int on_tick(struct bpf_perf_event_data *ctx)
{
	struct stack_sample *s;

	if ((__u32)bpf_get_current_pid_tgid() == 0) {
		count(STACK_COUNTER_IDLE);
		return 0;
	}
	s = stack__begin();
	if (!s)
		return 0;
	s->values[0] = ctx->sample_period;
	s->state = SAMPLE_STATE_RUNNING;
	stack__send(ctx, s, 0);
	return 0;
}

/* prev is the current task: going off CPU, blocked or preempted. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, __u64 now)
{
	__u32 tid = BPF_CORE_READ(prev, pid);
	struct thread_time *t, fresh = { 0 };
	struct stack_sample *s;

	t = bpf_map_lookup_elem(&threads, &tid);
	if (!t) {
		if (bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY)) {
			count(WALL_COUNTER_TABLE_FULL);
			return;
		}
		t = bpf_map_lookup_elem(&threads, &tid);
		if (!t)
			return;
	}
	t->off_ns = now;
	if (t->stacked_ns && now - t->stacked_ns < STACK_PERIOD_NS)
		return;
	/* Waits so far are the last stack's: handed over before the new one. */
	if (t->stacked_ns && t->waited_ns) {
		flush(tid, t->waited_ns);
		t->waited_ns = 0;
	}
	t->stacked_ns = now;
	s = stack__begin();
	if (!s)
		return;
	s->kind = RECORD_WALL_STACK;
	s->state = SAMPLE_STATE_WAITING;
	/* bpf_prog_* and bpf_trace_run4 are the tracepoint's own frames. */
	stack__send(ctx, s, 2);
	/* Waits from before its first stack (blocked when the window began) are this one's. */
	if (t->waited_ns) {
		flush(tid, t->waited_ns);
		t->waited_ns = 0;
	}
}

/* next goes on CPU: its wait is over. */
static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	__u32 tid = BPF_CORE_READ(next, pid);
	struct thread_time *t, fresh = { 0 };
	__u64 since;

	if (!tid)
		return;
	t = bpf_map_lookup_elem(&threads, &tid);
	if (t) {
		if (t->off_ns && now > t->off_ns)
			t->waited_ns += now - t->off_ns;
		t->off_ns = 0;
		return;
	}
	/* Waiting since before the window, or since it was created in it. */
	since = window_start(now);
	if (BPF_CORE_READ(next, start_time) > since)
		since = BPF_CORE_READ(next, start_time);
	fresh.waited_ns = now > since ? now - since : 0;
	if (bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY))
		count(WALL_COUNTER_TABLE_FULL);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	window_start(now);
	if (BPF_CORE_READ(prev, pid))
		switch_out(ctx, prev, now);
	switch_in(next, now);
	return 0;
}

/* Once sampling is over, every thread: what it added up, and where it still waits. */
SEC("iter.s/task")
int on_sweep(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	__u64 now, waiting = 0, since;
	struct thread_time *t;
	struct stack_sample *s;
	char visited = 1;
	__u32 tid, state = SAMPLE_STATE_WAITING;

	if (!task)
		return 0;
	bpf_seq_write(ctx->meta->seq, &visited, sizeof(visited));
	if (!window_end_ns)
		window_end_ns = bpf_ktime_get_ns();
	now = window_end_ns;
	tid = BPF_CORE_READ(task, pid);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (t) {
		__u64 waited = t->waited_ns;

		if (t->off_ns && now > t->off_ns)
			waiting = now - t->off_ns;
		if (waited && t->stacked_ns)
			flush(tid, waited);
		else
			waiting += waited;
		bpf_map_delete_elem(&threads, &tid);
	} else if (BPF_CORE_READ(task, __state) != TASK_RUNNING) {
		/* Never switched in the window: waiting all of it (or since it began). */
		since = window_start_ns ? window_start_ns : now;
		if (BPF_CORE_READ(task, start_time) > since)
			since = BPF_CORE_READ(task, start_time);
		waiting = now > since ? now - since : 0;
		state = SAMPLE_STATE_IDLE;
	}
	if (!waiting)
		return 0;
	s = stack__begin();
	if (!s)
		return 0;
	s->values[0] = waiting;
	s->state = state;
	stack__send_task(s, task);
	return 0;
}
