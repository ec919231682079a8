/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every question's BPF program shares (include it once, from bpf/QUESTION.bpf.c):
 * the ring buffer and counters user space reads, the stacks of a sample and the facts
 * of its process, and the exec and exit programs that follow sampled processes.
 *
 * A question's program fills the scratch sample's values and labels (stack__begin),
 * then stack__send takes the current task's kernel and user stacks and sends it.
 * At 99 Hz a ring buffer is exact (a stack map loses stacks to hash collisions) and
 * cheap: user space drains it on a timer, so samples never wake it, except the first
 * sample of a process, so that user space reads /proc/PID while the process exists.
 *
 * on_exec / on_exit (process_events.h, included at the end) follow the processes that
 * were sampled: an exec makes their maps stale; an exit sends what user space needs to
 * attribute a process it never managed to read.
 *
 * Fields are read with BPF_CORE_READ even where a tp_btf program could dereference
 * directly: each direct access makes the verifier look the kernel's BTF up by name
 * (btf_nested_type_is_trusted), which cost half a second of load time.
 */
#ifndef SLIDEOPS_BPF_STACK_H
#define SLIDEOPS_BPF_STACK_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "records.h"
/* The walker over unwind_maps.h's maps and accessors (the same code the host tests run),
 * and its one bpf_loop driver; the walks' exits are counted in channel.h's counters. */
#define UNWIND_USER_DRIVER_ONLY
#include "unwind_user.h"

#define PF_KTHREAD 0x00200000
#define VM_EXEC 0x00000004

_Static_assert(sizeof(struct stack_sample) < 4096, "a sample must fit a per-CPU scratch value");
_Static_assert((RECORD_EXE_MAX_PARTS & (RECORD_EXE_MAX_PARTS - 1)) == 0, "a mask the verifier relies on");
_Static_assert((RECORD_EXIT_MAX_VMAS & (RECORD_EXIT_MAX_VMAS - 1)) == 0, "a mask the verifier relies on");
_Static_assert(STACK_COUNTER__COUNT <= RECORD_MAX_COUNTERS, "every counter has a slot");
_Static_assert(STACK_COUNTER_UNWIND_NOT_GROWING - STACK_COUNTER_UNWIND_FIRST ==
	       UNWIND_STOP_NOT_GROWING - UNWIND_STOP_NO_TABLE, "walker exits map to counters in order");
_Static_assert(UNWIND_STOP_REASONS == UNWIND_STOP_NOT_GROWING + 1, "a walker exit without a counter");
_Static_assert(2 * RECORD_MAX_STACK <= UNWIND_USER_PCS,
	       "kernel and user frames fit the walk's mask");
_Static_assert(sizeof(((struct stack_sample *)0)->ips) >= UNWIND_USER_PCS * sizeof(__u64),
	       "the walker's masked stores stay in ips");

/* The ring buffer and the counters: what stack.h and the frames of the runtimes send. */
#include "channel.h"

/*
 * Where a sample is assembled, and its user stack walked, before its used part is copied
 * into the ring buffer: one slot per program that takes stacks, per CPU, so that a
 * program that interrupts another on the same CPU (a perf-event tick in a tracepoint
 * program, a lock's tracepoint inside a system call's, a task switch while a sleepable
 * iterator is preempted) never writes over the sample or the walk the other is in the
 * middle of. A program never runs inside itself on one CPU (the kernel skips a tracing
 * or perf-event program that fires while it runs), and a sleepable iterator does not
 * move from its CPU while it runs: a slot of its own is all it takes.
 */
enum stack_slot_id {
	STACK_SLOT_TICK,    /* a perf-event program (cpu-clock: in the timer interrupt) */
	STACK_SLOT_TRACE,   /* a tracepoint program */
	STACK_SLOT_NESTED,  /* a tracepoint program that may fire inside the one above */
	STACK_SLOT_ITER,    /* a sleepable task iterator */
	STACK_SLOTS,
};

struct stack_slot {
	struct stack_sample s; /* first: a sample is its slot */
	struct unwind_walk walk;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STACK_SLOTS);
	__type(key, __u32);
	__type(value, struct stack_slot);
} scratch SEC(".maps");

