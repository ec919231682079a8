/* SPDX-License-Identifier: MIT */
/*
 * V8's layout, as V8 itself describes it for postmortem debuggers: the v8dbg_* symbols
 * every Node.js binary exports (Node 20: 531 of them, in the node executable; Debian's
 * Node 18, V8 10.2: 495, in the shared libnode.so.108 its node links). Each is an int: a frame offset
 * (v8dbg_off_fp_function), a tag (v8dbg_SmiTag), a class field's offset
 * (v8dbg_class_JSFunction__shared__SharedFunctionInfo) or an instance type.
 *
 * Unlike HotSpot's tables (jvm.h) these are plain initialised data: their values are in
 * the file, .data for the non-zero ones and .bss for those that are 0, so the binary
 * alone gives the layout; nothing of the process is read. A node whose binary does not
 * export one the walker needs is refused, the missing name said.
 *
 * The capture reads a node's layout here (src/capture/v8_procs.c) and names the
 * JSFunctions its kernel walk sends (bpf/v8_frames.h) with v8_function__describe, through
 * the kernel's page reader (docs/kernel.md, "JavaScript (V8)").
 */
#ifndef SLIDEOPS_UNWIND_V8_H
#define SLIDEOPS_UNWIND_V8_H

#include <stdbool.h>
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
	V8_CONST_REQUIRED,
	/* Lines: optional (without them, functions are named without a line). */
	V8_SCRIPT_SOURCE = V8_CONST_REQUIRED, /* class_Script__source__Object */
	V8_SCRIPT_LINE_ENDS,	 /* class_Script__line_ends__Object */
	V8_FIXED_ARRAY_TYPE,	 /* type_FixedArray__FIXED_ARRAY_TYPE */
	V8_FIXED_ARRAY_LENGTH,	 /* class_FixedArrayBase__length__SMI */
	V8_FIXED_ARRAY_DATA,	 /* class_FixedArray__data__uintptr_t */
	V8_CONST_LINES_END,
	/* Where a frame is in its function's optimised code (v8_code.c): optional, some
	 * exported by one V8 and not another (v8_layout's code offsets say what was
	 * found or derived). */
	V8_JS_FUNCTION_CODE_T = V8_CONST_LINES_END, /* class_JSFunction__code__CodeT (V8 10) */
	V8_JS_FUNCTION_CODE,	     /* class_JSFunction__code__Code */
	V8_JS_FUNCTION_FEEDBACK_CELL, /* class_JSFunction__raw_feedback_cell__FeedbackCell */
	V8_JS_FUNCTION_PROTOTYPE,    /* class_JSFunction__prototype_or_initial_map__HeapObject */
	V8_CODE_TYPE,		     /* type_Code__CODE_TYPE */
	V8_CODE_POSITIONS,	     /* class_Code__source_position_table__ByteArray (V8 11) */
	V8_CODE_DEOPT_DATA,	     /* class_Code__deoptimization_data__FixedArray (V8 11) */
	V8_CODE_INSTRUCTION_START,   /* class_Code__instruction_start__uintptr_t (V8 10) */
	V8_CODE_INSTRUCTION_SIZE,    /* class_Code__instruction_size__int (V8 10) */
	V8_ISTREAM_TYPE,	     /* type_InstructionStream__INSTRUCTION_STREAM_TYPE (V8 11) */
	V8_ISTREAM_START,	     /* class_InstructionStream__instruction_start__uintptr_t */
	V8_BYTE_ARRAY_TYPE,	     /* type_ByteArray__BYTE_ARRAY_TYPE */
	V8_DEOPT_INLINED_COUNT,	     /* DeoptimizationDataInlinedFunctionCountIndex */
	V8_DEOPT_LITERALS,	     /* DeoptimizationDataLiteralArrayIndex */
	V8_DEOPT_INLINING_POSITIONS, /* DeoptimizationDataInliningPositionsIndex */
	V8_BYTECODE_ARRAY_TYPE,	     /* type_BytecodeArray__BYTECODE_ARRAY_TYPE */
	V8_BYTECODE_ARRAY_DATA,	     /* class_BytecodeArray__data__uintptr_t: its bytecodes */
	V8_CONST_COUNT
};

/* Bytecodes V8 may have (an opcode is a byte). */
#define V8_MAX_BYTECODES 256

/* Where a function's optimised code keeps what v8_code.c reads: from the constants, or
 * derived from neighbouring ones where a V8 does not export them (docs/kernel.md). */
