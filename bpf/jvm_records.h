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
	__u16 pad[3];
};

/* What a PC of the code cache is: the blob's kind, from its name's first 8 bytes. */
enum jvm_kind {
	JVM_KIND_NONE,	      /* not in the code cache, or no blob found */
	JVM_KIND_NMETHOD,     /* a compiled Java method: "nmethod" */
	JVM_KIND_INTERPRETER, /* the template interpreter: "Interpreter" */
	JVM_KIND_STUB,	      /* any other blob: stubs, adapters, the runtime's */
};

/*
 * A Java frame in a sample's user stack (bpf/jvm_frames.h): in place of its PC, the
 * Method* it runs, tagged so that it is never an address ('J' in the top byte, where a
 * user address has 0 and a kernel one 0xff), and whether the interpreter runs it. Stubs
 * and frames without a Method* keep their PC (anonymous memory: one [Java] frame).
 */
#define JVM_FRAME_TAG 0x4a00000000000000ull
#define JVM_FRAME_TAG_MASK 0xff00000000000000ull
#define JVM_FRAME_INTERPRETED (1ull << 48)
#define JVM_FRAME_METHOD_MASK ((1ull << 48) - 1)

/* One Java frame: its kind and Method* (0 where a stub has none). */
struct jvm_frame {
	__u64 method;
	__u32 kind;
	__u32 pad;
};

#endif
