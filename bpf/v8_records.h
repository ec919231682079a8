/* SPDX-License-Identifier: MIT */
/*
 * What user space hands the BPF side about a V8 (Node.js) process: where its code is and
 * how its frames keep the function, from the node binary's own postmortem constants
 * (src/unwind/v8.h) and its mappings (src/capture/v8_procs.c). Plain fixed-layout
 * records, no pointers; included by both sides.
 */
#ifndef SLIDEOPS_BPF_V8_RECORDS_H
#define SLIDEOPS_BPF_V8_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Code ranges of one process: each isolate's code range (JIT code and the builtins V8
 * remaps there), and the builtins in the binary's text; a process with more is walked in
 * its first four. */
#define V8_MAX_RANGES 4

_Static_assert((V8_MAX_RANGES & (V8_MAX_RANGES - 1)) == 0, "a power of two");

struct v8_range {
	__u64 low, high; /* [low, high) */
};

struct v8_proc {
	struct v8_range ranges[V8_MAX_RANGES];
	__u32 nranges;
	__s16 off_fp_function; /* v8dbg_off_fp_function: the JSFunction, from fp (-16) */
	__s16 off_fp_context;  /* v8dbg_off_fp_context: the Context, or a typed frame's Smi */
	__u64 smi_mask, smi_tag;	/* SmiTagMask, SmiTag: a Smi when (v & mask) == tag */
	__u64 heap_mask, heap_tag;	/* HeapObjectTagMask, HeapObjectTag */
};

/*
 * A JavaScript frame in a sample's user stack (bpf/v8_frames.h): in place of its PC, the
 * JSFunction (a tagged heap pointer) its frame holds, tagged so that it is never an
 * address ('V' in the top byte, where a user address has 0, a kernel one 0xff and a Java
 * frame 'J'). Typed frames (stubs, entries, exits) keep their PC: one [JavaScript] frame.
 */
#define V8_FRAME_TAG 0x5600000000000000ull
#define V8_FRAME_TAG_MASK 0xff00000000000000ull
#define V8_FRAME_FUNCTION_MASK ((1ull << 48) - 1)

/*
 * The word after a JavaScript frame's: the frame's PC ('v' in the top byte), where in its
 * function's code it was (the leaf's interrupted instruction, a caller's return address).
 * User space finds in the function's optimised code the line it is at and the functions
 * inlined there (src/unwind/v8_code.c). Absent when the walk had no room left for it.
 */
#define V8_PC_TAG 0x7600000000000000ull
#define V8_PC_MASK ((1ull << 48) - 1)

#endif
