/* SPDX-License-Identifier: MIT */
/*
 * What user space hands the BPF side about a CPython process, and what the BPF side
 * sends back about its Python frames: plain fixed-layout records, no pointers. Included
 * by both sides (and by python_walk.h, the walker both sides compile).
 *
 * Per process, user space (src/unwind/python_binary.c) finds CPython in the executable
 * mappings, its version and the address of _PyRuntime, and fills one struct python_proc:
 * the offsets of the interpreter's structures for that version are data here, not code
 * per version. Per sample, the walker finds the sampled thread's thread state and walks
 * its frame chain, newest first, into struct python_stack. Names are not read per sample:
 * a code object's names are read once (struct python_code) and cached by user space.
 */
#ifndef SLIDEOPS_BPF_PYTHON_RECORDS_H
#define SLIDEOPS_BPF_PYTHON_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Frames per stack. Deeper stacks keep the newest ones and end with PYTHON_EXIT_DEPTH. */
#define PYTHON_MAX_FRAMES 64
/* Thread states visited to find the sampled thread's (all interpreters together). */
#define PYTHON_MAX_THREADS 128
#define PYTHON_MAX_INTERPRETERS 4
/* Bytes of a code object's names kept; longer names are cut (and say so). */
#define PYTHON_NAME_LEN 128
#define PYTHON_FILE_LEN 256
/* Bytes of a code object's line table kept: enough for functions of a few hundred
 * instructions; lines past what is kept are not told. */
#define PYTHON_TABLE_LEN 512
/* The largest window read of one thread state or frame: every offset used lies in it. */
#define PYTHON_WINDOW_WORDS 32

_Static_assert((PYTHON_MAX_FRAMES & (PYTHON_MAX_FRAMES - 1)) == 0, "mask of frame index");
_Static_assert((PYTHON_WINDOW_WORDS & (PYTHON_WINDOW_WORDS - 1)) == 0, "mask of word index");
_Static_assert((PYTHON_NAME_LEN & (PYTHON_NAME_LEN - 1)) == 0, "mask of a read's size");
_Static_assert((PYTHON_FILE_LEN & (PYTHON_FILE_LEN - 1)) == 0, "mask of a read's size");
_Static_assert((PYTHON_TABLE_LEN & (PYTHON_TABLE_LEN - 1)) == 0, "mask of a read's size");

/* No such field in this version. */
#define PYTHON_NONE 0xffff

/* Where a thread state keeps its newest frame. */
enum python_frames_kind {
	PYTHON_FRAMES_OBJECT = 1, /* 3.8-3.10: tstate->frame, PyFrameObject chain by f_back */
	PYTHON_FRAMES_CFRAME = 2, /* 3.11-3.12: tstate->cframe->current_frame, by previous */
	PYTHON_FRAMES_DIRECT = 3, /* 3.13: tstate->current_frame, by previous */
};

/* How a code object maps instructions to lines. */
enum python_line_kind {
	PYTHON_LINES_LNOTAB = 1,    /* 3.8-3.9: co_lnotab, (bytes, line) increments */
	PYTHON_LINES_310 = 2,       /* 3.10: co_linetable, (bytes, line) deltas, -128 no line */
	PYTHON_LINES_LOCATIONS = 3, /* 3.11+: co_linetable, the location table */
};

/* What a frame says about the instruction it runs. */
enum python_instr_kind {
	PYTHON_INSTR_LASTI_BYTES = 1, /* 3.8-3.9: int f_lasti, in bytes */
	PYTHON_INSTR_LASTI_UNITS = 2, /* 3.10: int f_lasti, in 2-byte code units */
	PYTHON_INSTR_POINTER = 3,     /* 3.11+: pointer into the code object's bytecode */
};

/*
 * One CPython version's layout: offsets in bytes, PYTHON_NONE where the version has no
 * such field. One row per version (src/unwind/python_offsets.c), or read from the binary's
 * _Py_DebugOffsets (3.13).
 */
