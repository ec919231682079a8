/* SPDX-License-Identifier: MIT */
/*
 * The HotSpot frame step, plain C that compiles for BPF (clang -target bpf) and for the
 * host (tests, over /proc/PID/mem), as python_walk.h does for CPython. Given a JVM's
 * struct jvm_proc (jvm_records.h) and a frame's registers (pc, sp, rbp), it tells
 * whether the PC is in the JVM's code cache, which blob holds it (through the heap's
 * segment map, as HotSpot's own CodeHeap::find_blob_unsafe does), what kind of blob that
 * is, the frame's Method*, and the caller's registers:
 *
 *   - an nmethod (C1 or C2 code, or a native method's wrapper): the frame is frame_size
 *     words from sp; the return address is the word below its top and the caller's rbp
 *     the one below that (x86-64 compiled frames, frame_x86.cpp). A sample in its entry
 *     (pc before frame_complete) or exit is unwound from the instruction at the pc
 *     (jvm_walk__edge); an entry instruction it does not know stops the walk, said by
 *     the result.
 *   - the interpreter: rbp is kept; the Method* is at rbp + interp_method words, the
 *     bytecode pointer at rbp + interp_bcp words, the return address at rbp + 8 and the
 *     caller's rbp at rbp.
 *   - a stub with a frame size: unwound as an nmethod, without a Method*; one without
 *     (frame_size 0: the call stub that enters Java from JavaCalls::call_helper, the
 *     native wrappers' entries) keeps rbp as its frame pointer (it is built with
 *     enter/leave): the return address at rbp + 8 and the caller's rbp at rbp, followed
 *     only when rbp is above sp and aligned.
 *
 * Cost per frame: the segment map's bytes (one read a step, a few steps) and one read
 * per field; names are not read here (jvm_method__name, once per Method, by user space).
 * Every loop is bounded by a constant; a read that fails ends the step with -1.
 *
 * Called from the native walk (bpf/jvm_frames.h) for the current task's stack and, from
 * sleepable task iterators, another task's (threads, wall's sweep); tested on
 * the host against a real OpenJDK 17 (test_jvm_real.c) and made-up heaps (test_jvm.c).
 */
#ifndef SLIDEOPS_BPF_JVM_WALK_H
#define SLIDEOPS_BPF_JVM_WALK_H

#include "jvm_records.h"

#ifdef __bpf__
#define JVM_FN static __always_inline
#else
#define JVM_FN static inline
#endif

#ifdef __bpf__
/* BPF reads the current task's memory (rd NULL) or, from a sleepable program, task's
 * (bpf_copy_from_user_task: a trusted task, bpf/jvm_frames.h's jvm_frame_task). */
struct jvm_reader {
	struct task_struct *task;
};
#else
/* Host reads: through read (tests: /proc/PID/mem, made-up images). */
struct jvm_reader {
	int (*read)(void *ctx, void *dst, __u32 size, __u64 addr); /* 0 or -errno */
	void *ctx;
};
#endif

struct jvm_regs {
	__u64 pc, sp, bp;
	__u64 leaf; /* not 0: pc is where the task is (a sample's first frame), not a
		     * return address, and may be in an nmethod's entry or exit */
};

JVM_FN int jvm__read(const struct jvm_reader *rd, void *dst, __u32 size, __u64 addr)
{
	if (!addr)
		return -1;
#ifdef __bpf__
	if (rd && rd->task)
		return bpf_copy_from_user_task(dst, size, (const void *)(unsigned long)addr,
					       rd->task, 0);
	return bpf_probe_read_user(dst, size, (const void *)(unsigned long)addr);
#else
	return rd->read(rd->ctx, dst, size, addr);
#endif
}

JVM_FN int jvm__u64(const struct jvm_reader *rd, __u64 addr, __u64 *v)
{
	return jvm__read(rd, v, sizeof(*v), addr);
}

JVM_FN int jvm__s32(const struct jvm_reader *rd, __u64 addr, __s32 *v)
{
	return jvm__read(rd, v, sizeof(*v), addr);
}

/* The CodeBlob holding pc, or 0: pc outside every heap, in a free block, or a segment
 * map that does not lead to a block's start within JVM_SEGMAP_STEPS. */
