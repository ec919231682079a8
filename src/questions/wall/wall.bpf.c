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
 *
 * Why it waits costs the switch a byte: a thread preempted (still runnable) waits for a
 * CPU; one uninterruptible in io_schedule for I/O; one interruptible in futex on a lock,
 * in nanosleep asleep; anything else is other. Its waits add up per reason, and its time
 * on a CPU (from the switches themselves, exact where ticks only sample) with them: the
 * flush hands both over.
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
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_NOLOAD 0x400 /* TASK_IDLE: a kernel thread with nothing to do */

/* x86-64 system call numbers. */
#define NR_NANOSLEEP 35
#define NR_FUTEX 202
#define NR_CLOCK_NANOSLEEP 230
#define NR_FUTEX_WAITV 449

enum wall_counter {
	WALL_COUNTER_TABLE_FULL = STACK_COUNTER__COUNT, /* a thread not followed: no room */
	WALL_COUNTER_FLUSH_LOST,                        /* waiting time not handed over */
};

struct thread_time {
	__u64 off_ns;        /* when it went off CPU; 0: on CPU */
	__u64 on_ns;         /* when it went on CPU; 0: off CPU, or not seen going on */
	__u64 waited_ns[WAIT_REASON__COUNT - 1]; /* waits not handed over yet, by reason */
	__u64 ran_ns;        /* time on a CPU not handed over yet */
	__u64 stacked_ns;    /* when its stacks were last taken; 0: never */
	__u32 reason;        /* enum wait_reason of the wait since off_ns */
};

/* Threads that switched in the window (tid -> times). LRU: bounded on any machine. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct thread_time);
} threads SEC(".maps");

/* When the window began: the first switch seen. */
__u64 window_start_ns;

/* When it ended (bpf_ktime_get_ns): written by user space when it detached the
 * programs, before it waits for the tables the sweep walks with; else the sweep's first
 * visit. Neither the wait nor the sweep itself is part of the window. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} window_end SEC(".maps");

static __always_inline __u64 window_start(__u64 now)
{
	__u64 start = window_start_ns;

	if (!start) {
		__sync_val_compare_and_swap(&window_start_ns, 0, now);
		start = window_start_ns;
	}
	return start;
}

static __always_inline __u64 waited(const struct thread_time *t)
{
	__u64 sum = 0;

	for (int r = 0; r < WAIT_REASON__COUNT - 1; r++)
		sum += t->waited_ns[r];
	return sum;
}

/* Hands over what t added up since its last flush, and starts again from 0. */
static __always_inline void flush(__u32 tid, struct thread_time *t)
{
	struct wall_flush f = { .kind = RECORD_WALL_FLUSH, .tid = tid, .ran_ns = t->ran_ns };

	for (int r = 0; r < WAIT_REASON__COUNT - 1; r++) {
		f.ns[r] = t->waited_ns[r];
		t->waited_ns[r] = 0;
	}
	t->ran_ns = 0;
	if (bpf_ringbuf_output(&records, &f, sizeof(f), BPF_RB_NO_WAKEUP))
		count(WALL_COUNTER_FLUSH_LOST);
}

/* Why a task waits, from its state as it goes off CPU (any_state: the state is not
 * known, the system call alone tells) and the system call it is in. */
