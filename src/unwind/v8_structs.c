// SPDX-License-Identifier: MIT
/*
 * V8's postmortem constants (v8.h) read from a binary's .dynsym: each v8dbg_ symbol is
 * an int whose value is in the file (.data), or 0 (.bss). Bounded: the table is read in
 * chunks and at most V8_DYNSYM_MAX entries, each name compared within V8_NAME_MAX.
 */
#include "unwind/v8.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"
#include "unwind/v8_heap.h"

#define V8_PREFIX "v8dbg_"
#define V8_NAME_MAX 96		  /* longest name read is 58 */
#define V8_DYNSYM_MAX (1u << 22) /* node 20 exports ~9,000 symbols */
#define V8_DYNSYM_CHUNK 256

static const char *const names[V8_CONST_COUNT] = {
	[V8_OFF_FP_FUNCTION] = "off_fp_function",
	[V8_OFF_FP_CONTEXT] = "off_fp_context",
	[V8_SMI_TAG] = "SmiTag",
	[V8_SMI_TAG_MASK] = "SmiTagMask",
	[V8_SMI_SHIFT] = "SmiShiftSize",
	[V8_HEAP_TAG] = "HeapObjectTag",
	[V8_HEAP_TAG_MASK] = "HeapObjectTagMask",
	[V8_TAGGED_SIZE] = "TaggedSize",
	[V8_HEAP_OBJECT_MAP] = "class_HeapObject__map__Map",
	[V8_MAP_INSTANCE_TYPE] = "class_Map__instance_type__uint16_t",
	[V8_JS_FUNCTION_TYPE] = "type_JSFunction__JS_FUNCTION_TYPE",
	[V8_JS_FUNCTION_SHARED] = "class_JSFunction__shared__SharedFunctionInfo",
	[V8_SFI_NAME] = "class_SharedFunctionInfo__name_or_scope_info__Object",
	[V8_SFI_SCRIPT] = "class_SharedFunctionInfo__script_or_debug_info__HeapObject",
	[V8_SCRIPT_NAME] = "class_Script__name__Object",
	[V8_SCRIPT_TYPE] = "type_Script__SCRIPT_TYPE",
	[V8_FIRST_NONSTRING_TYPE] = "FirstNonstringType",
	[V8_STRING_REPR_MASK] = "StringRepresentationMask",
	[V8_STRING_ENC_MASK] = "StringEncodingMask",
	[V8_SEQ_STRING_TAG] = "SeqStringTag",
	[V8_CONS_STRING_TAG] = "ConsStringTag",
	[V8_THIN_STRING_TAG] = "ThinStringTag",
	[V8_CONS_FIRST] = "class_ConsString__first__String",
	[V8_CONS_SECOND] = "class_ConsString__second__String",
	[V8_THIN_ACTUAL] = "class_ThinString__actual__String",
	[V8_ONE_BYTE_STRING_TAG] = "OneByteStringTag",
	[V8_STRING_LENGTH] = "class_String__length__int32_t",
	[V8_SEQ_ONE_BYTE_CHARS] = "class_SeqOneByteString__chars__char",
	[V8_SEQ_TWO_BYTE_CHARS] = "class_SeqTwoByteString__chars__char",
	[V8_SCOPE_INFO_TYPE] = "type_ScopeInfo__SCOPE_INFO_TYPE",
	[V8_SCOPE_INFO_NLOCALS] = "scopeinfo_idx_ncontextlocals",
	[V8_SCOPE_INFO_FIRST_VARS] = "scopeinfo_idx_first_vars",
	[V8_SCRIPT_SOURCE] = "class_Script__source__Object",
	[V8_SCRIPT_LINE_ENDS] = "class_Script__line_ends__Object",
	[V8_FIXED_ARRAY_TYPE] = "type_FixedArray__FIXED_ARRAY_TYPE",
	[V8_FIXED_ARRAY_LENGTH] = "class_FixedArrayBase__length__SMI",
	[V8_FIXED_ARRAY_DATA] = "class_FixedArray__data__uintptr_t",
	[V8_JS_FUNCTION_CODE_T] = "class_JSFunction__code__CodeT",
	[V8_JS_FUNCTION_CODE] = "class_JSFunction__code__Code",
	[V8_JS_FUNCTION_FEEDBACK_CELL] = "class_JSFunction__raw_feedback_cell__FeedbackCell",
	[V8_JS_FUNCTION_PROTOTYPE] = "class_JSFunction__prototype_or_initial_map__HeapObject",
	[V8_CODE_TYPE] = "type_Code__CODE_TYPE",
	[V8_CODE_POSITIONS] = "class_Code__source_position_table__ByteArray",
	[V8_CODE_DEOPT_DATA] = "class_Code__deoptimization_data__FixedArray",
	[V8_CODE_INSTRUCTION_START] = "class_Code__instruction_start__uintptr_t",
	[V8_CODE_INSTRUCTION_SIZE] = "class_Code__instruction_size__int",
	[V8_ISTREAM_TYPE] = "type_InstructionStream__INSTRUCTION_STREAM_TYPE",
	[V8_ISTREAM_START] = "class_InstructionStream__instruction_start__uintptr_t",
	[V8_BYTE_ARRAY_TYPE] = "type_ByteArray__BYTE_ARRAY_TYPE",
	[V8_DEOPT_INLINED_COUNT] = "DeoptimizationDataInlinedFunctionCountIndex",
	[V8_DEOPT_LITERALS] = "DeoptimizationDataLiteralArrayIndex",
	[V8_DEOPT_INLINING_POSITIONS] = "DeoptimizationDataInliningPositionsIndex",
	[V8_BYTECODE_ARRAY_TYPE] = "type_BytecodeArray__BYTECODE_ARRAY_TYPE",
	[V8_BYTECODE_ARRAY_DATA] = "class_BytecodeArray__data__uintptr_t",
};

