/* SPDX-License-Identifier: MIT */
/*
 * HotSpot's layout, as the JVM itself describes it: the tables the Serviceability Agent
 * reads (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants), exported by every
 * libjvm.so. They name each field the JVM's debuggers need ("Method", "_constMethod")
 * with its offset, each type with its size, and the static fields (CodeCache::_heaps)
 * with their addresses; a walker built on them works for every version whose tables
 * name what it reads, and refuses, saying which field is missing, where they do not.
 *
 * Two steps, as for CPython (python.h):
 *
 *   1. Per binary: jvm_binary__read finds the gHotSpotVM* symbols of a libjvm.so in its
 *      .dynsym (their link-time addresses; nothing of the process is read).
 *   2. Per process: jvm_layout__read walks the tables through a reader of the process's
 *      memory at those addresses plus the mapping's bias. The tables must be read from
 *      the running JVM: in the file (Debian's OpenJDK 17, measured 2026-12-05) the
 *      names and static addresses are there, relocated, but every offset and size is 0
 *      and the entry strides and field offsets live in .bss: the JVM's C++ static
 *      initialisers fill them. The reader is the capture's (a BPF copy of the pages, the
 *      same reads the frame walker makes); tests give it /proc/PID/mem of their own child.
 *
 * Everything read is untrusted: a process may write anything at those addresses. Every
 * walk is bounded (entries, strides, string lengths), every offset checked against the
 * size of its type where the tables give one, and what is refused says why
 * (enum jvm_refusal, each a message of messages.def).
 */
#ifndef SLIDEOPS_UNWIND_JVM_H
#define SLIDEOPS_UNWIND_JVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds of the walk over a table. OpenJDK 17 has 788 field entries, ~850 types and
 * ~600 int constants; 21 and 25 a few more. */
#define JVM_MAX_ENTRIES 16384u
#define JVM_MAX_STRIDE 512u
#define JVM_MAX_NAME 128u /* longest type or field name compared, with its NUL */
/* An offset or size the walker could use: HotSpot's structures are a few hundred bytes;
 * a field past this is not a layout we believe. */
#define JVM_MAX_OFFSET 4096u

/* The exported symbols of one libjvm.so (ELF virtual addresses, 0 when absent). */
enum jvm_symbol {
	JVM_SYM_STRUCTS,	  /* gHotSpotVMStructs: VMStructEntry * */
	JVM_SYM_STRUCT_STRIDE,	  /* gHotSpotVMStructEntryArrayStride */
	JVM_SYM_STRUCT_TYPE,	  /* ...EntryTypeNameOffset */
	JVM_SYM_STRUCT_FIELD,	  /* ...EntryFieldNameOffset */
	JVM_SYM_STRUCT_STATIC,	  /* ...EntryIsStaticOffset */
	JVM_SYM_STRUCT_OFFSET,	  /* ...EntryOffsetOffset */
	JVM_SYM_STRUCT_ADDRESS,	  /* ...EntryAddressOffset */
	JVM_SYM_TYPES,		  /* gHotSpotVMTypes */
	JVM_SYM_TYPE_STRIDE,	  /* gHotSpotVMTypeEntryArrayStride */
	JVM_SYM_TYPE_NAME,	  /* ...TypeNameOffset */
	JVM_SYM_TYPE_SIZE,	  /* ...SizeOffset */
	JVM_SYM_INTS,		  /* gHotSpotVMIntConstants */
	JVM_SYM_INT_STRIDE,	  /* gHotSpotVMIntConstantEntryArrayStride */
	JVM_SYM_INT_NAME,	  /* ...NameOffset */
	JVM_SYM_INT_VALUE,	  /* ...ValueOffset */
	JVM_SYM_COUNT
};

struct jvm_binary {
	uint64_t sym[JVM_SYM_COUNT];
};

/* Why a JVM keeps its single [Java] frame. Each has a message (messages.def, JVM_*). */
enum jvm_refusal {
	JVM_OK,
	JVM_NO_TABLES,	     /* libjvm.so exports no gHotSpotVM* tables (stripped, not HotSpot) */
	JVM_UNREADABLE,	     /* the process's memory at the tables could not be read */
	JVM_BAD_TABLE,	     /* a table makes no sense: stride, offsets, no end within bounds */
	JVM_MISSING_FIELD,   /* a field or constant the walker reads is not in the tables */
	JVM_BAD_OFFSET,	     /* a field lies outside its type, or past JVM_MAX_OFFSET */
};