JVM_FN __u64 jvm_walk__blob(const struct jvm_reader *rd, const struct jvm_proc *p, __u64 pc)
{
	if (pc < p->code_low || pc >= p->code_high)
		return 0;
	for (__u32 h = 0; h < JVM_MAX_HEAPS; h++) {
		const struct jvm_heap *heap = &p->heaps[h];
		__u64 seg;

		if (h >= p->nheaps || pc < heap->low || pc >= heap->high || heap->log2_segment > 20)
			continue;
		seg = (pc - heap->low) >> heap->log2_segment;
		for (__u32 step = 0; step < JVM_SEGMAP_STEPS; step++) {
			__u8 back;

			if (jvm__read(rd, &back, 1, heap->segmap + seg))
				return 0;
			if (back == 0xff)
				return 0; /* a free segment */
			if (back == 0)
				return heap->low + (seg << heap->log2_segment) + p->heap_block;
			if (back > seg)
				return 0;
			seg -= back;
		}
		return 0;
	}
	return 0;
}

/* What a blob is, from the first 8 bytes of its name. */
JVM_FN __u32 jvm_walk__kind(const struct jvm_reader *rd, const struct jvm_proc *p, __u64 blob)
{
	__u64 name, text;

	if (!blob || jvm__u64(rd, blob + p->blob_name, &name) || jvm__u64(rd, name, &text))
		return JVM_KIND_NONE;
	if (text == JVM_BLOB_NMETHOD || text == JVM_BLOB_NATIVE_NMETHOD)
		return JVM_KIND_NMETHOD;
	if (text == JVM_BLOB_INTERPRETER)
		return JVM_KIND_INTERPRETER;
	return JVM_KIND_STUB;
}

/*
 * Where a leaf frame's return address is when its PC is in an nmethod's entry or exit,
 * from the instructions at and just before the PC (C1's and C2's x86-64 code, 8 to 25:
 * MacroAssembler::verified_entry, C1_MacroAssembler::build_frame, C2's MachEpilogNode):
 *
 *   JVM_EDGE_AT_SP    at sp, rbp the caller's: before the verified entry (the inline
 *                     cache check), the stack bang "mov [rsp - n], eax", "push rbp", a
 *                     leaf method's first "sub rsp, imm32" (no bang: the frame made
 *                     before rbp is saved), and in the exit the return poll
 *                     "cmp rsp, [r15 + n]", its "ja", "ret"
 *   JVM_EDGE_PUSHED   at sp + 8, the caller's rbp at sp: "mov rbp, rsp" or "sub rsp, n"
 *                     right after "push rbp", and "pop rbp"
 *   JVM_EDGE_NO_RBP   the frame is made but rbp is not saved in it yet (a leaf
 *                     method's "mov [rsp + n], rbp"): rbp is the caller's
 *   JVM_EDGE_BUILT    the frame is built: the entry barrier "cmp dword [r15 + n], imm",
 *                     and every instruction past the entry not named above
 *   JVM_EDGE_UNKNOWN  any other instruction of the entry (the walk stops there)
 */
enum jvm_edge {
	JVM_EDGE_UNKNOWN,
	JVM_EDGE_AT_SP,
	JVM_EDGE_PUSHED,
	JVM_EDGE_NO_RBP,
	JVM_EDGE_BUILT,
};

JVM_FN int jvm_walk__edge(const struct jvm_reader *rd, __u64 pc, int entry, int before_verified)
{
	__u8 w[8]; /* 4 bytes before the PC, 4 at it */

	if (before_verified)
		return JVM_EDGE_AT_SP;
	if (jvm__read(rd, w, sizeof(w), pc - 4))
		return JVM_EDGE_UNKNOWN;
	if (entry) {
		if (w[4] == 0x55 || (w[4] == 0x89 && w[5] == 0x84 && w[6] == 0x24))
			return JVM_EDGE_AT_SP;
		if (w[4] == 0x48 && w[5] == 0x89 && w[6] == 0xe5)
			return JVM_EDGE_PUSHED;
		if (w[4] == 0x48 && (w[5] == 0x83 || w[5] == 0x81) && w[6] == 0xec)
			return w[3] == 0x55 || (w[1] == 0x48 && w[2] == 0x89 && w[3] == 0xe5)
				       ? JVM_EDGE_PUSHED
				       : JVM_EDGE_AT_SP;
		if (w[4] == 0x48 && w[5] == 0x89 && (w[6] == 0x6c || w[6] == 0xac) && w[7] == 0x24)
			return JVM_EDGE_NO_RBP;
		if (w[4] == 0x41 && w[5] == 0x81 && w[6] == 0x7f)
			return JVM_EDGE_BUILT;
		return JVM_EDGE_UNKNOWN;
	}
	if (w[4] == 0x5d)
		return JVM_EDGE_PUSHED;
	if (w[4] == 0xc3 || (w[4] == 0x49 && w[5] == 0x3b && (w[6] == 0x67 || w[6] == 0xa7)) ||
	    (w[4] == 0x0f && w[5] == 0x87 && w[0] == 0x49 && w[1] == 0x3b && w[2] == 0x67))
		return JVM_EDGE_AT_SP;
	return JVM_EDGE_BUILT;
}

