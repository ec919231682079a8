/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Java frames in the native walk (bpf/runtime_frames.h drives them): for a process
 * user space found a JVM in (src/capture/jvm_procs.c writes its struct jvm_proc in
 * jvm_procs, off the sampling path), each frame whose PC is in the JVM's code cache is
 * stepped by the HotSpot frame step (jvm_walk.h: its CodeBlob through the heap's segment
 * map, its Method*, the caller's registers) instead of the native one, and goes into the
 * sample as a tagged word (jvm_records.h): its nmethod and PC offset when compiled, its
 * Method* and bytecode pointer when interpreted; the walk then goes on, native or Java,
 * to the stack's root. User space names each word once per process: the method, the
 * methods inlined there, and their lines.
 *
 * One global function, jvm_frame_current, checked once by the verifier on its own
 * (~4,500 instructions measured alone): a frame outside the code cache costs a call and
 * two compares. A process without a JVM gets jvm_no_proc, whose code cache is empty.
 *
 * Another task's stack (threads, wall's sweep: sleepable task iterators) is stepped the
 * same by jvm_frame_task, which reads with bpf_copy_from_user_task and so needs the task
 * as a trusted argument (6.8+). Objects built with NO_TRUSTED_ARGS, for older kernels,
 * walk other tasks natively: their Java code stays one [Java] frame there.
 */
#ifndef SLIDEOPS_BPF_JVM_FRAMES_H
#define SLIDEOPS_BPF_JVM_FRAMES_H

#include "jvm_walk.h"

/* tgid -> its JVM's code cache and offsets (user space's unwind worker writes it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct jvm_proc);
} jvm_procs SEC(".maps");

/* What a process without a JVM is handed: no code cache (all zero). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct jvm_proc);
} jvm_no_proc SEC(".maps");

/* Every build has the maps (the loader opens each build with the same skeleton type);
 * the frame-pointer build walks no Java frames. */
#ifndef STACK_FRAME_POINTERS_ONLY
/* The sample's word for a Java frame f whose PC is pc (jvm_records.h): 'C' with its
 * nmethod and offset, 'I' with its Method* and bcp, 'J' with its Method* alone. */
static __always_inline __u64 jvm_frame_word(const struct jvm_proc *jp, const struct jvm_frame *f,
					    __u64 pc)
{
	__u64 at, off;

	if (f->kind == JVM_KIND_NMETHOD && f->blob >= jp->code_low && pc >= f->blob) {
		at = (f->blob - jp->code_low) >> 3;
		off = pc - f->blob;
		if (at <= JVM_FRAME_FIELD_MASK && off <= JVM_FRAME_FIELD_MASK)
			return JVM_FRAME_TAG_COMPILED | at | (off << JVM_FRAME_FIELD_BITS);
	}
	if (f->kind == JVM_KIND_INTERPRETER && f->bcp && !(f->method & 7) &&
	    (f->method >> 3) < (1ull << JVM_FRAME_METHOD_BITS))
		return JVM_FRAME_TAG_BYTECODE | (f->method >> 3) |
		       ((f->bcp & JVM_FRAME_BCP_MASK) << JVM_FRAME_BCP_SHIFT);
	return JVM_FRAME_TAG | (f->method & JVM_FRAME_METHOD_MASK) |
	       (f->kind == JVM_KIND_INTERPRETER ? JVM_FRAME_INTERPRETED : 0);
}

/*
 * The next frame when its PC is Java code of jp: the tagged Method* (or the PC, for a
 * stub) into pcs, the caller's registers into w; the memory read is rd's (NULL: the
 * current task's). -1: not Java code (the native step takes it); 0: go on; 1: the walk
 * is over (w->reason says why).
 */
static __always_inline int jvm_frame_body(struct unwind_walk *w, struct unwind_pcs *pcs,
					  const struct jvm_proc *jp,
					  const struct jvm_reader *rd)
{
	struct jvm_regs r;
	struct jvm_frame f;
	__u64 ip;
	__u32 at;
	int rc;

	if (!w || !pcs || !jp)
		return -1;
	ip = w->regs.ip;
	if (ip < jp->code_low || ip >= jp->code_high)
		return -1;
	at = w->at;
	if (at >= w->end || at >= UNWIND_USER_PCS)
		return 1; /* reason stays UNWIND_STOP_DEPTH */
	r.pc = ip;
	r.sp = w->regs.sp;
	r.bp = w->regs.bp;
	r.leaf = w->regs.after_signal;
	rc = jvm_walk__frame(rd, jp, &r, &f);
	if (f.kind == JVM_KIND_NONE)
		return -1; /* no blob: the native step's frame pointers */
	if (f.method && (f.kind == JVM_KIND_NMETHOD || f.kind == JVM_KIND_INTERPRETER))
		ip = jvm_frame_word(jp, &f, ip);
	pcs->pc[at & UNWIND_USER_PCS_MASK] = ip;
	w->at = at + 1;
	if (rc) {
		/* a prologue, a stub without a frame, a read that failed */
		w->reason = UNWIND_STOP_UNSUPPORTED;
		return 1;
	}
	if (r.sp <= w->regs.sp) {
		w->reason = UNWIND_STOP_NOT_GROWING;
		return 1;
	}
	w->regs.ip = r.pc;
	w->regs.sp = r.sp;
	w->regs.bp = r.bp;
	w->regs.bp_known = 1;
	w->regs.after_signal = 0;
	return 0;
}

/* The current task's next frame when its PC is Java code of jp (jvm_frame_body). */
__noinline int jvm_frame_current(struct unwind_walk *w, struct unwind_pcs *pcs,
				 const struct jvm_proc *jp)
{
	return jvm_frame_body(w, pcs, jp, NULL);
}

static __always_inline const struct jvm_proc *jvm_proc_of(__u32 tgid)
{
	const struct jvm_proc *jp = bpf_map_lookup_elem(&jvm_procs, &tgid);
	__u32 zero = 0;

	return jp ? jp : bpf_map_lookup_elem(&jvm_no_proc, &zero);
}

#ifndef NO_TRUSTED_ARGS
/* Another task's next frame when its PC is Java code of jp (sleepable programs only). */
__noinline int jvm_frame_task(struct unwind_walk *w, struct unwind_pcs *pcs,
			      const struct jvm_proc *jp, struct task_struct *task __arg_trusted)
{
	struct jvm_reader rd = { .task = task };

	return jvm_frame_body(w, pcs, jp, &rd);
}
#endif /* NO_TRUSTED_ARGS */
#endif /* STACK_FRAME_POINTERS_ONLY */

#endif
