/* SPDX-License-Identifier: MIT */
/*
 * V8's layout, as V8 itself describes it for postmortem debuggers: the v8dbg_* symbols
 * every Node.js binary exports (Node 20: 531 of them). Each is an int: a frame offset
 * (v8dbg_off_fp_function), a tag (v8dbg_SmiTag), a class field's offset
 * (v8dbg_class_JSFunction__shared__SharedFunctionInfo) or an instance type.
 *
 * Unlike HotSpot's tables (jvm.h) these are plain initialised data: their values are in
 * the file, .data for the non-zero ones and .bss for those that are 0, so the binary
 * alone gives the layout; nothing of the process is read. A node whose binary does not
 * export one the walker needs is refused, the missing name said.
 *
 * The capture reads a node's layout here (src/capture/v8_procs.c) and names the
 * JSFunctions its kernel walk sends (bpf/v8_frames.h) with v8_function__name, through
 * the kernel's page reader (docs/kernel.md, "JavaScript (V8)").
 */
#ifndef SLIDEOPS_UNWIND_V8_H
#define SLIDEOPS_UNWIND_V8_H

#include <stddef.h>
#include <stdint.h>

/* The constants read, each from its v8dbg_ symbol (v8_const__name). */
enum v8_const {
	/* Frames: where the function and the context sit below a frame's fp. */
	V8_OFF_FP_FUNCTION,	 /* off_fp_function */
	V8_OFF_FP_CONTEXT,	 /* off_fp_context: a Context, or a typed frame's Smi marker */
	/* Tagging. */
	V8_SMI_TAG,		 /* SmiTag */
	V8_SMI_TAG_MASK,	 /* SmiTagMask */
	V8_SMI_SHIFT,		 /* SmiShiftSize */
	V8_HEAP_TAG,		 /* HeapObjectTag */
	V8_HEAP_TAG_MASK,	 /* HeapObjectTagMask */
	V8_TAGGED_SIZE,		 /* TaggedSize: 8 without pointer compression */
	/* Objects. */
	V8_HEAP_OBJECT_MAP,	 /* class_HeapObject__map__Map */
	V8_MAP_INSTANCE_TYPE,	 /* class_Map__instance_type__uint16_t */
	V8_JS_FUNCTION_TYPE,	 /* type_JSFunction__JS_FUNCTION_TYPE */
	V8_JS_FUNCTION_SHARED,	 /* class_JSFunction__shared__SharedFunctionInfo */
	V8_SFI_NAME,		 /* class_SharedFunctionInfo__name_or_scope_info__Object */
	V8_SFI_SCRIPT,		 /* class_SharedFunctionInfo__script_or_debug_info__HeapObject */
	V8_SCRIPT_NAME,		 /* class_Script__name__Object */
	V8_SCRIPT_TYPE,		 /* type_Script__SCRIPT_TYPE */
	/* Strings. */
	V8_FIRST_NONSTRING_TYPE, /* FirstNonstringType */
	V8_STRING_REPR_MASK,	 /* StringRepresentationMask */
	V8_STRING_ENC_MASK,	 /* StringEncodingMask */
	V8_SEQ_STRING_TAG,	 /* SeqStringTag */
	V8_CONS_STRING_TAG,	 /* ConsStringTag */
	V8_THIN_STRING_TAG,	 /* ThinStringTag */
	V8_CONS_FIRST,		 /* class_ConsString__first__String */
	V8_CONS_SECOND,		 /* class_ConsString__second__String */
	V8_THIN_ACTUAL,		 /* class_ThinString__actual__String */
	V8_ONE_BYTE_STRING_TAG,	 /* OneByteStringTag */
	V8_STRING_LENGTH,	 /* class_String__length__int32_t */
	V8_SEQ_ONE_BYTE_CHARS,	 /* class_SeqOneByteString__chars__char */
	V8_SEQ_TWO_BYTE_CHARS,	 /* class_SeqTwoByteString__chars__char */
	/* ScopeInfo: where a compiled function's name is (word indices after the map). */
	V8_SCOPE_INFO_TYPE,	 /* type_ScopeInfo__SCOPE_INFO_TYPE */
	V8_SCOPE_INFO_NLOCALS,	 /* scopeinfo_idx_ncontextlocals */
	V8_SCOPE_INFO_FIRST_VARS, /* scopeinfo_idx_first_vars */
	V8_CONST_COUNT
};

struct v8_layout {
	int32_t c[V8_CONST_COUNT];
	/* The builtins embedded in the binary's text (the interpreter's entry and bytecode
	 * handlers among them): their file offset and size, from .symtab's
	 * v8_Default_embedded_blob_code_ and _size_; 0 where the binary keeps no .symtab. */
	uint64_t builtins_offset, builtins_size;
};

/* The v8dbg_ name of a constant, without its prefix ("off_fp_function"). */
const char *v8_const__name(enum v8_const which);

/*
 * The layout of the node (or other V8 embedder) binary open at fd, from its .dynsym (and
 * its builtins' place from .symtab, when it has one).
 * 0: every constant read. -ENOENT: no v8dbg_ symbol at all (not V8). -ENODATA: some but
 * not all; *missing (when not NULL) is the first one absent. -ENOEXEC (not a 64-bit
 * little-endian x86-64 ELF, or a corrupt table), -errno.
 */
int v8_layout__read(int fd, struct v8_layout *l, enum v8_const *missing);

/* Reads len bytes of the process at addr: 0 or a negative errno. */
typedef int (*v8_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* Longest function name kept, with its NUL; longer ones are cut. */
#define V8_MAX_NAME 128u

/*
 * The name of the JSFunction at the tagged pointer fn, read through read: its
 * SharedFunctionInfo's name_or_scope_info, a String, or for a compiled function its
 * ScopeInfo's function-name slot: after the context locals' names and infos (a name
 * table's one slot when there are more than V8_SCOPE_INFO_INLINED_LOCALS), then the
 * saved class variable's slot if present. Those flag bits are not exported: the first of
 * those two slots that holds a one- or two-byte sequential String is taken.
 * 0 (name: at most V8_MAX_NAME - 1 bytes and a NUL, "" for an anonymous function),
 * -EINVAL (not a JSFunction, or a field not a heap object of the expected type), or
 * the reader's error. Only one-byte characters are kept; others become '?'.
 */
#define V8_SCOPE_INFO_INLINED_LOCALS 75
int v8_function__name(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t fn,
		      char *name);

/* Longest script name kept, with its NUL; longer ones are cut. */
#define V8_MAX_SCRIPT 256u

/*
 * The name of the script the JSFunction at fn was compiled from: its SharedFunctionInfo's
 * script_or_debug_info, when that is a Script, and the Script's name, a String (a file's
 * path for CommonJS, a file: URL for a module). 0 (script: at most V8_MAX_SCRIPT - 1
 * bytes and a NUL; "" when the function has no script or the script no name, as V8's
 * own builtins and eval'd code), -EINVAL (not a JSFunction), or the reader's error.
 */
int v8_function__script(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t fn,
			char *script);

#endif