struct v8_code_layout {
	bool found;	   /* every offset below but the inlining's is known */
	bool inlining;	   /* and the deoptimization data's indices */
	int32_t function_code;   /* JSFunction: its Code */
	int32_t positions, deopt; /* Code: its source position table, deoptimization data */
	/* Code: where its instructions start, from the Code (V8 10: they follow its header)
	 * or, when -1, from its InstructionStream (V8 11: found among its fields) */
	int32_t start;
	int32_t size; /* Code: its instructions' size (int32), -1 when not exported */
	/* Baseline (Sparkplug) code: its bytecodes' sizes are known (v8_layout's) and a
	 * BytecodeArray's source position table is at bytecode_positions (derived: after
	 * the map, the length, the constant pool and the handler table). */
	bool baseline;
	int32_t bytecode_positions;
};

struct v8_layout {
	int32_t c[V8_CONST_COUNT];
	bool lines; /* every constant from V8_CONST_REQUIRED to V8_CONST_LINES_END was read */
	struct v8_code_layout code;
	/* The size in bytes of each bytecode (its opcode and operands) at each operand scale
	 * (1, 2 after a Wide prefix, 4 after an ExtraWide one), V8's own table
	 * (interpreter::Bytecodes::kBytecodeSizes, in .symtab or .dynsym); nbytecodes 0 where
	 * the binary has none. */
	uint8_t bytecode_sizes[3][V8_MAX_BYTECODES];
	uint16_t nbytecodes;
	/* The builtins embedded in the binary's text (the interpreter's entry and bytecode
	 * handlers among them): their file offset and size, from .symtab's
	 * v8_Default_embedded_blob_code_ and _size_; where there is no .symtab (Debian's
	 * libnode.so.108, stripped), from what .dynsym's two accessors of them,
	 * v8::internal::DefaultEmbeddedBlobCode() and ...CodeSize(), return (their few
	 * instructions read); 0 where neither gives them. */
	uint64_t builtins_offset, builtins_size;
};

/* The v8dbg_ name of a constant, without its prefix ("off_fp_function"). */
const char *v8_const__name(enum v8_const which);

/*
 * The layout of the node (or other V8 embedder) binary open at fd, a node executable or a
 * libnode, from its .dynsym (and its builtins' place from .symtab, or .dynsym's accessors).
 * 0: every constant V8_CONST_REQUIRED asks for read (the lines' too: l->lines). -ENOENT:
 * no v8dbg_ symbol at all (not V8). -ENODATA: some but not all; *missing (when not NULL)
 * is the first one absent. -ENOEXEC (not a 64-bit
 * little-endian x86-64 ELF, or a corrupt table), -errno.
 */
int v8_layout__read(int fd, struct v8_layout *l, enum v8_const *missing);

