/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Python frames of a sample, for every question: bpf/stack.h's stack__send calls
 * python_frames__take after the native stack (stack__send_task, for another task from a
 * sleepable iterator, python_frames__take_task), for a process user space found CPython in
 * (src/capture/python.c puts its struct python_proc in python_procs, off the sampling
 * path). The sampled thread's frames go after the native ones in the same sample; a
 * code object's names go once per process, in a record of their own sent before the
 * first sample that has it (user space keeps them).
 *
 * What user space reads (the record) is above the BPF part, for both sides.
 */
#ifndef SLIDEOPS_BPF_PYTHON_FRAMES_H
#define SLIDEOPS_BPF_PYTHON_FRAMES_H

#include "python_records.h"
#include "records.h"

/* RECORD_PYTHON_CODE: the names of one code object of process tgid. */
struct python_code_record {
	__u32 kind;
	__u32 tgid;
	struct python_code code;
};

_Static_assert(RECORD_MAX_PYFRAMES == PYTHON_MAX_FRAMES, "a sample holds a whole Python stack");
_Static_assert(sizeof(struct python_frame) == 2 * sizeof(__u64), "two words a frame");

#ifdef __bpf__

#include "channel.h"
#include "python_walk.h"

/* tgid -> where CPython is in it (user space's unwind worker writes it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct python_proc);
} python_procs SEC(".maps");

/* tid -> its thread state last time: the walk tries it first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} python_threads SEC(".maps");

struct python_code_key {
	__u32 tgid;
	__u32 pad;
	__u64 code;
};

/* (tgid, code object) whose names were sent. LRU: forgetting one only sends it again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct python_code_key);
	__type(value, __u8);
} python_codes SEC(".maps");

/*
 * Per CPU, in front of python_codes: the (tgid, code object) pairs this CPU saw sent, one
 * slot per hash of the pair, a newer pair taking the slot. A frame whose code object
 * comes again on this CPU (a service's frames come again sample after sample) costs one
 * compare in memory the walk already holds, not a hash map lookup (a helper call, a hash
 * and a bucket in memory not in the cache at 99 Hz: measured ~0.7 us a frame). A pair not
 * here still goes to python_codes, so a code object's names still go once per process.
 */
#define PYTHON_SEEN_SLOTS 512
_Static_assert((PYTHON_SEEN_SLOTS & (PYTHON_SEEN_SLOTS - 1)) == 0, "mask of a slot");

struct python_seen_code {
	__u64 code;
	__u32 tgid;
	__u32 pad;
};

/* Per CPU too: the thread sampled last on this CPU and its thread state, in front of
 * python_threads (the same thread sampled again on its CPU skips that lookup). */
struct python_last_thread {
	__u64 tstate;
	__u32 tid;
	__u32 pad;
};

struct python_frames_scratch {
	struct python_scratch win;
	struct python_stack stack;
	struct python_code_record code;
	struct python_last_thread last;
	struct python_seen_code seen[PYTHON_SEEN_SLOTS];
};

/* One per sample slot (bpf/stack.h), for the same reason: a program that interrupts
 * another on one CPU has a walk of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STACK_SLOTS);
	__type(key, __u32);
	__type(value, struct python_frames_scratch);
} python_frames_scratch SEC(".maps");

#if defined(NO_BPF_LOOP) || defined(STACK_FRAME_POINTERS_ONLY)
/* The variants without the walker or bpf_loop (docs/kernel.md) read no Python frames:
 * user space says so for the processes that run CPython. */
static __always_inline int python_frames__take(struct stack_sample *s, __u32 tgid, __u32 tid,
					       __u32 at)
{
	return 0;
}

static __always_inline int python_frames__take_task(struct stack_sample *s, __u32 tgid,
						    __u32 tid, __u32 at, struct task_struct *task)
{
	return 0;
}
#else
struct python_frames_names {
	__u32 tgid;
	const struct python_reader *rd; /* NULL: the current task */
	struct python_proc *p;
	struct python_frames_scratch *sc;
};

/* The slot of (tgid, code) in python_frames_scratch.seen: code objects are 16-byte
 * aligned, and a service's are some kilobytes apart. */
static __always_inline __u32 python__seen_slot(__u32 tgid, __u64 code)
{
	__u64 h = (code >> 4) ^ (code >> 13) ^ ((__u64)tgid * 0x9e3779b1u);

	return python__bound((__u32)h, PYTHON_SEEN_SLOTS - 1);
}

static __always_inline void python__seen(struct python_frames_scratch *sc, __u32 tgid,
					 __u64 code)
{
	struct python_seen_code *seen = &sc->seen[python__seen_slot(tgid, code)];

	seen->code = code;
	seen->tgid = tgid;
}

/* Frame i's code object: its names, when not sent for this process yet. */
static __always_inline long python_frames__code_body(struct python_frames_names *w, __u32 i,
						     const struct python_reader *rd)
{
	struct python_code_key k = { .tgid = w->tgid };
	struct python_code_record *r = &w->sc->code;
	struct python_seen_code *seen;
	__u8 one = 1;

	/* seen is found again after each helper call, not kept across it: a register
	 * spilled there would cost stack, and wall's programs on 6.1 are at its limit. */

	k.code = w->sc->stack.frames[i & (PYTHON_MAX_FRAMES - 1)].code;
	if (!k.code)
		return 0;
	seen = &w->sc->seen[python__seen_slot(w->tgid, k.code)];
	if (seen->code == k.code && seen->tgid == w->tgid)
		return 0;
	if (bpf_map_lookup_elem(&python_codes, &k)) {
		python__seen(w->sc, k.tgid, k.code);
		return 0;
	}
	r->kind = RECORD_PYTHON_CODE;
	r->tgid = w->tgid;
	python_walk__code(rd, &w->p->off, k.code, &r->code);
	if (bpf_ringbuf_output(&records, r, sizeof(*r), BPF_RB_NO_WAKEUP)) {
		count(STACK_COUNTER_PYTHON_CODE_LOST);
		return 1;
	}
	bpf_map_update_elem(&python_codes, &k, &one, BPF_ANY);
	python__seen(w->sc, k.tgid, k.code);
	return 0;
}

