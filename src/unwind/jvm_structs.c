// SPDX-License-Identifier: MIT
/*
 * HotSpot's own description of its structures (jvm.h): the exported gHotSpotVM* symbols
 * of a libjvm.so, then the tables they point to, walked in the running JVM through a
 * reader of its memory. Called once per JVM process, off the sampling path: what matters
 * is that a process which writes anything at those addresses gets a refusal, never a
 * walk without end or an offset the frame walker would trust.
 */
#include "unwind/jvm.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"
#include "util/messages.h"

static const char *const symbol_names[JVM_SYM_COUNT] = {
	[JVM_SYM_STRUCTS] = "gHotSpotVMStructs",
	[JVM_SYM_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[JVM_SYM_STRUCT_TYPE] = "gHotSpotVMStructEntryTypeNameOffset",
	[JVM_SYM_STRUCT_FIELD] = "gHotSpotVMStructEntryFieldNameOffset",
	[JVM_SYM_STRUCT_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[JVM_SYM_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[JVM_SYM_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[JVM_SYM_TYPES] = "gHotSpotVMTypes",
	[JVM_SYM_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[JVM_SYM_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[JVM_SYM_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[JVM_SYM_INTS] = "gHotSpotVMIntConstants",
	[JVM_SYM_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[JVM_SYM_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[JVM_SYM_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
};

#define SYM_PREFIX "gHotSpotVM"
#define SYM_NAME_MAX 48	    /* longest name above is 40 */
#define DYNSYM_MAX (1u << 20) /* libjvm.so 17 exports ~500 */
#define DYNSYM_CHUNK 256

bool jvm_binary__is_candidate(const char *path)
{
	const char *name = path ? strrchr(path, '/') : NULL;

	name = name ? name + 1 : path;
	return name && strcmp(name, "libjvm.so") == 0;
}

/* The symbol whose name is the NUL-terminated buf, or -1. */
static int symbol_of(const char *buf)
{
	for (int i = 0; i < JVM_SYM_COUNT; i++)
		if (strcmp(buf, symbol_names[i]) == 0)
			return i;
	return -1;
}

static int each_dynsym(const struct elf_reader *r, int index, struct jvm_binary *b)
{
	const struct elf_shdr *sh = &r->shdrs[index], *str;
	Elf64_Sym *syms;
	uint64_t n, done = 0;
	int err = 0;

	if (sh->link >= r->shnum || (sh->entsize && sh->entsize != sizeof(Elf64_Sym)))
		return -ENOEXEC;
	str = &r->shdrs[sh->link];
	n = sh->size / sizeof(Elf64_Sym);
	if (n > DYNSYM_MAX)
		return -ENOEXEC;
	syms = malloc(DYNSYM_CHUNK * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	while (done < n && !err) {
		size_t k = n - done < DYNSYM_CHUNK ? (size_t)(n - done) : DYNSYM_CHUNK;

		err = elf_reader__pread(r, syms, k * sizeof(*syms), sh->offset + done * sizeof(*syms));
		for (size_t i = 0; i < k && !err; i++) {
			char name[SYM_NAME_MAX + 1];
			uint64_t off = syms[i].st_name;
			size_t len = SYM_NAME_MAX;
			int which;

			if (ELF64_ST_TYPE(syms[i].st_info) != STT_OBJECT ||
			    syms[i].st_shndx == SHN_UNDEF || syms[i].st_size != 8 ||
			    off >= str->size)
				continue;
			if (len > str->size - off)
				len = (size_t)(str->size - off);
			if (elf_reader__pread(r, name, len, str->offset + off) < 0)
				continue;
			name[len] = '\0';
			if (strncmp(name, SYM_PREFIX, sizeof(SYM_PREFIX) - 1) != 0)
				continue;
			which = symbol_of(name);
			if (which >= 0)
				b->sym[which] = syms[i].st_value;
		}
		done += k;
	}
	free(syms);
	return err;
}

int jvm_binary__read(int fd, struct jvm_binary *b)
{
	struct elf_reader r;
	int err, index;

	memset(b, 0, sizeof(*b));
	err = elf_reader__open(&r, fd);
	if (err)
		return err;
	if (!r.is64 || r.swap || r.machine != EM_X86_64) {
		err = -ENOEXEC;
		goto out_close;
	}
	index = elf_reader__find_section(&r, SHT_DYNSYM);
	err = index < 0 ? -ENOENT : each_dynsym(&r, index, b);
	if (!err && !b->sym[JVM_SYM_STRUCTS])
		err = -ENOENT;
	if (err == -ENOENT)
		memset(b, 0, sizeof(*b));
out_close:
	elf_reader__close(&r);
	return err;
}

/* ---- the tables in the process ---- */

struct walk {
	uint64_t bias;
	jvm_read_fn read;
	void *ctx;
};

static int read_u64(const struct walk *w, uint64_t addr, uint64_t *v)
{
	return w->read(w->ctx, addr, v, sizeof(*v));
}

/* A string of at most JVM_MAX_NAME - 1 bytes at addr: 0, -ENAMETOOLONG (no NUL within
 * the bound: compared as a name it matches nothing), or the reader's error. Read in
 * small pieces, so a name at the end of a mapping is not lost to the next page. */
static int read_name(const struct walk *w, uint64_t addr, char *buf)
{
	size_t got = 0;

	while (got < JVM_MAX_NAME) {
		size_t k = 16 - (size_t)((addr + got) & 15);
		int err;

		if (k > JVM_MAX_NAME - got)
			k = JVM_MAX_NAME - got;
		err = w->read(w->ctx, addr + got, buf + got, k);
		if (err)
			return err;
		if (memchr(buf + got, '\0', k))
			return 0;
		got += k;
	}
	buf[JVM_MAX_NAME - 1] = '\0';
	return -ENAMETOOLONG;
}

/* A table's address, stride and the offsets of its entries' fields, each read from the
 * exported variables; every offset must leave room for an 8-byte field in the stride. */
struct table {
	uint64_t base, stride;
	uint64_t off[5];
	unsigned noff;
};

static enum jvm_refusal table__read(const struct walk *w, const struct jvm_binary *b,
				    enum jvm_symbol base, enum jvm_symbol stride,
				    const enum jvm_symbol *offs, unsigned noff, struct table *t)
{
	if (!b->sym[base] || !b->sym[stride])
		return JVM_NO_TABLES;
	for (unsigned i = 0; i < noff; i++)
		if (!b->sym[offs[i]])
			return JVM_NO_TABLES;
	if (read_u64(w, w->bias + b->sym[base], &t->base) ||
	    read_u64(w, w->bias + b->sym[stride], &t->stride))
		return JVM_UNREADABLE;
	if (!t->base || t->stride < 16 || t->stride > JVM_MAX_STRIDE || (t->stride & 7))
		return JVM_BAD_TABLE;
	t->noff = noff;
	for (unsigned i = 0; i < noff; i++) {
		if (read_u64(w, w->bias + b->sym[offs[i]], &t->off[i]))
			return JVM_UNREADABLE;
		if (t->off[i] > t->stride - 8 || (t->off[i] & 3))
			return JVM_BAD_TABLE;
	}
	/* the last entry's end must not wrap */
	if (t->base > UINT64_MAX - (uint64_t)JVM_MAX_ENTRIES * t->stride)
		return JVM_BAD_TABLE;
	return JVM_OK;
}

/* ---- what the walker needs, by name ---- */

enum want_kind { WANT_FIELD, WANT_STATIC, WANT_SIZE, WANT_INT };

struct want {
	enum want_kind kind;
	const char *type;  /* type, or the constant's whole name */
	const char *field; /* NULL for sizes and constants */
	size_t at;	   /* offsetof(struct jvm_layout, ...) */
	bool found;
	bool optional;	   /* absent: derived (check_layout) or 0 */
	bool soft;	   /* absent or out of place: 0, and only a line or file is lost */
};

#define F(t, f, m) { WANT_FIELD, t, f, offsetof(struct jvm_layout, m), false }
#define S(t, f, m) { WANT_STATIC, t, f, offsetof(struct jvm_layout, m), false }
#define Z(t, m) { WANT_SIZE, t, NULL, offsetof(struct jvm_layout, m), false }
#define I(n, m) { WANT_INT, n, NULL, offsetof(struct jvm_layout, m), false }
#define OPT_I(n, m) { WANT_INT, n, NULL, offsetof(struct jvm_layout, m), false, true }
#define SOFT_F(t, f, m) { WANT_FIELD, t, f, offsetof(struct jvm_layout, m), false, true, true }
#define SOFT_Z(t, m) { WANT_SIZE, t, NULL, offsetof(struct jvm_layout, m), false, true, true }
#define SOFT_I(n, m) { WANT_INT, n, NULL, offsetof(struct jvm_layout, m), false, true, true }

static const struct want wants_template[] = {
	S("CodeCache", "_heaps", code_cache_heaps),
	S("CodeCache", "_low_bound", code_cache_low),
	S("CodeCache", "_high_bound", code_cache_high),
	F("GrowableArrayBase", "_len", growable_len),
	F("GrowableArray<int>", "_data", growable_data),
	F("CodeHeap", "_memory", heap_memory),
	F("CodeHeap", "_segmap", heap_segmap),
	F("CodeHeap", "_log2_segment_size", heap_log2_segment),
	F("VirtualSpace", "_low", vspace_low),
	F("VirtualSpace", "_high", vspace_high),
	F("CodeBlob", "_name", blob_name),
	F("CodeBlob", "_size", blob_size),
	F("CodeBlob", "_frame_size", blob_frame_size),
	F("CodeBlob", "_code_begin", blob_code_begin),
	F("CodeBlob", "_code_end", blob_code_end),
	F("CodeBlob", "_frame_complete_offset", blob_frame_complete),
	Z("HeapBlock", heap_block),
	F("CompiledMethod", "_method", compiled_method),
	F("Method", "_constMethod", method_const),
	F("ConstMethod", "_constants", const_method_constants),
	F("ConstMethod", "_name_index", const_method_name),
	F("ConstMethod", "_signature_index", const_method_signature),
	F("ConstantPool", "_pool_holder", pool_holder),
	Z("ConstantPool", pool_size),
	F("ConstantPool", "_length", pool_length),
	F("Klass", "_name", klass_name),
	F("Symbol", "_length", symbol_length),
	F("Symbol", "_body", symbol_body),
	OPT_I("frame::interpreter_frame_method_offset", interp_method),
	OPT_I("frame::interpreter_frame_bcp_offset", interp_bcp),
	I("frame::interpreter_frame_sender_sp_offset", interp_sender_sp),
	I("frame::interpreter_frame_last_sp_offset", interp_last_sp),
	/* a Method's source file and first line (17's names; checked by check_source) */
	SOFT_F("ConstantPool", "_source_file_name_index", pool_source_file),
	SOFT_Z("ConstMethod", const_method_size),
	SOFT_F("ConstMethod", "_constMethod_size", const_method_words),
	SOFT_F("ConstMethod", "_flags", const_method_flags),
	SOFT_F("ConstMethod", "_code_size", const_method_code_size),
	SOFT_I("ConstMethod::_has_linenumber_table", has_line_table),
	/* where a compiled method's inline cache check ends (17's name) */
	SOFT_F("nmethod", "_verified_entry_point", nmethod_verified_entry),
	/* the scopes of compiled code (17's names; checked by check_scopes) */
	SOFT_F("nmethod", "_metadata_offset", nmethod_metadata),
	SOFT_F("nmethod", "_scopes_pcs_offset", nmethod_scopes_pcs),
	SOFT_F("nmethod", "_dependencies_offset", nmethod_dependencies),
	SOFT_F("CompiledMethod", "_scopes_data_begin", scopes_data),
	SOFT_Z("PcDesc", pc_desc_size),
	SOFT_F("PcDesc", "_pc_offset", pc_desc_pc),
	SOFT_F("PcDesc", "_scope_decode_offset", pc_desc_scope),
};

#define NWANTS (sizeof(wants_template) / sizeof(wants_template[0]))

static void put_u32(struct jvm_layout *out, size_t at, uint32_t v)
{
	memcpy((char *)out + at, &v, sizeof(v));
}

static void put_u64(struct jvm_layout *out, size_t at, uint64_t v)
{
	memcpy((char *)out + at, &v, sizeof(v));
}

/* Walks a table until its NULL name or JVM_MAX_ENTRIES (then: no end, refused). For
 * each entry whose name(s) a want asks for, fn records the value. */
typedef enum jvm_refusal (*entry_fn)(const struct walk *w, const struct table *t, uint64_t e,
				     struct want *want, struct jvm_layout *out);

static enum jvm_refusal table__walk(const struct walk *w, const struct table *t,
				    enum want_kind kind, struct want *wants, entry_fn fn,
				    struct jvm_layout *out, unsigned *entries)
{
	char type[JVM_MAX_NAME], field[JVM_MAX_NAME];

	for (unsigned i = 0; i < JVM_MAX_ENTRIES; i++) {
		uint64_t e = t->base + (uint64_t)i * t->stride, name, fname = 0;
		bool have_field = false;
		int err;

		if (read_u64(w, e + t->off[0], &name))
			return JVM_UNREADABLE;
		if (!name) {
			if (entries)
				*entries = i;
			return JVM_OK;
		}
		err = read_name(w, name, type);
		if (err == -ENAMETOOLONG)
			continue;
		if (err)
			return JVM_UNREADABLE;
		for (size_t k = 0; k < NWANTS; k++) {
			struct want *want = &wants[k];
			enum jvm_refusal why;

			bool of_table = kind == WANT_FIELD ? want->kind == WANT_FIELD ||
								     want->kind == WANT_STATIC
							   : want->kind == kind;

			if (!of_table || want->found || strcmp(want->type, type) != 0)
				continue;
			if (want->field) {
				if (!have_field) {
					if (read_u64(w, e + t->off[1], &fname))
						return JVM_UNREADABLE;
					err = fname ? read_name(w, fname, field) : -ENAMETOOLONG;
					if (err && err != -ENAMETOOLONG)
						return JVM_UNREADABLE;
					if (err)
						field[0] = '\0';
					have_field = true;
				}
				if (strcmp(want->field, field) != 0)
					continue;
			}
			why = fn(w, t, e, want, out);
			if (why != JVM_OK)
				return why;
			want->found = true;
		}
	}
	return JVM_BAD_TABLE;
}

static void name_want(const struct want *want, struct jvm_layout *out)
{
	size_t n = sizeof(out->missing);

	if (want->field)
		snprintf(out->missing, n, "%s::%s", want->type, want->field);
	else
		snprintf(out->missing, n, "%s", want->type);
}

/* A field entry: { typeName, fieldName, typeString, isStatic, offset, address }; its
 * table's off[] are type, field, isStatic, offset, address. */
static enum jvm_refusal struct_entry(const struct walk *w, const struct table *t, uint64_t e,
				     struct want *want, struct jvm_layout *out)
{
	uint32_t is_static;
	uint64_t v;

	if (w->read(w->ctx, e + t->off[2], &is_static, sizeof(is_static)))
		return JVM_UNREADABLE;
	if ((is_static != 0) != (want->kind == WANT_STATIC)) {
		if (want->soft)
			return JVM_OK;
		name_want(want, out);
		return JVM_BAD_OFFSET;
	}
	if (read_u64(w, e + t->off[want->kind == WANT_STATIC ? 4 : 3], &v))
		return JVM_UNREADABLE;
	if (want->kind == WANT_STATIC) {
		if (!v) {
			name_want(want, out);
			return JVM_BAD_OFFSET;
		}
		put_u64(out, want->at, v);
	} else {
		if (v > JVM_MAX_OFFSET) {
			if (want->soft)
				return JVM_OK;
			name_want(want, out);
			return JVM_BAD_OFFSET;
		}
		put_u32(out, want->at, (uint32_t)v);
	}
	return JVM_OK;
}

/* A type entry: { typeName, superclassName, isOop, isInt, isUnsigned, size }; off[] are
 * name, size. */
static enum jvm_refusal type_entry(const struct walk *w, const struct table *t, uint64_t e,
				   struct want *want, struct jvm_layout *out)
{
	uint64_t v;

	if (read_u64(w, e + t->off[1], &v))
		return JVM_UNREADABLE;
	if (!v || v > JVM_MAX_OFFSET) {
		if (want->soft)
			return JVM_OK;
		name_want(want, out);
		return JVM_BAD_OFFSET;
	}
	put_u32(out, want->at, (uint32_t)v);
	return JVM_OK;
}

/* An int constant: { name, int32_t value }; off[] are name, value. Frame offsets are a
 * few words either side of rbp; a flag bit is one bit of 16. */
static enum jvm_refusal int_entry(const struct walk *w, const struct table *t, uint64_t e,
				  struct want *want, struct jvm_layout *out)
{
	int32_t v;

	if (w->read(w->ctx, e + t->off[1], &v, sizeof(v)))
		return JVM_UNREADABLE;
	if (want->soft) {
		if (v > 0 && v <= 0x8000 && !(v & (v - 1)))
			put_u32(out, want->at, (uint32_t)v);
		return JVM_OK;
	}
	if (v < -64 || v > 64) {
		name_want(want, out);
		return JVM_BAD_OFFSET;
	}
	put_u32(out, want->at, (uint32_t)v);
	return JVM_OK;
}

/* A Method's source file and line are read only where every field they need lies
 * inside its structure: otherwise they are forgotten (0), never a refusal. */
static void check_source(struct jvm_layout *o)
{
	uint32_t size = o->const_method_size;

	if (o->pool_source_file + 2 > o->pool_size)
		o->pool_source_file = 0;
	if (size < 16 || !o->const_method_words || o->const_method_words + 4 > size ||
	    !o->const_method_flags || o->const_method_flags + 2 > size ||
	    !o->const_method_code_size || o->const_method_code_size + 2 > size ||
	    !o->has_line_table) {
		o->const_method_size = o->const_method_words = o->const_method_flags = 0;
		o->const_method_code_size = o->has_line_table = 0;
	}
}

/* Compiled code's scopes are read only where every field they need was found and the
 * PcDesc's two ints lie inside it: otherwise a compiled frame is its method alone. */
static void check_scopes(struct jvm_layout *o, const struct want *wants)
{
	unsigned found = 0, asked = 0;

	for (size_t k = 0; k < NWANTS; k++) {
		size_t at = wants[k].at;

		if (at >= offsetof(struct jvm_layout, nmethod_metadata) &&
		    at <= offsetof(struct jvm_layout, pc_desc_scope)) {
			asked++;
			found += wants[k].found;
		}
	}
	o->has_scopes = found == asked && o->pc_desc_size >= 8 && o->pc_desc_size <= 64 &&
			o->pc_desc_pc + 4 <= o->pc_desc_size &&
			o->pc_desc_scope + 4 <= o->pc_desc_size && o->pc_desc_pc != o->pc_desc_scope;
	if (!o->has_scopes)
		o->nmethod_metadata = o->nmethod_scopes_pcs = o->nmethod_dependencies =
			o->scopes_data = o->pc_desc_size = o->pc_desc_pc = o->pc_desc_scope = 0;
}

/* Every field must lie inside its structure where the layout says how big that is:
 * a Symbol's _body is its last field, the ConstantPool's slots follow it.
 *
 * HotSpot exports the interpreter frame's sender_sp and last_sp slots but, up to 17 at
 * least, not the Method*'s: on x86-64 it is the slot below last_sp (frame_x86.hpp, the
 * same from 8 to 25: sender_sp -1, last_sp -2, method -3). It is derived only from that
 * layout; another (a later JVM moving last_sp) is refused unless it exports the slot. */
static enum jvm_refusal check_layout(struct jvm_layout *o, bool have_method)
{
	if (!have_method) {
		if (o->interp_sender_sp != -1 || o->interp_last_sp != -2) {
			snprintf(o->missing, sizeof(o->missing),
				 "frame::interpreter_frame_method_offset");
			return JVM_MISSING_FIELD;
		}
		o->interp_method = o->interp_last_sp - 1;
	}
	/* the bcp's slot, five below the Method*'s in the same layout (method -3, mirror,
	 * mdp, cache, locals, bcp -8: frame_x86.hpp from 8 to 25); unknown elsewhere */
	if (!o->interp_bcp && o->interp_sender_sp == -1 && o->interp_last_sp == -2 &&
	    o->interp_method == -3)
		o->interp_bcp = -8;
	if (o->interp_bcp >= 0 || o->interp_bcp < -32 || o->interp_bcp == o->interp_method ||
	    o->interp_bcp == o->interp_sender_sp || o->interp_bcp == o->interp_last_sp)
		o->interp_bcp = 0;
	if (o->interp_method >= 0 || o->interp_method == o->interp_sender_sp ||
	    o->interp_method == o->interp_last_sp) {
		snprintf(o->missing, sizeof(o->missing), "frame::interpreter_frame_method_offset");
		return JVM_BAD_OFFSET;
	}
	if (o->symbol_length >= o->symbol_body) {
		snprintf(o->missing, sizeof(o->missing), "Symbol::_body");
		return JVM_BAD_OFFSET;
	}
	if (o->pool_holder + 8 > o->pool_size || o->pool_length + 4 > o->pool_size) {
		snprintf(o->missing, sizeof(o->missing), "ConstantPool::_pool_holder");
		return JVM_BAD_OFFSET;
	}
	if (o->code_cache_low == o->code_cache_high) {
		snprintf(o->missing, sizeof(o->missing), "CodeCache::_high_bound");
		return JVM_BAD_OFFSET;
	}
	check_source(o);
	return JVM_OK;
}

enum jvm_refusal jvm_layout__read(const struct jvm_binary *b, uint64_t bias, jvm_read_fn read,
				  void *ctx, struct jvm_layout *out)
{
	static const enum jvm_symbol struct_offs[] = {
		JVM_SYM_STRUCT_TYPE, JVM_SYM_STRUCT_FIELD, JVM_SYM_STRUCT_STATIC,
		JVM_SYM_STRUCT_OFFSET, JVM_SYM_STRUCT_ADDRESS,
	};
	static const enum jvm_symbol type_offs[] = { JVM_SYM_TYPE_NAME, JVM_SYM_TYPE_SIZE };
	static const enum jvm_symbol int_offs[] = { JVM_SYM_INT_NAME, JVM_SYM_INT_VALUE };
	struct walk w = { bias, read, ctx };
	struct want wants[NWANTS];
	struct table structs, types, ints;
	enum jvm_refusal why;
	bool have_method = false;

	memset(out, 0, sizeof(*out));
	memcpy(wants, wants_template, sizeof(wants));
	why = table__read(&w, b, JVM_SYM_STRUCTS, JVM_SYM_STRUCT_STRIDE, struct_offs, 5, &structs);
	if (why == JVM_OK)
		why = table__read(&w, b, JVM_SYM_TYPES, JVM_SYM_TYPE_STRIDE, type_offs, 2, &types);
	if (why == JVM_OK)
		why = table__read(&w, b, JVM_SYM_INTS, JVM_SYM_INT_STRIDE, int_offs, 2, &ints);
	if (why == JVM_OK)
		why = table__walk(&w, &structs, WANT_FIELD, wants, struct_entry, out, &out->entries);
	if (why == JVM_OK)
		why = table__walk(&w, &types, WANT_SIZE, wants, type_entry, out, NULL);
	if (why == JVM_OK)
		why = table__walk(&w, &ints, WANT_INT, wants, int_entry, out, NULL);
	if (why != JVM_OK)
		return why;
	for (size_t k = 0; k < NWANTS; k++) {
		if (!wants[k].found && !wants[k].optional) {
			name_want(&wants[k], out);
			return JVM_MISSING_FIELD;
		}
	}
	for (size_t k = 0; k < NWANTS; k++)
		if (wants[k].at == offsetof(struct jvm_layout, interp_method))
			have_method = wants[k].found;
	check_scopes(out, wants);
	return check_layout(out, have_method);
}

int jvm_refusal__msg(enum jvm_refusal why)
{
	switch (why) {
	case JVM_OK:
		return MSG_JVM_OK;
	case JVM_NO_TABLES:
		return MSG_JVM_NO_TABLES;
	case JVM_UNREADABLE:
		return MSG_JVM_UNREADABLE;
	case JVM_BAD_TABLE:
		return MSG_JVM_BAD_TABLE;
	case JVM_MISSING_FIELD:
		return MSG_JVM_MISSING_FIELD;
	case JVM_BAD_OFFSET:
		return MSG_JVM_BAD_OFFSET;
	}
	return MSG_JVM_BAD_TABLE;
}