/* Processes sampled so far (tgid -> 1): the first sample of one wakes user space, and
 * only these get exec and exit records. LRU: a busy server's churn cannot fill it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} seen SEC(".maps");

/* Interpreter frames: stack__send's hook, over the maps above and channel.h's. */
#include "python_frames.h"
/* Java frames: a step of the native walk where a PC is a JVM's code (current task). */
#include "runtime_frames.h"

/* tty_nr as /proc/PID/stat encodes it (new_encode_dev of the tty's device). */
static __always_inline __u32 task_tty_nr(struct task_struct *task)
{
	struct tty_struct *tty = BPF_CORE_READ(task, signal, tty);
	__u32 major, minor;

	if (!tty)
		return 0;
	major = BPF_CORE_READ(tty, driver, major);
	minor = BPF_CORE_READ(tty, driver, minor_start) + BPF_CORE_READ(tty, index);
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

/* The per-CPU sample of slot (the calling program's enum stack_slot_id) a program
 * fills, its values and labels cleared. NULL: none (the lookup cannot fail for a slot
 * below STACK_SLOTS, but the verifier wants the check). */
static __always_inline struct stack_sample *stack__begin(__u32 slot)
{
	struct stack_slot *st = bpf_map_lookup_elem(&scratch, &slot);
	struct stack_sample *s;

	if (!st)
		return NULL;
	s = &st->s;
	s->slot = slot;
	s->kind = RECORD_SAMPLE;
	s->flags = 0;
	s->values[0] = 0;
	s->values[1] = 0;
	s->values[2] = 0;
	s->lock = 0;
	s->wait = 0;
	s->state = SAMPLE_STATE_NONE;
	s->lock_kind = 0;
	s->pystack_len = 0; /* only stack__send reads interpreter frames */
	s->pystack_exit = 0;
	s->wait_reason = WAIT_REASON_NONE;
	return s;
}

/* kskip: leave the kernel stack out (a wait seen at its system call's exit, where the
 * kernel's frames are those of the exit path). */
#define STACK_USER_ONLY (1u << 31)

static __always_inline long stack__clamp(long len)
{
	if (len < 0)
		return -1;
	len /= sizeof(__u64);
	return len > RECORD_MAX_STACK ? RECORD_MAX_STACK : len;
}

/*
 * Sends s, whose stacks are in, with its process's facts when this is its first sample
 * (task: the sampled task; cgroup_id: its cgroup). The common path touches the seen map
 * and the ring buffer only; the facts (cgroup, parent, terminal, flags) are read only
 * with a process's first sample.
 */
static __always_inline void stack__output(struct stack_sample *s, struct task_struct *task,
					  __u64 cgroup_id)
{
	__u64 wakeup = BPF_RB_NO_WAKEUP;
	__u32 tgid = s->tgid;
	long size;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&seen, &tgid)) {
		bpf_map_update_elem(&seen, &tgid, &one, BPF_ANY);
		s->flags |= SAMPLE_FIRST;
		if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
			s->flags |= SAMPLE_KTHREAD;
		s->cgroup_id = cgroup_id;
		s->ppid = BPF_CORE_READ(task, real_parent, tgid);
		s->tty_nr = task_tty_nr(task);
		BPF_CORE_READ_STR_INTO(&s->leader_comm, task, group_leader, comm);
		wakeup = BPF_RB_FORCE_WAKEUP;
	}

	size = SAMPLE_HEADER_SIZE +
	       (s->kstack_len + s->ustack_len + 2 * s->pystack_len) * sizeof(__u64);
	if (size > sizeof(*s))
		size = sizeof(*s);
	if (bpf_ringbuf_output(&records, s, size, wakeup)) {
		count(STACK_COUNTER_LOST);
		/* So that the next sample of it wakes user space again. */
		if (s->flags & SAMPLE_FIRST)
			bpf_map_delete_elem(&seen, &tgid);
	}
}