/*
 * What the frame walker reads, each from the tables. Offsets are of a field in its
 * structure; addresses are the process's (the mapping's bias applied); sizes of types.
 */
struct jvm_layout {
	/* where the code cache is: statics */
	uint64_t code_cache_heaps;	/* CodeCache::_heaps, a GrowableArray<CodeHeap*> * */
	uint64_t code_cache_low;	/* CodeCache::_low_bound, an address */
	uint64_t code_cache_high;	/* CodeCache::_high_bound */
	uint32_t growable_len;		/* GrowableArrayBase::_len */
	uint32_t growable_data;		/* GrowableArray<int>::_data */
	uint32_t heap_memory;		/* CodeHeap::_memory, a VirtualSpace */
	uint32_t heap_segmap;		/* CodeHeap::_segmap, a VirtualSpace */
	uint32_t heap_log2_segment;	/* CodeHeap::_log2_segment_size */
	uint32_t vspace_low;		/* VirtualSpace::_low */
	uint32_t vspace_high;		/* VirtualSpace::_high */
	/* what a PC in it belongs to */
	uint32_t blob_name;		/* CodeBlob::_name */
	uint32_t blob_size;		/* CodeBlob::_size */
	uint32_t blob_frame_size;	/* CodeBlob::_frame_size, in words */
	uint32_t blob_code_begin;	/* CodeBlob::_code_begin */
	uint32_t blob_code_end;		/* CodeBlob::_code_end */
	uint32_t blob_frame_complete;	/* CodeBlob::_frame_complete_offset */
	uint32_t heap_block;		/* sizeof(HeapBlock): a block's header */
	uint32_t compiled_method;	/* CompiledMethod::_method */
	/* a Method's name */
	uint32_t method_const;		/* Method::_constMethod */
	uint32_t const_method_constants;/* ConstMethod::_constants */
	uint32_t const_method_name;	/* ConstMethod::_name_index */
	uint32_t const_method_signature;/* ConstMethod::_signature_index */
	uint32_t pool_holder;		/* ConstantPool::_pool_holder */
	uint32_t pool_size;		/* sizeof(ConstantPool): its slots follow it */
	uint32_t pool_length;		/* ConstantPool::_length, its slots */
	uint32_t klass_name;		/* Klass::_name */
	uint32_t symbol_length;		/* Symbol::_length */
	uint32_t symbol_body;		/* Symbol::_body */
	/* a Method's source file and first line: each 0 where the tables do not give it
	 * (or give it out of place): the Method is named all the same, without them */
	uint32_t pool_source_file;	/* ConstantPool::_source_file_name_index */
	uint32_t const_method_size;	/* sizeof(ConstMethod): its bytecodes follow it */
	uint32_t const_method_words;	/* ConstMethod::_constMethod_size, in words */
	uint32_t const_method_flags;	/* ConstMethod::_flags (u2) */
	uint32_t const_method_code_size;/* ConstMethod::_code_size (u2) */
	uint32_t has_line_table;	/* ConstMethod::_has_linenumber_table, a bit of _flags */
	/* the scopes of compiled code: which methods are inlined at a PC, at which bytecode
	 * (each 0, and has_scopes false, where the tables do not give them: a compiled
	 * frame is then its nmethod's method alone) */
	bool has_scopes;
	uint32_t nmethod_verified_entry;/* nmethod::_verified_entry_point, an address; 0:
					 * not given (a sample before it stops the walk) */
	uint32_t nmethod_metadata;	/* nmethod::_metadata_offset (int), from the nmethod */
	uint32_t nmethod_scopes_pcs;	/* nmethod::_scopes_pcs_offset (int): the PcDescs */
	uint32_t nmethod_dependencies;	/* nmethod::_dependencies_offset (int): their end */
	uint32_t scopes_data;		/* CompiledMethod::_scopes_data_begin, an address */
	uint32_t pc_desc_size;		/* sizeof(PcDesc) */
	uint32_t pc_desc_pc;		/* PcDesc::_pc_offset (int), from code_begin */
	uint32_t pc_desc_scope;		/* PcDesc::_scope_decode_offset (int) */
	/* the interpreter's frame, in words from rbp (negative: below it) */
	int32_t interp_method;		/* frame::interpreter_frame_method_offset, or derived
					 * from last_sp where a JVM (17) does not export it */
	int32_t interp_bcp;		/* frame::interpreter_frame_bcp_offset, or derived as
					 * interp_method is; 0: not known */
	int32_t interp_sender_sp;	/* frame::interpreter_frame_sender_sp_offset */
	int32_t interp_last_sp;		/* frame::interpreter_frame_last_sp_offset */
	/* the first field the tables did not give (a refusal), "" when none */
	char missing[JVM_MAX_NAME];
	unsigned entries;		/* field entries walked, for the record */
};