const char *v8_const__name(enum v8_const which)
{
	return (unsigned)which < V8_CONST_COUNT ? names[which] : "?";
}

struct found {
	struct v8_layout *l;
	bool seen[V8_CONST_COUNT];
	bool any;
	uint64_t blob_value, size_value; /* .symtab's values of the builtins' two symbols */
	int blob_section, size_section;
	uint64_t code_fn, size_fn; /* .dynsym's two accessors of them (libnode: no .symtab) */
	uint64_t sizes_value, sizes_size; /* interpreter::Bytecodes::kBytecodeSizes */
};

#define V8_BYTECODE_SIZES_SYMBOL "_ZN2v88internal11interpreter9Bytecodes14kBytecodeSizesE"

/* V8's table of bytecodes' sizes, in .dynsym (libnode) or .symtab (node): a byte each,
 * three operand scales. */
static void one_sizes(const struct elf_reader *r, const struct elf_shdr *str,
		      const Elf64_Sym *s, struct found *f);

#define V8_BLOB_SYMBOL "v8_Default_embedded_blob_code_"
#define V8_BLOB_SIZE_SYMBOL "v8_Default_embedded_blob_code_size_"

/* The int a symbol names: from the file for a section with contents, 0 for .bss. */
static int value_of(const struct elf_reader *r, const Elf64_Sym *s, int32_t *v)
{
	const struct elf_shdr *sh;
	uint64_t off;

	if (s->st_shndx >= r->shnum)
		return -ENOEXEC;
	sh = &r->shdrs[s->st_shndx];
	if (s->st_value < sh->addr || s->st_value - sh->addr > sh->size ||
	    sh->size - (s->st_value - sh->addr) < sizeof(*v))
		return -ENOEXEC;
	if (sh->type == SHT_NOBITS) {
		*v = 0;
		return 0;
	}
	off = sh->offset + (s->st_value - sh->addr);
	if (elf_reader__pread(r, v, sizeof(*v), off) < 0)
		return -ENOEXEC;
	*v = (int32_t)elf_reader__u32(r, (uint32_t)*v);
	return 0;
}

/* The first size - 1 bytes of s's name in the string table str, NUL-terminated into
 * name (a longer name is cut: callers compare against names shorter than that).
 * 0, or -1 when the name is outside the table or cannot be read. */
static int symbol_name(const struct elf_reader *r, const struct elf_shdr *str,
		       const Elf64_Sym *s, char *name, size_t size)
{
	uint64_t off = s->st_name;
	size_t len = size - 1;

	if (off >= str->size)
		return -1;
	if (len > str->size - off)
		len = (size_t)(str->size - off);
	if (elf_reader__pread(r, name, len, str->offset + off) < 0)
		return -1;
	name[len] = '\0';
	return 0;
}

static void one(const struct elf_reader *r, const struct elf_shdr *str, const Elf64_Sym *s,
		struct found *f)
{
	char name[V8_NAME_MAX + 1];
	int32_t v;