/* The current task's (no helper that may sleep in it: python_walk.h's PYTHON_STEP). */
static long python_frames__code(__u32 i, void *ctx)
{
	return python_frames__code_body(ctx, i, NULL);
}

static long python_frames__code_task(__u32 i, void *ctx)
{
	return python_frames__code_body(ctx, i, ((struct python_frames_names *)ctx)->rd);
}

/*
 * Thread tid's Python frames into s->ips from word at (after the native frames), when
 * its process runs CPython: s->pystack_len frames, s->pystack_exit why the walk ended.
 * A process without CPython costs one hash lookup. task: the thread (its fs base), and
 * rd: how its memory is read (NULL: it is the current task).
 */
static __always_inline int python_frames__walk(struct stack_sample *s, __u32 tgid, __u32 tid,
					       __u32 at, struct task_struct *task,
					       const struct python_reader *rd)
{
	struct python_frames_names w = { .tgid = tgid, .rd = rd };
	__u64 pthread_id = 0, *hint;
	__u32 slot, n, size;

	if (!s)
		return 0;
	s->pystack_len = 0;
	s->pystack_exit = 0;
	w.p = bpf_map_lookup_elem(&python_procs, &tgid);
	if (!w.p)
		return 0;
	slot = s->slot;
	w.sc = bpf_map_lookup_elem(&python_frames_scratch, &slot);
	if (!w.sc)
		return 0;
#ifdef __TARGET_ARCH_x86
	/* pthread_self(): 3.8-3.10 know their threads only by it. */
	pthread_id = BPF_CORE_READ(task, thread.fsbase);
#endif
	/* The hint lives in the scratch, not on the stack (wall's programs on 6.1 are at
	 * the stack's limit). */
	if (w.sc->last.tid != tid || !w.sc->last.tstate) {
		hint = bpf_map_lookup_elem(&python_threads, &tid);
		w.sc->last.tid = tid;
		w.sc->last.tstate = hint ? *hint : 0;
	}
	python_walk(rd, w.p, tid, pthread_id, w.sc->last.tstate, &w.sc->win, &w.sc->stack);
	if (w.sc->stack.tstate && w.sc->last.tstate != w.sc->stack.tstate)
		bpf_map_update_elem(&python_threads, &tid, &w.sc->stack.tstate, BPF_ANY);
	w.sc->last.tstate = w.sc->stack.tstate;
	s->pystack_exit = w.sc->stack.exit;
	if (w.sc->stack.exit >= PYTHON_EXIT_NO_THREAD && w.sc->stack.exit < PYTHON_EXIT__COUNT)
		count(STACK_COUNTER_PYTHON_NO_THREAD + w.sc->stack.exit - PYTHON_EXIT_NO_THREAD);
	n = w.sc->stack.nframes;
	if (n == 0)
		return 0;
	if (n > PYTHON_MAX_FRAMES)
		n = PYTHON_MAX_FRAMES;
	python__loop_rd(n, python_frames__code, rd, &w);
	size = python__bound(n * sizeof(struct python_frame), 2 * PYTHON_MAX_FRAMES * 8 - 1);
	at = python__bound(at, 255);
	if (size == 0)
		size = 2 * PYTHON_MAX_FRAMES * 8; /* n was PYTHON_MAX_FRAMES: the mask made it 0 */
	if (bpf_probe_read_kernel(&s->ips[at], size, w.sc->stack.frames))
		return 0;
	s->pystack_len = size / sizeof(struct python_frame);
	return 0;
}

/*
 * The current thread's Python frames (python_frames__walk), from any program.
 *
 * A global function: the verifier checks it once, on its own. Inlined into stack__send
 * it was checked again for each state the native walk left (past a million steps).
 */
__noinline int python_frames__take(struct stack_sample *s, __u32 tgid, __u32 tid, __u32 at)
{
	return python_frames__walk(s, tgid, tid, at,
				   (struct task_struct *)bpf_get_current_task(), NULL);
}

#ifndef __arg_trusted
/* A global function's argument the verifier keeps as a trusted kernel pointer (6.8+). */
#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#endif

/*
 * Another thread's Python frames, read with bpf_copy_from_user_task: only sleepable
 * programs (task iterators) call this. Global too, for the same reason: it takes the task
 * as a trusted kernel pointer (arg:trusted, 6.8).
 *
 * The objects built with NO_TRUSTED_ARGS, for older kernels, have none: checked with its
 * caller (a static function), the walk took the verifier past its million instructions
 * (measured on 6.18), and no other way to hand it the task exists there (bpf_task_from_pid
 * is 6.2's). User space says what is missing (docs/kernel.md).
 */
#ifdef NO_TRUSTED_ARGS
static __always_inline int python_frames__take_task(struct stack_sample *s, __u32 tgid,
						    __u32 tid, __u32 at, struct task_struct *task)
{
	return 0;
}
#else
__noinline int python_frames__take_task(struct stack_sample *s, __u32 tgid, __u32 tid, __u32 at,
					struct task_struct *task __arg_trusted)
{
	struct python_reader rd = { .read = 0, .ctx = task };

	return python_frames__walk(s, tgid, tid, at, task, &rd);
}
#endif
#endif /* NO_BPF_LOOP || STACK_FRAME_POINTERS_ONLY */

#endif /* __bpf__ */

#endif