/* Whether a mapped file is HotSpot's library by its name (libjvm.so). */
bool jvm_binary__is_candidate(const char *path);

/* Finds the exported tables of the ELF file fd (.dynsym). 0 (then b->sym[] holds what
 * was found), -ENOENT when it exports no gHotSpotVMStructs (b is cleared), -ENOEXEC for a
 * file that is not an x86-64 ELF file, or -errno. */
int jvm_binary__read(int fd, struct jvm_binary *b);

/* Reads len bytes of the process at addr into buf: 0, or -errno (-EFAULT: not mapped). */
typedef int (*jvm_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* Walks the tables of b in a process where libjvm.so is loaded at bias (the address of
 * ELF virtual address 0). JVM_OK and out filled, or the refusal (out->missing names the
 * field for JVM_MISSING_FIELD and JVM_BAD_OFFSET). */
enum jvm_refusal jvm_layout__read(const struct jvm_binary *b, uint64_t bias, jvm_read_fn read,
				  void *ctx, struct jvm_layout *out);

/* The longest class or method name kept (a Symbol's bytes); longer ones are cut. */
#define JVM_MAX_SYMBOL 256u
/* "com.acme.Invoices.computeTotals": class, '.', method, NUL. */
#define JVM_MAX_METHOD_NAME (2 * JVM_MAX_SYMBOL + 2)

/*
 * The name of the Method at method in a process laid out as l: its class's name (from
 * the constant pool's holder, '/' made '.') and its own (the pool's slot at the
 * method's name index), as "com.acme.Invoices.computeTotals" in buf (at least
 * JVM_MAX_METHOD_NAME bytes). Every pointer read is checked for what it must be (not
 * 0, 8-byte aligned), every index against the pool's length, every Symbol's length
 * against JVM_MAX_SYMBOL (cut there) and its bytes for NULs. 0, -EFAULT (a read
 * failed), or -EINVAL (what was read is not a Method).
 */
int jvm_method__name(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		     char *buf);

/* "com/acme/Invoices.java": the class's package as a path, then its source file. */
#define JVM_MAX_SOURCE_FILE (2 * JVM_MAX_SYMBOL + 2)
/* The most of a compressed line number table read: a method's is a few bytes a line. */
#define JVM_MAX_LINE_TABLE 16384u

/*
 * Where the Method at method comes from: its class's source file, as the class file
 * names it (its SourceFile attribute, ConstantPool::_source_file_name_index: a
 * "Invoices.java" without directory), put under the class's package as a path
 * ("com/acme/Invoices.java", the path a source tree keeps it at), into file (at least
 * JVM_MAX_SOURCE_FILE bytes); and the line of bytecode index bci from its compressed
 * line number table (after its bytecodes, ConstMethod's _has_linenumber_table flag
 * set), as HotSpot's Method::line_number_from_bci finds it; with bci < 0 (not known)
 * the method's first line, the lowest of its table. *first gets that first line (its
 * first statement's, javac giving the declaration none) when first is not NULL. Each
 * is left empty ("", 0) where it cannot be read: the layout without the fields, a class
 * without a SourceFile attribute, a method without a line table (a native or abstract
 * one, a class compiled with -g:none), a table without its end within
 * JVM_MAX_LINE_TABLE bytes or its ConstMethod. 0 (something or nothing found), or what
 * reading the Method itself met (-EFAULT, -EINVAL, as jvm_method__name).
 */
int jvm_method__source(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		       int32_t bci, char *file, int32_t *line, int32_t *first);

/*
 * The bytecode index of an interpreted frame of method whose bytecode pointer's low 12
 * bits are bcp_low (the sample's 'I' word, bpf/jvm_records.h): the offset from where
 * the method's bytecodes start (after its ConstMethod), modulo 4096, which is the index
 * itself for a method of at most 4096 bytes of code. 0 and *bci set; -ERANGE for a
 * longer method (the index is not known), -EINVAL for an index past its code, -EFAULT.
 */
int jvm_method__bci(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		    uint32_t bcp_low, int32_t *bci);

/*
 * The lowest line of a compressed line number table (HotSpot's
 * CompressedLineNumberReadStream: pairs of (bci, line) deltas from (0, 0), one byte
 * (5 bits of bci, 3 of line) or 0xFF and two zigzag UNSIGNED5 ints; 0 ends it) of n
 * bytes at b. 0 and *first set; -ENOENT (no end within n, or no line), -EINVAL (a bci or
 * line no class file has).
 */
int jvm_line_table__first(const uint8_t *b, size_t n, int32_t *first);

/* The line of bytecode index bci in the same table (Method::line_number_from_bci: the
 * pair at bci, or the line of the nearest pair before it); the first line when bci < 0.
 * 0 and *line set; -ENOENT (no pair at or before bci, no end within n), -EINVAL. */
int jvm_line_table__at(const uint8_t *b, size_t n, int32_t bci, int32_t *line);

/* An int of HotSpot's UNSIGNED5 coding at b[*at] (CompressedReadStream::read_int, the
 * coding of line tables and scope data), *at moved past it; -1 when n ends first. */
int jvm_read_unsigned5(const uint8_t *b, size_t n, size_t *at, uint32_t *v);

/* ---- compiled code: the methods inlined at a PC (jvm_nmethod.c) ---- */

/* The deepest inlining read at one PC; C2 inlines 9 levels (MaxInlineLevel 15 in 17). */
#define JVM_MAX_SCOPES 16u

/* One scope of a compiled PC: the method and the bytecode index it is at (< 0: not
 * known, the method's entry). */
struct jvm_scope {
	uint64_t method;
	int32_t bci;
};

/*
 * The scopes of the PC pc_offset bytes into the nmethod (CodeBlob) at blob: innermost
 * first (the method inlined deepest, then the one it was inlined into, to the nmethod's
 * own method), as HotSpot's ScopeDesc chain from the PcDesc at or after that PC
 * (nmethod::pc_desc_near: a return address's own, a sampled PC's next call or
 * safepoint). At most max into out; *n set. Every read is checked: the blob must be
 * an nmethod whose code holds the PC, the PcDescs and scope data inside it, each
 * sender before the scope that names it. Without the layout's scopes (has_scopes
 * false), or where the PC has none, the nmethod's method alone with bci -1. 0, -EFAULT
 * (a read failed), -EINVAL (what was read is not an nmethod holding the PC).
 */
int jvm_nmethod__scopes(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t blob,
			uint64_t pc_offset, struct jvm_scope *out, unsigned max, unsigned *n);

/*
 * The struct jvm_proc the frame walker (bpf/jvm_walk.h) is handed: the layout's offsets
 * and the code heaps, read through the reader (CodeCache::_heaps, each heap's committed
 * memory and segment map), at most JVM_MAX_HEAPS. 0, -EFAULT, or -EINVAL (no heap, or
 * one that makes no sense).
 */
struct jvm_proc;
int jvm_proc__init(const struct jvm_layout *l, jvm_read_fn read, void *ctx, struct jvm_proc *p);

/* The message of a refusal (an enum msg_id of util/messages.h: MSG_JVM_*), for the
 * profile's note on that process; JVM_MISSING_FIELD and JVM_BAD_OFFSET take the
 * layout's missing as their %s. */
int jvm_refusal__msg(enum jvm_refusal why);

#endif