	one_sizes(r, str, s, f);
	if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_shndx == SHN_UNDEF ||
	    s->st_size != sizeof(int32_t) || symbol_name(r, str, s, name, sizeof(name)))
		return;
	if (strncmp(name, V8_PREFIX, sizeof(V8_PREFIX) - 1) != 0)
		return;
	f->any = true;
	for (int i = 0; i < V8_CONST_COUNT; i++) {
		if (f->seen[i] || strcmp(name + sizeof(V8_PREFIX) - 1, names[i]) != 0)
			continue;
		if (value_of(r, s, &v) == 0) {
			f->l->c[i] = v;
			f->seen[i] = true;
		}
		return;
	}
}

static void one_sizes(const struct elf_reader *r, const struct elf_shdr *str,
		      const Elf64_Sym *s, struct found *f)
{
	char name[sizeof(V8_BYTECODE_SIZES_SYMBOL) + 1]; /* one more: a longer one differs */

	if (f->sizes_size || ELF64_ST_TYPE(s->st_info) != STT_OBJECT ||
	    s->st_shndx == SHN_UNDEF || s->st_size % 3 || s->st_size / 3 > V8_MAX_BYTECODES ||
	    s->st_size < 3 || symbol_name(r, str, s, name, sizeof(name)) ||
	    strcmp(name, V8_BYTECODE_SIZES_SYMBOL) != 0)
		return;
	f->sizes_value = s->st_value;
	f->sizes_size = s->st_size;
}

/* The embedded builtins' two symbols, where .symtab has them (and the bytecodes' sizes,
 * where .dynsym had not). */
static void one_builtins(const struct elf_reader *r, const struct elf_shdr *str,
			 const Elf64_Sym *s, struct found *f)
{
	char name[sizeof(V8_BLOB_SIZE_SYMBOL)];

	one_sizes(r, str, s, f);
	/* both are labels (no type, no size): a handful of node's 100,000 symbols, so
	 * only their names are read */
	if (ELF64_ST_TYPE(s->st_info) != STT_NOTYPE || s->st_size != 0 ||
	    s->st_shndx == SHN_UNDEF || s->st_shndx >= r->shnum ||
	    symbol_name(r, str, s, name, sizeof(name)))
		return;
	if (strncmp(name, V8_BLOB_SYMBOL, sizeof(V8_BLOB_SYMBOL) - 1) != 0)
		return;
	if (strcmp(name, V8_BLOB_SYMBOL) == 0) {
		f->blob_value = s->st_value;
		f->blob_section = s->st_shndx;
	} else if (strcmp(name, V8_BLOB_SIZE_SYMBOL) == 0) {
		f->size_value = s->st_value;
		f->size_section = s->st_shndx;
	}
}

/* The two exported functions that return the builtins' place and size (a shared libnode
 * keeps no .symtab, but exports them in .dynsym): tiny, so only small ones' names read. */
#define V8_BLOB_CODE_FN "_ZN2v88internal23DefaultEmbeddedBlobCodeEv"
#define V8_BLOB_SIZE_FN "_ZN2v88internal27DefaultEmbeddedBlobCodeSizeEv"

static void one_blob_function(const struct elf_reader *r, const struct elf_shdr *str,
			      const Elf64_Sym *s, struct found *f)
{
	char name[sizeof(V8_BLOB_SIZE_FN) + 1]; /* one more: a longer name is not equal */

	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
	    s->st_size < 6 || s->st_size > 16 || symbol_name(r, str, s, name, sizeof(name)))
		return;
	if (strcmp(name, V8_BLOB_CODE_FN) == 0)
		f->code_fn = s->st_value;
	else if (strcmp(name, V8_BLOB_SIZE_FN) == 0)
		f->size_fn = s->st_value;
}

typedef void (*symbol_fn)(const struct elf_reader *r, const struct elf_shdr *str,
			  const Elf64_Sym *s, struct found *f);