/* Counts why a walk that stopped short of a root stopped, and marks the sample. */
static __always_inline void stack__walked(struct stack_sample *s, const struct unwind_walk *w,
					  bool tables)
{
	__u32 reason = w->reason;

	if (tables)
		s->flags |= SAMPLE_USTACK_TABLES;
	if (!unwind_stop__is_clean(reason)) {
		s->flags |= SAMPLE_USTACK_CUT;
		if (reason >= UNWIND_STOP_NO_TABLE && reason < UNWIND_STOP_REASONS)
			count(STACK_COUNTER_UNWIND_FIRST + reason - UNWIND_STOP_NO_TABLE);
	}
}

/* The registers a walk starts from: a task's saved user ones. */
static __always_inline void stack__regs(struct unwind_regs *r, struct pt_regs *regs)
{
	UNWIND_ARCH_READ_REGS(r, regs);
	r->bp_known = 1;
	r->after_signal = 1; /* the first ip is where the task is, not a return address */
}

#ifdef STACK_FRAME_POINTERS_ONLY
/*
 * The smaller variant (docs/kernel.md, for a kernel that refuses the walker): no tables,
 * no walker; another task's user stack by its frame pointers, read with
 * bpf_copy_from_user_task in a loop the verifier checks frame by frame.
 */
static __always_inline long stack__walk_fp(struct stack_sample *s, struct task_struct *task,
					   struct pt_regs *regs, __u32 at)
{
	struct unwind_regs r;
	__u64 frame[2];
	__u32 n = 0;

	stack__regs(&r, regs);
	for (int i = 0; i < RECORD_MAX_STACK; i++) {
		if (r.ip == 0 || at + n >= 256)
			break;
		s->ips[(at + n) & 255] = r.ip;
		n++;
		if (r.bp == 0 || r.bp < r.sp ||
		    bpf_copy_from_user_task(frame, sizeof(frame), (void *)r.bp, task, 0))
			break;
		r.sp = r.bp + 16;
		r.bp = frame[0];
		r.ip = frame[1];
	}
	return n;
}
#else
/*
 * The user stack of task (NULL: the current task) into s->ips from index at, walked from
 * its saved user registers with the tables of proc (NULL: none loaded, frame pointers all
 * the way, as the walker falls back to frame by frame where no table covers a PC). A walk
 * that stops short of a root marks the sample [truncated] and counts why. Frames.
 */
static __always_inline long stack__walk(struct stack_sample *s, const struct unwind_proc *proc,
					struct task_struct *task, struct pt_regs *regs, __u32 at)
{
	struct stack_slot *st = (struct stack_slot *)s;
	struct unwind_regs r;
	long n;

	stack__regs(&r, regs);
	if (task)
		n = runtime_user_walk_task(&st->walk, (struct unwind_pcs *)s->ips, proc, task,
					   &r, at, RECORD_MAX_STACK);
	else
		n = runtime_user_walk_current(&st->walk, (struct unwind_pcs *)s->ips, proc,
					      s->tgid, &r, at, RECORD_MAX_STACK);
	stack__walked(s, &st->walk, proc != NULL);
	return n;
}
#endif

/*
 * The current task's user stack into s->ips from index at: by unwind tables from its
 * user registers when user space loaded its process's (stack__walk), else by the
 * kernel's frame-pointer walk. Frames, or -1 when there is no user stack to take.
 *
 * The user registers are the task's saved ones (bpf_task_pt_regs): for a perf_event
 * sample that struck in user mode they are the very registers perf hands the program
 * (on x86_64 the interrupt saves them at the top of the task's kernel stack), and for
 * one in the kernel they are where the task entered it, as for a tracepoint.
 */
static __always_inline long stack__user(void *ctx, struct stack_sample *s, __u32 tgid, __u32 at)
{
	const struct unwind_proc *proc = NULL;
	long len;

#ifndef STACK_FRAME_POINTERS_ONLY
	proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
#endif
	if (!proc) {
		/* No tables (yet, or ever: a kernel thread has no user stack at all). */
		if (at > RECORD_MAX_STACK)
			return -1;
		len = bpf_get_stack(ctx, &s->ips[at], RECORD_MAX_STACK * sizeof(__u64),
				    BPF_F_USER_STACK);
#ifndef STACK_FRAME_POINTERS_ONLY
		if (len > 0)
			count(STACK_COUNTER_UNWIND_NO_PROCESS);
#endif
		return len < 0 ? len : len / sizeof(__u64);
	}
#ifdef STACK_FRAME_POINTERS_ONLY
	return -1;
#else
	return stack__walk(s, proc, NULL,
			   (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()), at);
#endif
}