static __always_inline __u32 wait_reason(struct task_struct *task, __u32 state, bool any_state)
{
	struct pt_regs *regs;
	long nr;

	if (!any_state) {
		if (state == TASK_RUNNING)
			return WAIT_REASON_RUNQUEUE;
		if (state & TASK_NOLOAD)
			return WAIT_REASON_OTHER;
		if (state & TASK_UNINTERRUPTIBLE)
			return BPF_CORE_READ_BITFIELD_PROBED(task, in_iowait) ? WAIT_REASON_IO :
										WAIT_REASON_OTHER;
		if (!(state & TASK_INTERRUPTIBLE))
			return WAIT_REASON_OTHER;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	nr = BPF_CORE_READ(regs, orig_ax);
	if (nr == NR_FUTEX || nr == NR_FUTEX_WAITV)
		return WAIT_REASON_LOCK;
	if (nr == NR_NANOSLEEP || nr == NR_CLOCK_NANOSLEEP)
		return WAIT_REASON_SLEEP;
	return WAIT_REASON_OTHER;
}

static __always_inline void add_wait(struct thread_time *t, __u32 reason, __u64 ns)
{
	__u32 r = reason - 1;

	if (r < WAIT_REASON__COUNT - 1)
		t->waited_ns[r] += ns;
}

SEC("perf_event")
int on_tick(struct bpf_perf_event_data *ctx)
{
	struct stack_sample *s;

	if ((__u32)bpf_get_current_pid_tgid() == 0) {
		count(STACK_COUNTER_IDLE);
		return 0;
	}
	s = stack__begin(STACK_SLOT_TICK);
	if (!s)
		return 0;
	s->values[0] = ctx->sample_period;
	s->state = SAMPLE_STATE_RUNNING;
	stack__send(ctx, s, 0);
	return 0;
}

/* prev is the current task: going off CPU, blocked or preempted. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, __u32 state,
				       __u64 now)
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
	t->reason = wait_reason(prev, state, false);
	if (t->on_ns && now > t->on_ns)
		t->ran_ns += now - t->on_ns;
	t->on_ns = 0;
	if (t->stacked_ns && now - t->stacked_ns < STACK_PERIOD_NS)
		return;
	/* Waits so far are the last stack's: handed over before the new one. */
	if (t->stacked_ns)
		flush(tid, t);
	t->stacked_ns = now;
	s = stack__begin(STACK_SLOT_TRACE);
	if (!s)
		return;
	s->kind = RECORD_WALL_STACK;
	s->state = SAMPLE_STATE_WAITING;
	s->wait_reason = t->reason;
	/* bpf_prog_* and bpf_trace_run4 are the tracepoint's own frames. */
	stack__send(ctx, s, 2);
	/* Waits from before its first stack (blocked when the window began) are this one's. */
	if (waited(t))
		flush(tid, t);
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
			add_wait(t, t->reason, now - t->off_ns);
		t->off_ns = 0;
		t->on_ns = now;
		return;
	}
	/* Waiting since before the window, or since it was created in it. */
	since = window_start(now);
	if (BPF_CORE_READ(next, start_time) > since)
		since = BPF_CORE_READ(next, start_time);
	fresh.on_ns = now;
	add_wait(&fresh, wait_reason(next, 0, true), now > since ? now - since : 0);
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
		switch_out(ctx, prev, preempt ? TASK_RUNNING : prev_state, now);
	switch_in(next, now);
	return 0;
}

/* Once sampling is over, every thread: what it added up, and where it still waits. */
SEC("iter.s/task")
int on_sweep(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	__u64 now, waiting = 0, since, *end;
	struct thread_time *t;
	struct stack_sample *s;
	char visited = 1;
	__u32 tid, state = SAMPLE_STATE_WAITING, reason = WAIT_REASON_OTHER, zero = 0;

	if (!task)
		return 0;
	bpf_seq_write(ctx->meta->seq, &visited, sizeof(visited));
	end = bpf_map_lookup_elem(&window_end, &zero);
	if (!end)
		return 0;
	if (!*end)
		*end = bpf_ktime_get_ns();
	now = *end;
	tid = BPF_CORE_READ(task, pid);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (t) {
		if (t->off_ns && now > t->off_ns)
			waiting = now - t->off_ns;
		if (t->on_ns && now > t->on_ns)
			t->ran_ns += now - t->on_ns;
		reason = t->reason;
		/* Waits of a thread whose stacks were never taken count where it waits now. */
		if (!t->stacked_ns) {
			waiting += waited(t);
			for (int r = 0; r < WAIT_REASON__COUNT - 1; r++)
				t->waited_ns[r] = 0;
		}
		if (waited(t) || t->ran_ns)
			flush(tid, t);
		bpf_map_delete_elem(&threads, &tid);
	} else if (BPF_CORE_READ(task, __state) != TASK_RUNNING) {
		/* Never switched in the window: waiting all of it (or since it began). */
		since = window_start_ns ? window_start_ns : now;
		if (BPF_CORE_READ(task, start_time) > since)
			since = BPF_CORE_READ(task, start_time);
		waiting = now > since ? now - since : 0;
		state = SAMPLE_STATE_IDLE;
		reason = wait_reason(task, BPF_CORE_READ(task, __state), false);
	}
	if (!waiting)
		return 0;
	s = stack__begin(STACK_SLOT_ITER);
	if (!s)
		return 0;
	s->values[0] = waiting;
	s->state = state;
	s->wait_reason = reason;
	stack__send_task(s, task);
	return 0;
}
