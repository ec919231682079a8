/* SPDX-License-Identifier: MIT */
/*
 * What user space hands the BPF side about a JVM (HotSpot) process: where its code
 * heaps are and the offsets the frame walker reads, all from the JVM's own tables
 * (src/unwind/jvm.h). Plain fixed-layout records, no pointers; included by both sides
 * and by jvm_walk.h, the walker both compile.
 */
#ifndef SLIDEOPS_BPF_JVM_RECORDS_H
#define SLIDEOPS_BPF_JVM_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Code heaps of a JVM: 17's segmented code cache has three (non-nmethods, profiled,
 * non-profiled); a JVM with more is walked in its first four. */
#define JVM_MAX_HEAPS 4
/* Steps back through a heap's segment map to a block's start: each byte of the map says
 * how many segments back to go (at most 0xfe), so a block of n segments takes about
 * n / 254 steps; 17's largest nmethods are a few thousand 128-byte segments. */
#define JVM_SEGMAP_STEPS 32

_Static_assert((JVM_MAX_HEAPS & (JVM_MAX_HEAPS - 1)) == 0, "mask of heap index");

struct jvm_heap {
	__u64 low, high;     /* the heap's committed code: [low, high) */
	__u64 segmap;	     /* its segment map: one byte a segment */
	__u32 log2_segment;  /* segment size, log2 (7: 128 bytes in 17) */
	__u32 pad;
};

struct jvm_proc {
	__u64 code_low, code_high; /* the whole code cache (CodeCache::_low/_high_bound) */
	struct jvm_heap heaps[JVM_MAX_HEAPS];
	__u32 nheaps;
	__u16 heap_block;	/* sizeof(HeapBlock): the CodeBlob follows the block's header */
	__u16 blob_name;	/* CodeBlob::_name */
	__u16 blob_frame_size;	/* CodeBlob::_frame_size, in words */
	__u16 blob_code_begin;	/* CodeBlob::_code_begin */
	__u16 blob_frame_complete; /* CodeBlob::_frame_complete_offset */
	__u16 compiled_method;	/* CompiledMethod::_method */
	__s16 interp_method;	/* frame::interpreter_frame_method_offset, words from rbp */
	__s16 interp_bcp;	/* frame::interpreter_frame_bcp_offset, words from rbp; 0: none */
	__u16 nmethod_verified_entry; /* nmethod::_verified_entry_point; 0: not known */
	__u16 pad;
};

/* A CodeBlob's name's first 8 bytes, little-endian, that say its kind: "nmethod\0", and
 * "native n" (a native method's wrapper, an nmethod of its Method*: "native nmethod"),
 * and "Interpre" (the template interpreter). */
#define JVM_BLOB_NMETHOD 0x00646f6874656d6eull
#define JVM_BLOB_NATIVE_NMETHOD 0x6e2065766974616eull
#define JVM_BLOB_INTERPRETER 0x6572707265746e49ull

/* What a PC of the code cache is: the blob's kind, from its name's first 8 bytes. */
enum jvm_kind {
	JVM_KIND_NONE,	      /* not in the code cache, or no blob found */
	JVM_KIND_NMETHOD,     /* a compiled Java method: "nmethod" */
	JVM_KIND_INTERPRETER, /* the template interpreter: "Interpreter" */
	JVM_KIND_STUB,	      /* any other blob: stubs, adapters, the runtime's */
};

/*
 * A Java frame in a sample's user stack (bpf/jvm_frames.h): in place of its PC, a word
 * that says which method it runs and where in it, tagged so that it is never an address
 * (its top byte, where a user address has 0 and a kernel one 0xff):
 *
 *   'C' a compiled frame: its nmethod (8-byte units from the code cache's low bound, in
 *       the low 28 bits) and its PC's offset in that nmethod (the next 28); user space
 *       reads the method, the methods inlined at that PC and their bytecode indexes from
 *       the nmethod's scope data (src/unwind/jvm_nmethod.c).
 *   'I' an interpreted frame: its Method* (shifted right 3, the low 44 bits) and the low
 *       12 bits of its bytecode pointer (the frame's bcp slot, bits 44-55): user space
 *       finds the bytecode index from where the method's bytecodes start.
 *   'J' either, when the above does not fit (a Method* above 2^47, a JVM without the bcp
 *       slot, an nmethod past the offsets' reach): its Method* alone (the low 48 bits),
 *       JVM_FRAME_INTERPRETED set for the interpreter's.
 *
 * Stubs and frames without a Method* keep their PC (anonymous memory: one [Java] frame).
 */
#define JVM_FRAME_TAG 0x4a00000000000000ull
#define JVM_FRAME_TAG_COMPILED 0x4300000000000000ull
#define JVM_FRAME_TAG_BYTECODE 0x4900000000000000ull
#define JVM_FRAME_TAG_MASK 0xff00000000000000ull
#define JVM_FRAME_INTERPRETED (1ull << 48)
#define JVM_FRAME_METHOD_MASK ((1ull << 48) - 1)
#define JVM_FRAME_FIELD_BITS 28
#define JVM_FRAME_FIELD_MASK ((1ull << JVM_FRAME_FIELD_BITS) - 1)
#define JVM_FRAME_BCP_SHIFT 44
#define JVM_FRAME_BCP_MASK 0xfffull
#define JVM_FRAME_METHOD_BITS 44

/* Whether a sample's word is a Java frame (any of the three tags). */
#define JVM_FRAME_IS_JAVA(w)                                                                       \
	(((w) & JVM_FRAME_TAG_MASK) == JVM_FRAME_TAG ||                                              \
	 ((w) & JVM_FRAME_TAG_MASK) == JVM_FRAME_TAG_COMPILED ||                                     \
	 ((w) & JVM_FRAME_TAG_MASK) == JVM_FRAME_TAG_BYTECODE)

/* One Java frame: its kind, Method* (0 where a stub has none), its CodeBlob (0 for the
 * interpreter) and, interpreted, its bytecode pointer (0 when not read). */
struct jvm_frame {
	__u64 method;
	__u64 blob;
	__u64 bcp;
	__u32 kind;
	__u32 pad;
};

#endif
