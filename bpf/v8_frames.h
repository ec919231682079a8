/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JavaScript frames in the native walk (bpf/stack.h): for a process user space found V8
 * in (src/capture/v8_procs.c writes its struct v8_proc in v8_procs), each frame whose PC
 * is in one of its code ranges and whose frame is a JavaScript one goes into the sample
 * as its tagged JSFunction (V8_FRAME_TAG, v8_records.h) and its PC (V8_PC_TAG, the word
 * after it); user space names each once per process. V8 keeps a frame pointer in every
 * frame it builds, so the step is rbp's: the caller's PC at fp + 8, its fp at fp, its sp
 * fp + 16.
 *
 * Which frames are JavaScript's: V8's standard frame keeps, below the saved fp, the
 * function's Context (off_fp_context) and its JSFunction (off_fp_function); a typed
 * frame (an entry, an exit, a stub's) keeps a Smi, its type's marker, where the Context
 * would be. A frame whose slot holds a Smi, or whose function slot holds no heap object,
 * is left to the native step (its PC: one [JavaScript] frame). The leaf frame is the
 * function whose frame rbp is: a sample in a function's prologue, before it pushed its
 * frame, counts as its caller (as frame-pointer walks do).
 *
 * One global function per kind of task (v8_frame_current; v8_frame_task reads another
 * task's memory, from sleepable iterators, 6.8+), checked once on its own. A process
 * without V8 gets v8_no_proc, whose ranges are empty: a frame costs a call and a loop of
 * four compares.
 */
#ifndef SLIDEOPS_BPF_V8_FRAMES_H
#define SLIDEOPS_BPF_V8_FRAMES_H

#include "v8_records.h"

/* tgid -> its V8 code ranges and frame layout (user space's unwind worker writes it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct v8_proc);
} v8_procs SEC(".maps");

/* What a process without V8 is handed: no code range (all zero). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8_proc);
} v8_no_proc SEC(".maps");

static __always_inline const struct v8_proc *v8_proc_of(__u32 tgid)
{
	const struct v8_proc *vp = bpf_map_lookup_elem(&v8_procs, &tgid);
	__u32 zero = 0;

	return vp ? vp : bpf_map_lookup_elem(&v8_no_proc, &zero);
}

#ifndef STACK_FRAME_POINTERS_ONLY
static __always_inline int v8__read(struct task_struct *task, void *dst, __u32 size, __u64 addr)
{
	if (task)
		return bpf_copy_from_user_task(dst, size, (const void *)(unsigned long)addr, task, 0);
	return bpf_probe_read_user(dst, size, (const void *)(unsigned long)addr);
}

/*
 * The next frame when its PC is in vp's code and its frame a JavaScript one: the tagged
 * JSFunction into pcs, the caller's registers into w; memory read is task's (NULL: the
 * current task's). -1: not a JavaScript frame (the native step takes it); 0: go on;
 * 1: the walk is over (w->reason says why).
 */
static __always_inline int v8_frame_body(struct unwind_walk *w, struct unwind_pcs *pcs,
					 const struct v8_proc *vp, struct task_struct *task)
{
	__u64 ip, bp, sp, slot[2], frame[2];
	__u32 at, in = 0;

	if (!w || !pcs || !vp)
		return -1;
	ip = w->regs.ip;
	for (__u32 i = 0; i < V8_MAX_RANGES; i++)
		if (i < vp->nranges && ip >= vp->ranges[i].low && ip < vp->ranges[i].high)
			in = 1;
	if (!in)
		return -1;
	bp = w->regs.bp;
	sp = w->regs.sp;
	if (!w->regs.bp_known || !bp || (bp & 7) || bp < sp)
		return -1;
	/* the function's slot and the context's (-16 and -8 in Node 20: one read) */
	if (vp->off_fp_function != vp->off_fp_context - 8 ||
	    v8__read(task, slot, sizeof(slot), bp + (__s64)vp->off_fp_function) ||
	    v8__read(task, frame, sizeof(frame), bp))
		return -1;
	if ((slot[1] & vp->smi_mask) == vp->smi_tag || (slot[0] & vp->heap_mask) != vp->heap_tag)
		return -1; /* a typed frame, or no function */
	at = w->at;
	if (at >= w->end || at >= UNWIND_USER_PCS)
		return 1; /* reason stays UNWIND_STOP_DEPTH */
	pcs->pc[at & UNWIND_USER_PCS_MASK] = V8_FRAME_TAG | (slot[0] & V8_FRAME_FUNCTION_MASK);
	at++;
	if (at < w->end && at < UNWIND_USER_PCS) { /* and where in it (V8_PC_TAG) */
		__u32 i = at;

		/* the mask where the verifier sees it: the compiler would drop it as
		 * redundant with the bound just tested, which 6.1's verifier does not
		 * carry over to this register ("R7 max value is outside of the allowed
		 * memory range": the full walker refused) */
		asm volatile("" : "+r"(i));
		pcs->pc[i & UNWIND_USER_PCS_MASK] = V8_PC_TAG | (ip & V8_PC_MASK);
		at++;
	}
	w->at = at;
	if (bp + 16 <= sp) {
		w->reason = UNWIND_STOP_NOT_GROWING;
		return 1;
	}
	w->regs.ip = frame[1];
	w->regs.sp = bp + 16;
	w->regs.bp = frame[0];
	w->regs.bp_known = 1;
	w->regs.after_signal = 0;
	if (!frame[1]) {
		w->reason = UNWIND_STOP_IP_ZERO;
		return 1;
	}
	return 0;
}

/* The current task's next frame when it is vp's JavaScript (v8_frame_body). */
__noinline int v8_frame_current(struct unwind_walk *w, struct unwind_pcs *pcs,
				const struct v8_proc *vp)
{
	return v8_frame_body(w, pcs, vp, NULL);
}

#ifndef NO_TRUSTED_ARGS
/* Another task's next frame when it is vp's JavaScript (sleepable programs only). */
__noinline int v8_frame_task(struct unwind_walk *w, struct unwind_pcs *pcs,
			     const struct v8_proc *vp, struct task_struct *task __arg_trusted)
{
	return v8_frame_body(w, pcs, vp, task);
}
#endif
#endif /* STACK_FRAME_POINTERS_ONLY */

#endif