/*
 * Takes the current task's stacks into s and sends it (stack__output): the user stack
 * by unwind tables where its process has them (stack__user). ctx: the
 * program's own context. kskip: kernel frames to leave out (a tracepoint's own
 * bpf_trace_run frames), or STACK_USER_ONLY. Every memory access counts: at 99 Hz
 * nothing of this is in the cache when it runs (a map lookup costs a cache miss or
 * more).
 */
static __always_inline void stack__send(void *ctx, struct stack_sample *s, __u32 kskip)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	long klen, ulen;

	s->pid = (__u32)pid_tgid;
	s->tgid = pid_tgid >> 32;
	bpf_get_current_comm(s->comm, sizeof(s->comm));

	klen = kskip & STACK_USER_ONLY ? 0 :
		stack__clamp(bpf_get_stack(ctx, s->ips, RECORD_MAX_STACK * sizeof(__u64),
					   kskip & BPF_F_SKIP_FIELD_MASK));
	if (klen < 0) {
		count(STACK_COUNTER_KSTACK_FAILED);
		klen = 0;
	}
	/* A kernel thread has no user stack: 0 frames, not an error. */
	ulen = stack__user(ctx, s, s->tgid, klen);
	if (ulen < 0) {
		count(STACK_COUNTER_USTACK_FAILED);
		ulen = 0;
	}
	if (ulen > RECORD_MAX_STACK)
		ulen = RECORD_MAX_STACK;
	/*
	 * Interpreter frames (Python) go here: read from the interpreter's own structures
	 * for this thread, after the native stack, so that user space can splice them in
	 * where the interpreter's evaluation loop appears in it.
	 */
	python_frames__take(s, s->tgid, (__u32)pid_tgid, klen + ulen);
	s->kstack_len = klen;
	s->ustack_len = ulen;
	stack__output(s, (struct task_struct *)bpf_get_current_task(),
		      bpf_get_current_cgroup_id());
}

/*
 * The same for another task, from a sleepable program (a task iterator): its kernel
 * stack where it stopped, its user stack from the registers it entered the kernel with
 * (stack__walk reading its memory with bpf_copy_from_user_task: tables where user space
 * loaded its process's, frame pointers elsewhere), and its Python frames.
 */
static __always_inline void stack__send_task(struct stack_sample *s, struct task_struct *task)
{
	const struct unwind_proc *proc;
	long klen, ulen = 0;
	__u32 tgid;

	s->pid = BPF_CORE_READ(task, pid);
	s->tgid = tgid = BPF_CORE_READ(task, tgid);
	BPF_CORE_READ_STR_INTO(&s->comm, task, comm);

	klen = stack__clamp(bpf_get_task_stack(task, s->ips, RECORD_MAX_STACK * sizeof(__u64),
					       0));
	if (klen < 0) {
		count(STACK_COUNTER_KSTACK_FAILED);
		klen = 0;
	}
	if (!(BPF_CORE_READ(task, flags) & PF_KTHREAD) && BPF_CORE_READ(task, mm)) {
#ifdef STACK_FRAME_POINTERS_ONLY
		ulen = stack__walk_fp(s, task, (struct pt_regs *)bpf_task_pt_regs(task), klen);
		(void)proc;
#else
		proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
		ulen = stack__walk(s, proc, task, (struct pt_regs *)bpf_task_pt_regs(task), klen);
		if (!proc && ulen > 0)
			count(STACK_COUNTER_UNWIND_NO_PROCESS);
#endif
		if (ulen > RECORD_MAX_STACK)
			ulen = RECORD_MAX_STACK;
		python_frames__take_task(s, tgid, s->pid, klen + ulen, task);
	}
	s->kstack_len = klen;
	s->ustack_len = ulen;
	stack__output(s, task, BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id));
}

#include "process_events.h"

#endif