/* Reads len bytes of the process at addr: 0 or a negative errno. */
typedef int (*v8_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* Longest function name kept, with its NUL; longer ones are cut. */
#define V8_MAX_NAME 128u
/* Longest script name kept, with its NUL; longer ones are cut. */
#define V8_MAX_SCRIPT 256u
/* Past this many context locals a ScopeInfo keeps their names in a table (one slot). */
#define V8_SCOPE_INFO_INLINED_LOCALS 75

/* A JavaScript function as v8_function__describe reads it. */
struct v8_function {
	/* Its name (at most V8_MAX_NAME - 1 bytes; "" for an anonymous function). */
	char name[V8_MAX_NAME];
	/* Its script's name (at most V8_MAX_SCRIPT - 1 bytes): a file's path for CommonJS,
	 * a file: URL for a module; "" when it has no script or the script no name, as
	 * V8's own builtins and eval'd code. */
	char script[V8_MAX_SCRIPT];
	/* Where it starts in its script's source (V8's StartPosition, a character offset: a
	 * declared function's is its parameters' '('), and that Script (tagged), to find
	 * the line in (v8_script__line_ends); -1 and 0 when not found (a function never
	 * compiled, without a ScopeInfo; no script). */
	int32_t start;
	uint64_t script_at;
};

/*
 * The JSFunction at the tagged pointer fn, read through read, its SharedFunctionInfo and
 * ScopeInfo read once:
 * - its name: the SharedFunctionInfo's name_or_scope_info, a String, or for a compiled
 *   function its ScopeInfo's function-name slot: after the context locals' names and
 *   infos (a name table's one slot when there are more than V8_SCOPE_INFO_INLINED_LOCALS),
 *   then the saved class variable's slot if present. Those flag bits are not exported:
 *   the first of those two slots that holds a one- or two-byte sequential String is
 *   taken. A function without a name of its own (a function expression) gets the name
 *   V8 inferred from where it was put (Ledger.settle), two slots further, when there.
 * - its script: the SharedFunctionInfo's script_or_debug_info, when that is a Script, and
 *   the Script's name, a String.
 * - its start: from its ScopeInfo's position info, the two Smis (start, end) after the
 *   function's name slot, its context slot and the inferred name when that is there
 *   (Node 20: words 7 and 8 of a function without context locals).
 * 0 (the name read; the script and start when they could be), -EINVAL (not a JSFunction,
 * or a field not a heap object of the expected type), or the reader's error (of the
 * name). Only one-byte characters are kept; others, and control characters, become '?'.
 */
int v8_function__describe(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t fn,
			  struct v8_function *out);

/*
 * The function of SharedFunctionInfo shared, as v8_function__describe reads a JSFunction's
 * (its name, script and start); its script_at is its Script's even when its start is not
 * known. 0, -EINVAL (not a SharedFunctionInfo's fields), or the reader's error.
 */
int v8_shared__describe(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t shared,
			struct v8_function *out);

/* The most functions one place in optimised code is read as: its own and those inlined
 * into it, innermost first. */
#define V8_MAX_INLINED 8
/* The most of a function's optimised code and of its source position table read. */
#define V8_MAX_CODE_SIZE (1u << 20)
#define V8_MAX_POSITIONS (1u << 16)

/* One function at a place in optimised code: its SharedFunctionInfo (tagged) and the
 * character offset in its script the place is at (-1: not known). */
struct v8_position {
	uint64_t shared;
	int32_t offset;
};

/*
 * Where the frame of JSFunction fn (tagged) at pc was, from its optimised code
 * (TurboFan's, V8's own source position table: docs/kernel.md): out[0] the innermost
 * function inlined at pc, out[*n - 1] fn's own, each at its place in its script; from its
 * baseline (Sparkplug) code, fn's own place alone (the bytecode's, v8_bytecode__at_pc). leaf:
 * pc is the interrupted instruction, else a return address (its call is looked up). 0 and
 * *n >= 1; -ENOENT (the layout does not say how, fn's code is not optimised code holding
 * pc, or its table has no entry at or before it), -EINVAL (something read is not what it
 * must be), or the reader's error. A chain of inlined functions not read leaves fn's own
 * place alone (*n == 1).
 */
int v8_code__positions(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t fn,
		       uint64_t pc, bool leaf, struct v8_position *out, unsigned max, unsigned *n);

/* V8's operand-scale prefixes: the bytecode after one has its operands 2 or 4 bytes
 * wide (interpreter::Bytecode::kWide, kExtraWide: the first two opcodes). */
#define V8_BYTECODE_WIDE 0
#define V8_BYTECODE_EXTRA_WIDE 1

/*
 * The bytecode (its offset) whose baseline code holds code offset pc_offset (a return
 * address's; a leaf's + 1): offsets is the Code's bytecode offset table (noffsets bytes:
 * the prologue's length, then each bytecode's code's, unsigned, 7 bits a byte), bytecodes
 * the BytecodeArray's bytes, walked with l's bytecode sizes. 0, -ENOENT (in the prologue,
 * or past the table), -EINVAL (malformed, an opcode l does not know).
 */
int v8_bytecode__at_pc(const struct v8_layout *l, const uint8_t *offsets, size_t noffsets,
		       const uint8_t *bytecodes, size_t nbytecodes, uint32_t pc_offset,
		       int32_t *bytecode);

/*
 * V8's source position table (len bytes, from a ByteArray): the SourcePosition (V8's
 * bits: not external, script offset + 1 at bit 1, inlining id + 1 at bit 31) of the last
 * entry at or before code offset off. 0, -ENOENT (none), -EINVAL (malformed: a number
 * running off the table, code offsets going back).
 */
int v8_positions__find(const uint8_t *table, size_t len, int32_t off, uint64_t *pos);

/* The most of a script's source read for its lines (characters), and of its line ends
 * kept: past them a function has no line. */
#define V8_MAX_SOURCE (1u << 20)
#define V8_MAX_LINE_ENDS (1u << 18)

/* A script's line ends: where each of its lines ends (a '\n's position, the source's
 * length last when V8 made them), ascending; positions below known are covered. */
struct v8_line_ends {
	int32_t *ends;
	uint32_t n;
	int32_t known;
};

/*
 * The line ends of the Script at script: V8's own (Script::line_ends, a FixedArray of
 * Smis) when it has computed them (an error's stack trace, the inspector), otherwise
 * counted in its source, a sequential (or thin) one- or two-byte string, at most
 * V8_MAX_SOURCE characters of it (an external string, as node's own modules' sources are,
 * is not read). 0 and out filled (free it with v8_line_ends__free), -ENOENT (neither
 * readable, or the layout has not the constants), -ENOMEM, or the reader's error.
 */
int v8_script__line_ends(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t script,
			 struct v8_line_ends *out);
/* The line (from 1) of position pos, or 0 when outside what e covers. */
int32_t v8_line_ends__line(const struct v8_line_ends *e, int32_t pos);
void v8_line_ends__free(struct v8_line_ends *e);

#endif