struct python_offsets {
	__u16 version;         /* 0x030b for 3.11 */
	__u8 frames_kind;      /* enum python_frames_kind */
	__u8 instr_kind;       /* enum python_instr_kind */
	__u8 owner_cstack;     /* frame owner value of a C-stack shim frame (3.12+), else 0xff */
	__u8 tstate_words;     /* thread state window: 8-byte words read at once */
	__u8 frame_words;      /* frame window */
	__u8 line_kind;        /* enum python_line_kind */
	__u16 runtime_interpreters_head;
	__u16 interp_next;
	__u16 interp_threads_head;
	__u16 tstate_next;
	__u16 tstate_thread_id;        /* pthread_self() of the thread */
	__u16 tstate_native_thread_id; /* its kernel tid (3.11+) */
	__u16 tstate_frame;            /* frame, cframe or current_frame */
	__u16 cframe_current_frame;    /* 3.11-3.12 */
	__u16 frame_previous;
	__u16 frame_code;
	__u16 frame_instr;
	__u16 frame_owner;             /* 3.11+ */
	__u16 frame_is_entry;          /* 3.11 */
	__u16 code_name;
	__u16 code_qualname;           /* 3.11+ */
	__u16 code_filename;
	__u16 code_firstlineno;
	__u16 code_adaptive;           /* 3.11+: where the bytecode starts in the code object */
	__u16 code_linetable;          /* co_lnotab (3.8-3.9), co_linetable: a bytes object */
	__u16 bytes_size;              /* PyBytesObject: ob_size */
	__u16 bytes_data;              /* ob_sval */
	__u16 pad;
	__u16 unicode_state;
	__u16 unicode_length;
	__u16 unicode_ascii_data;      /* sizeof(PyASCIIObject) */
	__u16 unicode_compact_data;    /* sizeof(PyCompactUnicodeObject) */
};

/* What the BPF side needs per process (a map keyed by tgid). */
struct python_proc {
	__u64 runtime; /* address of _PyRuntime in the process (load bias applied) */
	struct python_offsets off;
};

/* The frame is the first one a _PyEval_EvalFrameDefault call ran (3.8-3.10: every frame;
 * 3.11: is_entry; 3.12+: the one after a C-stack shim): frames from the previous entry
 * frame (exclusive) to this one (inclusive) replace one such native frame. */
#define PYTHON_FRAME_ENTRY (1u << 0)
/* No instruction could be read. */
#define PYTHON_NO_INSTR 0xffffffffu

/* One Python frame of a sample: 16 bytes. */
struct python_frame {
	__u64 code;  /* PyCodeObject address in the process: the key of struct python_code */
	__u32 instr; /* index of the instruction run, in 2-byte code units; PYTHON_NO_INSTR */
	__u16 flags; /* PYTHON_FRAME_* */
	__u16 pad;
};

/* Why a walk ended: one counter each on the BPF side. */
enum python_exit {
	PYTHON_EXIT_OK = 0,        /* the chain ended at the thread's first frame */
	PYTHON_EXIT_NO_THREAD = 1, /* no thread state of this thread (not a Python thread) */
	PYTHON_EXIT_READ = 2,      /* a read of the process's memory failed */
	PYTHON_EXIT_DEPTH = 3,     /* more than PYTHON_MAX_FRAMES frames: the oldest are cut */
	PYTHON_EXIT_BAD = 4,       /* the structures made no sense (loop, bad version) */
	PYTHON_EXIT__COUNT,
};

/* A sample's Python frames, newest first (as a native stack: leaf first). */
struct python_stack {
	__u64 tstate;   /* the thread state found: a hint for the next sample of this thread */
	__u16 nframes;
	__u16 exit;     /* enum python_exit */
	__u32 pad;
	struct python_frame frames[PYTHON_MAX_FRAMES];
};

#define PYTHON_CODE_NAME_CUT (1u << 0) /* qualname longer than PYTHON_NAME_LEN bytes */
#define PYTHON_CODE_FILE_CUT (1u << 1)
#define PYTHON_CODE_NO_NAME (1u << 2) /* the name could not be read */
#define PYTHON_CODE_NO_FILE (1u << 3)
#define PYTHON_CODE_TABLE_CUT (1u << 4) /* the line table is longer than PYTHON_TABLE_LEN */

/*
 * A code object's names and line table, read once per (process, code object) and sent
 * when first seen.
 * Strings are the unicode object's data as CPython stores it: kind 1 (ASCII or Latin-1),
 * 2 (UCS-2) or 4 (UCS-4) bytes per character, name_bytes/file_bytes of it.
 */
struct python_code {
	__u64 code;
	__s32 firstlineno;
	__u16 flags;       /* PYTHON_CODE_* */
	__u8 name_kind, file_kind;
	__u16 name_bytes, file_bytes;
	__u16 table_bytes;
	__u8 line_kind;    /* enum python_line_kind of the table */
	__u8 pad;
	char name[PYTHON_NAME_LEN]; /* co_qualname (3.11+), else co_name */
	char file[PYTHON_FILE_LEN]; /* co_filename */
	__u8 table[PYTHON_TABLE_LEN]; /* the line table's first table_bytes bytes */
};

#endif