/*
 * One frame at r: its kind, blob, Method* and bcp in f, the caller's registers in r. 0 when the
 * caller's registers were found; -1 when the walk stops here (f still says what the
 * frame was when it is known: a prologue, a stub without a frame, a read that failed).
 */
JVM_FN int jvm_walk__frame(const struct jvm_reader *rd, const struct jvm_proc *p,
			   struct jvm_regs *r, struct jvm_frame *f)
{
	__u64 blob = jvm_walk__blob(rd, p, r->pc), code, top, pc, bp, verified, at;
	__s32 words, complete;
	int entry, edge;

	f->method = 0;
	f->blob = blob;
	f->bcp = 0;
	f->kind = jvm_walk__kind(rd, p, blob);
	if (f->kind == JVM_KIND_NONE)
		return -1;
	if (f->kind == JVM_KIND_INTERPRETER) {
		if (!r->bp || (r->bp & 7) ||
		    jvm__u64(rd, r->bp + (__s64)p->interp_method * 8, &f->method) ||
		    jvm__u64(rd, r->bp + 8, &pc) || jvm__u64(rd, r->bp, &bp))
			return -1;
		/* where it is: the bcp the interpreter saved at its last call (a leaf frame's
		 * may be behind the bytecode it runs); 0 when not read */
		if (p->interp_bcp && jvm__u64(rd, r->bp + (__s64)p->interp_bcp * 8, &f->bcp))
			f->bcp = 0;
		r->sp = r->bp + 16;
		r->pc = pc;
		r->bp = bp;
		return 0;
	}
	if (f->kind == JVM_KIND_NMETHOD &&
	    jvm__u64(rd, blob + p->compiled_method, &f->method))
		return -1;
	if (jvm__s32(rd, blob + p->blob_frame_size, &words) || words > 4096)
		return -1;
	if (words <= 0) {
		if (f->kind != JVM_KIND_STUB || r->bp <= r->sp || (r->bp & 7) ||
		    jvm__u64(rd, r->bp + 8, &pc) || jvm__u64(rd, r->bp, &bp))
			return -1;
		r->sp = r->bp + 16;
		r->pc = pc;
		r->bp = bp;
		return 0;
	}
	if (jvm__u64(rd, blob + p->blob_code_begin, &code) ||
	    jvm__s32(rd, blob + p->blob_frame_complete, &complete))
		return -1;
	entry = complete > 0 && r->pc < code + (__u64)complete;
	edge = entry ? JVM_EDGE_UNKNOWN : JVM_EDGE_BUILT;
	/* a sample in a compiled method's entry or exit: its frame is not built, or no more */
	if (r->leaf && f->kind == JVM_KIND_NMETHOD) {
		if (!p->nmethod_verified_entry ||
		    jvm__u64(rd, blob + p->nmethod_verified_entry, &verified))
			verified = 0;
		edge = jvm_walk__edge(rd, r->pc, entry, r->pc < verified);
		if (edge == JVM_EDGE_AT_SP || edge == JVM_EDGE_PUSHED) {
			at = edge == JVM_EDGE_PUSHED ? 8 : 0;
			if (jvm__u64(rd, r->sp + at, &pc) || (at && jvm__u64(rd, r->sp, &bp)))
				return -1;
			r->sp += at + 8;
			r->pc = pc;
			if (at)
				r->bp = bp;
			return 0;
		}
	}
	/* in the entry otherwise: the frame is not yet built */
	if (edge == JVM_EDGE_UNKNOWN)
		return -1;
	top = r->sp + (__u64)words * 8;
	if (jvm__u64(rd, top - 8, &pc) || jvm__u64(rd, top - 16, &bp))
		return -1;
	r->sp = top;
	r->pc = pc;
	if (edge != JVM_EDGE_NO_RBP)
		r->bp = bp;
	return 0;
}

#endif