static int each_symbol(const struct elf_reader *r, int index, symbol_fn fn, struct found *f)
{
	const struct elf_shdr *sh = &r->shdrs[index], *str;
	Elf64_Sym *syms;
	uint64_t n, done = 0;
	int err = 0;

	if (sh->link >= r->shnum || (sh->entsize && sh->entsize != sizeof(Elf64_Sym)))
		return -ENOEXEC;
	str = &r->shdrs[sh->link];
	n = sh->size / sizeof(Elf64_Sym);
	if (n > V8_DYNSYM_MAX)
		return -ENOEXEC;
	syms = malloc(V8_DYNSYM_CHUNK * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	while (done < n && !err) {
		size_t k = n - done < V8_DYNSYM_CHUNK ? (size_t)(n - done) : V8_DYNSYM_CHUNK;

		err = elf_reader__pread(r, syms, k * sizeof(*syms), sh->offset + done * sizeof(*syms));
		for (size_t i = 0; i < k && !err; i++)
			fn(r, str, &syms[i], f);
		done += k;
	}
	free(syms);
	return err < 0 ? err : 0;
}

/* The builtins' file offset and size into l, from .symtab; left 0 where it has not both
 * symbols or they make no sense (the blob outside its section, a size past it). */
static void builtins_of(const struct elf_reader *r, struct found *f, struct v8_layout *l)
{
	const struct elf_shdr *text, *rodata;
	int index = elf_reader__find_section(r, SHT_SYMTAB);
	uint32_t size;

	if (index < 0 || each_symbol(r, index, one_builtins, f) || !f->blob_section ||
	    !f->size_section)
		return;
	text = &r->shdrs[f->blob_section];
	rodata = &r->shdrs[f->size_section];
	if (text->type == SHT_NOBITS || rodata->type == SHT_NOBITS ||
	    f->blob_value < text->addr || f->blob_value - text->addr >= text->size ||
	    rodata->size < 4 || f->size_value < rodata->addr ||
	    f->size_value - rodata->addr > rodata->size - 4 ||
	    elf_reader__pread(r, &size, sizeof(size),
			      rodata->offset + (f->size_value - rodata->addr)) < 0)
		return;
	size = elf_reader__u32(r, size);
	if (!size || size > text->size - (f->blob_value - text->addr))
		return;
	l->builtins_offset = text->offset + (f->blob_value - text->addr);
	l->builtins_size = size;
}

/* The file offset of [addr, addr + len) when one allocated section with contents holds it
 * (an executable one when exec): 0, or -1. */
static int file_offset(const struct elf_reader *r, uint64_t addr, uint64_t len, bool exec,
		       uint64_t *off)
{
	for (uint32_t i = 1; i < r->shnum; i++) {
		const struct elf_shdr *sh = &r->shdrs[i];

		if (sh->type == SHT_NOBITS || !(sh->flags & SHF_ALLOC) ||
		    (exec && !(sh->flags & SHF_EXECINSTR)) || addr < sh->addr ||
		    addr - sh->addr > sh->size || len > sh->size - (addr - sh->addr))
			continue;
		*off = sh->offset + (addr - sh->addr);
		return 0;
	}
	return -1;
}

/* The word of width bytes (4 or 8) the file holds at addr: 0, or -1. */
static int file_word(const struct elf_reader *r, uint64_t addr, int width, uint64_t *v)
{
	uint64_t off, w = 0;

	if (file_offset(r, addr, (uint64_t)width, false, &off) ||
	    elf_reader__pread(r, &w, (size_t)width, off) < 0)
		return -1;
	*v = width == 8 ? elf_reader__u64(r, w) : elf_reader__u32(r, (uint32_t)w);
	return 0;
}

/*
 * What the accessor at fn returns, read from its few instructions and the file: rax as
 * it is at its ret, after at most three of lea rax,[rip+d] (48 8d 05), mov rax,[rip+d]
 * (48 8b 05), mov eax,[rip+d] (8b 05), mov rax,[rax] (48 8b 00) and mov eax,[rax] (8b 00).
 * A pointer loaded from the file is its value there: a RELATIVE relocation's addend, as
 * GNU ld writes it in place (0: not known). 0, or -1 for anything else.
 */
static int accessor_value(const struct elf_reader *r, uint64_t fn, uint64_t *rax)
{
	uint8_t code[16];
	uint64_t off;
	size_t at = 0, len = sizeof(code);
	bool known = false;

	/* its first 16 bytes, fewer at its section's end (a ret takes one) */
	while (len > 1 && file_offset(r, fn, len, true, &off))
		len--;
	if (file_offset(r, fn, len, true, &off) || elf_reader__pread(r, code, len, off) < 0)
		return -1;
	for (int n = 0; n < 4; n++) {
		const uint8_t *c = code + at;
		size_t room = len - at;
		int32_t d;

		if (room >= 1 && c[0] == 0xc3)
			return known && *rax ? 0 : -1;
		if (room >= 7 && c[0] == 0x48 && (c[1] == 0x8d || c[1] == 0x8b) && c[2] == 0x05) {
			memcpy(&d, c + 3, 4);
			*rax = fn + at + 7 + (uint64_t)(int64_t)d;
			if (c[1] == 0x8b && file_word(r, *rax, 8, rax))
				return -1;
			at += 7;
		} else if (room >= 6 && c[0] == 0x8b && c[1] == 0x05) {
			memcpy(&d, c + 2, 4);
			if (file_word(r, fn + at + 6 + (uint64_t)(int64_t)d, 4, rax))
				return -1;
			at += 6;
		} else if (known && room >= 3 && c[0] == 0x48 && c[1] == 0x8b && c[2] == 0x00) {
			if (file_word(r, *rax, 8, rax))
				return -1;
			at += 3;
		} else if (known && room >= 2 && c[0] == 0x8b && c[1] == 0x00) {
			if (file_word(r, *rax, 4, rax))
				return -1;
			at += 2;
		} else {
			return -1;
		}
		known = true;
	}
	return -1;
}

/* The builtins' file offset and size into l from .dynsym's two accessors, where .symtab
 * gave none (Debian's libnode.so.108: stripped); left 0 where they are not both there,
 * not read as above, or the blob is not in an executable section of the file. */
static void builtins_from_accessors(const struct elf_reader *r, int dynsym, struct found *f,
				    struct v8_layout *l)
{
	uint64_t code, size, off;

	if (each_symbol(r, dynsym, one_blob_function, f) || !f->code_fn || !f->size_fn ||
	    accessor_value(r, f->code_fn, &code) || accessor_value(r, f->size_fn, &size) ||
	    size > UINT32_MAX || file_offset(r, code, size, true, &off))
		return;
	l->builtins_offset = off;
	l->builtins_size = size;
}

/* The bytecodes' sizes into l from the table one_sizes found (in a section with
 * contents); nbytecodes left 0 without it, or when a size is 0. */
static void bytecode_sizes_of(const struct elf_reader *r, const struct found *f,
			      struct v8_layout *l)
{
	uint64_t off, n = f->sizes_size / 3;

	if (!f->sizes_size || file_offset(r, f->sizes_value, f->sizes_size, false, &off))
		return;
	for (int scale = 0; scale < 3; scale++) {
		if (elf_reader__pread(r, l->bytecode_sizes[scale], (size_t)n, off + scale * n) < 0)
			return;
		for (uint64_t i = 0; i < n; i++)
			if (!l->bytecode_sizes[scale][i])
				return;
	}
	l->nbytecodes = (uint16_t)n;
}

/*
 * Where optimised code keeps what v8_code.c reads (l->code), from the constants or,
 * where a V8 does not export them, derived from those it does:
 * - the JSFunction's Code: exported by V8 10 (code, a CodeT); V8 11 exports neither it
 *   nor its offset, only its neighbours': the word between the feedback cell and the
 *   prototype (40, 48, 56 in Node 20), when they are one word apart.
 * - the Code's source position table and deoptimization data: V8 11 exports both; V8 10
 *   neither, but its instruction size: after the map come the relocation info, the
 *   deoptimization data, the position table and the data container, then the size (at
 *   40), so the two are the second and third words when the size is at the fifth.
 * - its instructions: V8 10's follow the Code's header (instruction_start, its size
 *   exported); V8 11's are in an InstructionStream the Code points to (found among its
 *   fields, v8_code.c), from its instruction_start.
 * Every object followed is checked for its type where it is read.
 */
static void code_layout_of(const struct found *f, struct v8_layout *l)
{
	struct v8_code_layout *c = &l->code;
	const int32_t *v = l->c;
	int32_t ts = v[V8_TAGGED_SIZE];

	memset(c, 0, sizeof(*c));
	c->function_code = c->positions = c->deopt = c->size = -1;
	if (ts != 8 || !l->lines)
		return; /* pointer compression: not read (nor are the names) */
	if (f->seen[V8_JS_FUNCTION_CODE_T])
		c->function_code = v[V8_JS_FUNCTION_CODE_T];
	else if (f->seen[V8_JS_FUNCTION_CODE])
		c->function_code = v[V8_JS_FUNCTION_CODE];
	else if (f->seen[V8_JS_FUNCTION_FEEDBACK_CELL] && f->seen[V8_JS_FUNCTION_PROTOTYPE] &&
		 v[V8_JS_FUNCTION_FEEDBACK_CELL] > 0 && v[V8_JS_FUNCTION_FEEDBACK_CELL] < 4096 &&
		 (int64_t)v[V8_JS_FUNCTION_PROTOTYPE] ==
			 (int64_t)v[V8_JS_FUNCTION_FEEDBACK_CELL] + 2 * ts)
		c->function_code = v[V8_JS_FUNCTION_FEEDBACK_CELL] + ts;
	if (f->seen[V8_CODE_POSITIONS] && f->seen[V8_CODE_DEOPT_DATA]) {
		c->positions = v[V8_CODE_POSITIONS];
		c->deopt = v[V8_CODE_DEOPT_DATA];
	} else if (f->seen[V8_CODE_INSTRUCTION_SIZE] && v[V8_CODE_INSTRUCTION_SIZE] == 5 * ts) {
		c->deopt = 2 * ts;
		c->positions = 3 * ts;
	}
	if (f->seen[V8_CODE_INSTRUCTION_START]) {
		c->start = v[V8_CODE_INSTRUCTION_START] >= 0 && v[V8_CODE_INSTRUCTION_START] < 4096
				   ? v[V8_CODE_INSTRUCTION_START]
				   : INT32_MIN;
		if (f->seen[V8_CODE_INSTRUCTION_SIZE])
			c->size = v[V8_CODE_INSTRUCTION_SIZE];
	} else if (f->seen[V8_ISTREAM_TYPE] && f->seen[V8_ISTREAM_START]) {
		c->start = -1;
	} else {
		c->start = INT32_MIN;
	}
	c->found = c->function_code > 0 && c->positions > 0 &&
		   c->deopt > 0 && c->start != INT32_MIN && f->seen[V8_CODE_TYPE] &&
		   f->seen[V8_BYTE_ARRAY_TYPE];
	c->inlining = c->found && f->seen[V8_DEOPT_INLINED_COUNT] && f->seen[V8_DEOPT_LITERALS] &&
		      f->seen[V8_DEOPT_INLINING_POSITIONS];
	/* baseline code: a BytecodeArray is a FixedArrayBase (map, length) followed by its
	 * constant pool, handler table and source position table (V8 10 and 11) */
	c->bytecode_positions = v[V8_FIXED_ARRAY_LENGTH] == ts ? 4 * ts : -1;
	c->baseline = c->found && l->nbytecodes && c->bytecode_positions > 0 &&
		      f->seen[V8_BYTECODE_ARRAY_TYPE] && f->seen[V8_BYTECODE_ARRAY_DATA] &&
		      v[V8_BYTECODE_ARRAY_DATA] > 0 && v[V8_BYTECODE_ARRAY_DATA] < 4096;
}

int v8_layout__read(int fd, struct v8_layout *l, enum v8_const *missing)
{
	struct found f = { .l = l };
	struct elf_reader r;
	int err, index;

	memset(l, 0, sizeof(*l));
	err = elf_reader__open(&r, fd);
	if (err)
		return err;
	if (!r.is64 || r.swap || r.machine != EM_X86_64) {
		err = -ENOEXEC;
		goto out_close;
	}
	index = elf_reader__find_section(&r, SHT_DYNSYM);
	err = index < 0 ? -ENOENT : each_symbol(&r, index, one, &f);
	if (err)
		goto out_close;
	if (!f.any) {
		err = -ENOENT;
		goto out_close;
	}
	for (int i = 0; i < V8_CONST_REQUIRED; i++) {
		if (!f.seen[i]) {
			if (missing)
				*missing = (enum v8_const)i;
			err = -ENODATA;
			break;
		}
	}
	l->lines = true;
	for (int i = V8_CONST_REQUIRED; i < V8_CONST_LINES_END; i++)
		l->lines &= f.seen[i];
	if (!err)
		builtins_of(&r, &f, l);
	if (!err && !l->builtins_size)
		builtins_from_accessors(&r, index, &f, l);
	if (!err)
		bytecode_sizes_of(&r, &f, l);
	code_layout_of(&f, l);
out_close:
	if (err)
		memset(l, 0, sizeof(*l));
	elf_reader__close(&r);
	return err;
}
