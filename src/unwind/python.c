// SPDX-License-Identifier: MIT
/*
 * CPython binaries and code objects (python.h). Called once per binary and once per code
 * object a process runs: what matters is bounded work on files we did not make (every
 * read is through the ELF reader, checked against the file), not speed.
 */
#include "unwind/python.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"
#include "util/hash.h"
#include "util/hashmap.h"

#define NONE PYTHON_NONE

/*
 * One row per version, from CPython's own headers at that version (offsetof over the
 * installed Include/internal/pycore_*.h, default build: no Py_DEBUG, GIL). Checked
 * against running interpreters by tests/unit/test_python.c; 3.11's match
 * docs/kernel.md §CPython; 3.13's match its _Py_DebugOffsets, which are used instead
 * whenever the binary has them.
 */
static const struct python_offsets offsets[] = {
	{
		.version = 0x0308,
		.line_kind = PYTHON_LINES_LNOTAB,
		.code_linetable = 120,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_BYTES,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 32,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 104,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 112,
		.code_qualname = NONE,
		.code_filename = 104,
		.code_firstlineno = 40,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x0309,
		.line_kind = PYTHON_LINES_LNOTAB,
		.code_linetable = 120,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_BYTES,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 32,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 104,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 112,
		.code_qualname = NONE,
		.code_filename = 104,
		.code_firstlineno = 40,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x030a,
		.line_kind = PYTHON_LINES_310,
		.code_linetable = 120,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_UNITS,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 32,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 96,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 112,
		.code_qualname = NONE,
		.code_filename = 104,
		.code_firstlineno = 40,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x030b,
		.line_kind = PYTHON_LINES_LOCATIONS,
		.code_linetable = 136,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_CFRAME,
		.instr_kind = PYTHON_INSTR_POINTER,
		.owner_cstack = 0xff, /* 3.11 marks entry frames with is_entry instead */
		.runtime_interpreters_head = 40,
		.interp_next = 0,
		.interp_threads_head = 16,
		.tstate_next = 8,
		.tstate_thread_id = 152,
		.tstate_native_thread_id = 160,
		.tstate_frame = 56,
		.cframe_current_frame = 8,
		.frame_previous = 48,
		.frame_code = 32,
		.frame_instr = 56,
		.frame_owner = 69,
		.frame_is_entry = 68,
		.code_name = 120,
		.code_qualname = 128,
		.code_filename = 112,
		.code_firstlineno = 72,
		.code_adaptive = 184,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x030c,
		.line_kind = PYTHON_LINES_LOCATIONS,
		.code_linetable = 136,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_CFRAME,
		.instr_kind = PYTHON_INSTR_POINTER,
		.owner_cstack = 3,
		.runtime_interpreters_head = 40,
		.interp_next = 0,
		.interp_threads_head = 72,
		.tstate_next = 8,
		.tstate_thread_id = 136,
		.tstate_native_thread_id = 144,
		.tstate_frame = 56,
		.cframe_current_frame = 0,
		.frame_previous = 8,
		.frame_code = 0,
		.frame_instr = 56,
		.frame_owner = 70,
		.frame_is_entry = NONE,
		.code_name = 120,
		.code_qualname = 128,
		.code_filename = 112,
		.code_firstlineno = 68,
		.code_adaptive = 192,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 40,
		.unicode_compact_data = 56,
	},
	{
		.version = 0x030d,
		.line_kind = PYTHON_LINES_LOCATIONS,
		.code_linetable = 136,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_DIRECT,
		.instr_kind = PYTHON_INSTR_POINTER,
		.owner_cstack = 3,
		.runtime_interpreters_head = 632,
		.interp_next = 7264,
		.interp_threads_head = 7344,
		.tstate_next = 8,
		.tstate_thread_id = 152,
		.tstate_native_thread_id = 160,
		.tstate_frame = 72,
		.cframe_current_frame = NONE,
		.frame_previous = 8,
		.frame_code = 0,
		.frame_instr = 56,
		.frame_owner = 70,
		.frame_is_entry = NONE,
		.code_name = 120,
		.code_qualname = 128,
		.code_filename = 112,
		.code_firstlineno = 68,
		.code_adaptive = 200,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 40,
		.unicode_compact_data = 56,
	},
};

/* Rows with their windows sized: the table above says only where fields are. */
static struct python_offsets sized[sizeof(offsets) / sizeof(offsets[0])];
static bool sized_done;

static unsigned words_to_cover(unsigned words, uint16_t off, unsigned size)
{
	unsigned need;

	if (off == NONE)
		return words;
	need = ((unsigned)off + size + 7) / 8;
	return need > words ? need : words;
}

/* The window sizes the walker reads: every field it takes from one, and no more. false
 * when a field lies beyond the largest window (the walker would refuse the row). */
static bool size_windows(struct python_offsets *o)
{
	unsigned t = 0, f = 0;

	t = words_to_cover(t, o->tstate_next, 8);
	t = words_to_cover(t, o->tstate_frame, 8);
	t = words_to_cover(t, o->tstate_thread_id, 8);
	t = words_to_cover(t, o->tstate_native_thread_id, 4);
	f = words_to_cover(f, o->frame_previous, 8);
	f = words_to_cover(f, o->frame_code, 8);
	f = words_to_cover(f, o->frame_instr, 8);
	f = words_to_cover(f, o->frame_owner, 1);
	f = words_to_cover(f, o->frame_is_entry, 1);
	o->tstate_words = (uint8_t)t;
	o->frame_words = (uint8_t)f;
	return t <= PYTHON_WINDOW_WORDS && f <= PYTHON_WINDOW_WORDS;
}

const struct python_offsets *python_offsets__for(unsigned minor)
{
	/* Pure function of constant data: racing first calls write the same bytes. */
	if (!sized_done) {
		for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
			sized[i] = offsets[i];
			size_windows(&sized[i]);
		}
		sized_done = true;
	}
	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
		if (sized[i].version == (0x0300 | minor))
			return &sized[i];
	}
	return NULL;
}

/* "3.11" after a stem: the minor version, or -1. */
static int minor_after(const char *p)
{
	int minor = 0, digits = 0;

	if (strncmp(p, "3.", 2) != 0)
		return -1;
	for (p += 2; isdigit((unsigned char)*p) && digits < 3; p++, digits++)
		minor = minor * 10 + (*p - '0');
	if (!digits)
		return -1;
	/* ABI flags (3.7m, 3.13d, 3.13t), then the end or ".so" */
	while (*p && strchr("dmut", *p))
		p++;
	if (*p && strncmp(p, ".so", 3) != 0)
		return -1;
	return minor;
}

/* The minor version a file name says (python3.11, libpython3.11.so.1.0), or -1. */
static int minor_of_name(const char *path)
{
	const char *name = path ? strrchr(path, '/') : NULL;

	name = name ? name + 1 : path;
	if (!name)
		return -1;
	if (strncmp(name, "libpython", 9) == 0)
		return minor_after(name + 9);
	if (strncmp(name, "python", 6) == 0)
		return minor_after(name + 6);
	return -1;
}

bool python_binary__is_candidate(const char *path)
{
	const char *name = path ? strrchr(path, '/') : NULL;

	name = name ? name + 1 : path;
	if (!name)
		return false;
	return strncmp(name, "python", 6) == 0 || strncmp(name, "libpython", 9) == 0;
}

/* What is looked for in the symbol tables. */
struct wanted {
	uint64_t runtime, runtime_size;
	uint64_t py_version, py_version_size;
	uint64_t eval, eval_size;
	bool has_runtime, has_py_version, has_eval;
};

static bool wanted__all(const struct wanted *w)
{
	return w->has_runtime && w->has_py_version && w->has_eval;
}

/* _PyEval_EvalFrameDefault is tens of kilobytes in every build: names of smaller
 * functions are not worth reading. */
#define EVAL_MIN_SIZE 4096

#define SYM_CHUNK 1024u
/* libpython exports ~1,600 symbols, a full .symtab ~15,000: far below this. */
#define SYM_MAX (1u << 22)

static int check_name(const struct elf_reader *r, const struct elf_shdr *strtab, uint32_t name,
		      const char *want)
{
	char buf[32];
	size_t n = strlen(want) + 1;

	if (n > sizeof(buf))
		return 0;

	if (name >= strtab->size || strtab->size - name < n)
		return 0;
	if (elf_reader__pread(r, buf, n, strtab->offset + name))
		return -ENOEXEC;
	return memcmp(buf, want, n) == 0;
}

/* Scans one symbol table (section index) for _PyRuntime and Py_Version (data objects
 * defined in the file) and _PyEval_EvalFrameDefault. Names are read only for those
 * kinds and sizes. */
static int scan_symbols(const struct elf_reader *r, uint32_t index, struct wanted *w)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	const struct elf_shdr *sh = &r->shdrs[index], *strtab;
	unsigned char *buf;
	uint64_t nsyms, done = 0;
	int err = 0;

	if (sh->link >= r->shnum || r->shdrs[sh->link].type != SHT_STRTAB)
		return -ENOEXEC;
	if (sh->entsize != 0 && sh->entsize != entsize)
		return -ENOEXEC;
	strtab = &r->shdrs[sh->link];
	nsyms = sh->size / entsize;
	if (nsyms > SYM_MAX)
		nsyms = SYM_MAX;
	buf = malloc(SYM_CHUNK * entsize);
	if (!buf)
		return -ENOMEM;
	while (done < nsyms && !err && !wanted__all(w)) {
		size_t n = nsyms - done < SYM_CHUNK ? (size_t)(nsyms - done) : SYM_CHUNK;

		err = elf_reader__pread(r, buf, n * entsize, sh->offset + done * entsize);
		for (size_t i = 0; i < n && !err; i++) {
			uint64_t value, size;
			uint32_t name;
			unsigned char info;
			uint16_t shndx;
			int is;

			if (r->is64) {
				Elf64_Sym s;

				memcpy(&s, buf + i * entsize, sizeof(s));
				info = s.st_info;
				shndx = elf_reader__u16(r, s.st_shndx);
				value = elf_reader__u64(r, s.st_value);
				size = elf_reader__u64(r, s.st_size);
				name = elf_reader__u32(r, s.st_name);
			} else {
				Elf32_Sym s;

				memcpy(&s, buf + i * entsize, sizeof(s));
				info = s.st_info;
				shndx = elf_reader__u16(r, s.st_shndx);
				value = elf_reader__u32(r, s.st_value);
				size = elf_reader__u32(r, s.st_size);
				name = elf_reader__u32(r, s.st_name);
			}
			if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
				continue;
			if (ELF64_ST_TYPE(info) == STT_FUNC && !w->has_eval &&
			    size >= EVAL_MIN_SIZE) {
				is = check_name(r, strtab, name, "_PyEval_EvalFrameDefault");
				if (is < 0)
					err = is;
				if (is > 0) {
					w->eval = value;
					w->eval_size = size;
					w->has_eval = true;
				}
				continue;
			}
			if (ELF64_ST_TYPE(info) != STT_OBJECT)
				continue;
			if (!w->has_runtime) {
				is = check_name(r, strtab, name, "_PyRuntime");
				if (is < 0)
					err = is;
				if (is > 0) {
					w->runtime = value;
					w->runtime_size = size;
					w->has_runtime = true;
					continue;
				}
			}
			/* const unsigned long: 8 bytes on LP64, 4 on 32-bit */
			if (!w->has_py_version && (size == 4 || size == 8)) {
				is = check_name(r, strtab, name, "Py_Version");
				if (is < 0)
					err = is;
				if (is > 0) {
					w->py_version = value;
					w->py_version_size = size;
					w->has_py_version = true;
				}
			}
		}
		done += n;
	}
	free(buf);
	return err;
}

/* The file offset of virtual address vaddr (len bytes of file data there), or false. */
static bool vaddr_to_offset(const struct python_binary *b, uint64_t vaddr, uint64_t len,
			    uint64_t *offset)
{
	for (unsigned i = 0; i < b->nsegments; i++) {
		uint64_t v = b->segments[i].vaddr;

		if (vaddr >= v && vaddr - v <= b->segments[i].filesz &&
		    len <= b->segments[i].filesz - (vaddr - v)) {
			*offset = b->segments[i].offset + (vaddr - v);
			return true;
		}
	}
	return false;
}

static int read_segments(const struct elf_reader *r, struct python_binary *b)
{
	for (uint32_t i = 0; i < r->phnum && b->nsegments < PYTHON_MAX_SEGMENTS; i++) {
		struct elf_phdr ph;
		int err = elf_reader__phdr(r, i, &ph);

		if (err)
			return err;
		if (ph.type != PT_LOAD)
			continue;
		b->segments[b->nsegments].offset = ph.offset;
		b->segments[b->nsegments].vaddr = ph.vaddr;
		b->segments[b->nsegments].filesz = ph.filesz;
		b->segments[b->nsegments].flags = ph.flags;
		b->nsegments++;
	}
	return 0;
}

/* _Py_DebugOffsets of 3.13, as 8-byte words (Include/internal/pycore_runtime.h). */
enum {
	DBG_COOKIE = 0, DBG_VERSION = 1, DBG_FREE_THREADED = 2,
	DBG_RUNTIME_INTERPRETERS_HEAD = 5,
	DBG_INTERP_NEXT = 8, DBG_INTERP_THREADS_HEAD = 9,
	DBG_TSTATE_NEXT = 21, DBG_TSTATE_CURRENT_FRAME = 23, DBG_TSTATE_THREAD_ID = 24,
	DBG_TSTATE_NATIVE_THREAD_ID = 25,
	DBG_FRAME_PREVIOUS = 29, DBG_FRAME_EXECUTABLE = 30, DBG_FRAME_INSTR_PTR = 31,
	DBG_FRAME_OWNER = 33,
	DBG_CODE_FILENAME = 35, DBG_CODE_NAME = 36, DBG_CODE_QUALNAME = 37,
	DBG_CODE_LINETABLE = 38, DBG_CODE_FIRSTLINENO = 39, DBG_CODE_ADAPTIVE = 43,
	DBG_BYTES_SIZE = 65, DBG_BYTES_DATA = 66,
	DBG_UNICODE_STATE = 68, DBG_UNICODE_LENGTH = 69, DBG_UNICODE_ASCII_SIZE = 70,
	DBG_WORDS = 73,
};

/*
 * 3.13 starts _PyRuntime with _Py_DebugOffsets, statically initialised: read from the
 * file, they give the layout of this very build. The table row supplies what they do not
 * carry (the kinds, and where non-ASCII string data starts: ASCII data + 16).
 * 0, -ENOENT (no cookie: not 3.13's layout), -ENOTSUP (free-threaded), -ENOEXEC.
 */
static int read_debug_offsets(const struct elf_reader *r, const struct python_binary *b,
			      struct python_offsets *o)
{
	uint64_t w[DBG_WORDS], off;
	static const unsigned fields[] = {
		DBG_RUNTIME_INTERPRETERS_HEAD, DBG_INTERP_NEXT, DBG_INTERP_THREADS_HEAD,
		DBG_TSTATE_NEXT, DBG_TSTATE_CURRENT_FRAME, DBG_TSTATE_THREAD_ID,
		DBG_TSTATE_NATIVE_THREAD_ID, DBG_FRAME_PREVIOUS, DBG_FRAME_EXECUTABLE,
		DBG_FRAME_INSTR_PTR, DBG_FRAME_OWNER, DBG_CODE_FILENAME, DBG_CODE_NAME,
		DBG_CODE_QUALNAME, DBG_CODE_LINETABLE, DBG_CODE_FIRSTLINENO, DBG_CODE_ADAPTIVE,
		DBG_BYTES_SIZE, DBG_BYTES_DATA, DBG_UNICODE_STATE, DBG_UNICODE_LENGTH,
		DBG_UNICODE_ASCII_SIZE,
	};
	int err;

	if (!vaddr_to_offset(b, b->runtime_vaddr, sizeof(w), &off))
		return -ENOENT;
	err = elf_reader__pread(r, w, sizeof(w), off);
	if (err)
		return err;
	if (memcmp(&w[DBG_COOKIE], "xdebugpy", 8) != 0)
		return -ENOENT;
	for (unsigned i = 0; i < DBG_WORDS; i++)
		w[i] = elf_reader__u64(r, w[i]);
	if ((w[DBG_VERSION] >> 16) != 0x030d)
		return -ENOENT;
	if (w[DBG_FREE_THREADED])
		return -ENOTSUP;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (w[fields[i]] >= NONE)
			return -ENOEXEC;
	}
	o->runtime_interpreters_head = (uint16_t)w[DBG_RUNTIME_INTERPRETERS_HEAD];
	o->interp_next = (uint16_t)w[DBG_INTERP_NEXT];
	o->interp_threads_head = (uint16_t)w[DBG_INTERP_THREADS_HEAD];
	o->tstate_next = (uint16_t)w[DBG_TSTATE_NEXT];
	o->tstate_frame = (uint16_t)w[DBG_TSTATE_CURRENT_FRAME];
	o->tstate_thread_id = (uint16_t)w[DBG_TSTATE_THREAD_ID];
	o->tstate_native_thread_id = (uint16_t)w[DBG_TSTATE_NATIVE_THREAD_ID];
	o->frame_previous = (uint16_t)w[DBG_FRAME_PREVIOUS];
	o->frame_code = (uint16_t)w[DBG_FRAME_EXECUTABLE];
	o->frame_instr = (uint16_t)w[DBG_FRAME_INSTR_PTR];
	o->frame_owner = (uint16_t)w[DBG_FRAME_OWNER];
	o->code_filename = (uint16_t)w[DBG_CODE_FILENAME];
	o->code_name = (uint16_t)w[DBG_CODE_NAME];
	o->code_qualname = (uint16_t)w[DBG_CODE_QUALNAME];
	o->code_firstlineno = (uint16_t)w[DBG_CODE_FIRSTLINENO];
	o->code_adaptive = (uint16_t)w[DBG_CODE_ADAPTIVE];
	o->code_linetable = (uint16_t)w[DBG_CODE_LINETABLE];
	o->bytes_size = (uint16_t)w[DBG_BYTES_SIZE];
	o->bytes_data = (uint16_t)w[DBG_BYTES_DATA];
	o->unicode_state = (uint16_t)w[DBG_UNICODE_STATE];
	o->unicode_length = (uint16_t)w[DBG_UNICODE_LENGTH];
	o->unicode_ascii_data = (uint16_t)w[DBG_UNICODE_ASCII_SIZE];
	/* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject */
	o->unicode_compact_data = (uint16_t)(w[DBG_UNICODE_ASCII_SIZE] + 16);
	return size_windows(o) ? 0 : -ENOEXEC;
}

/* The minor version in a shared library's DT_SONAME ("libpython3.10.so.1.0"), whatever
 * the file is called now; -1 when it has none. */
static int minor_of_soname(const struct elf_reader *r)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	int index = elf_reader__find_section(r, SHT_DYNAMIC);
	const struct elf_shdr *dyn, *str;
	char name[64];

	if (index < 0)
		return -1;
	dyn = &r->shdrs[index];
	if (dyn->link >= r->shnum || r->shdrs[dyn->link].type != SHT_STRTAB)
		return -1;
	str = &r->shdrs[dyn->link];
	/* A dynamic section has a few dozen entries; 4096 is far beyond any. */
	for (uint64_t i = 0; i < dyn->size / entsize && i < 4096; i++) {
		uint64_t tag, val;

		if (r->is64) {
			Elf64_Dyn d;

			if (elf_reader__pread(r, &d, sizeof(d), dyn->offset + i * entsize))
				return -1;
			tag = elf_reader__u64(r, (uint64_t)d.d_tag);
			val = elf_reader__u64(r, d.d_un.d_val);
		} else {
			Elf32_Dyn d;

			if (elf_reader__pread(r, &d, sizeof(d), dyn->offset + i * entsize))
				return -1;
			tag = elf_reader__u32(r, (uint32_t)d.d_tag);
			val = elf_reader__u32(r, d.d_un.d_val);
		}
		if (tag == DT_NULL)
			return -1;
		if (tag != DT_SONAME || val >= str->size)
			continue;
		memset(name, 0, sizeof(name));
		if (elf_reader__pread(r, name,
				      str->size - val < sizeof(name) - 1 ? str->size - val
									: sizeof(name) - 1,
				      str->offset + val))
			return -1;
		return minor_of_name(name);
	}
	return -1;
}

/* The version: Py_Version (3.11+: PY_VERSION_HEX in the file's data), else the library's
 * SONAME, else the file's name. */
static int read_version(const struct elf_reader *r, const char *path, const struct wanted *w,
			struct python_binary *b)
{
	uint64_t off, hex = 0;
	uint32_t hex32;
	int minor;

	if (w->has_py_version && vaddr_to_offset(b, w->py_version, w->py_version_size, &off)) {
		if (w->py_version_size == 8 && elf_reader__pread(r, &hex, 8, off) == 0)
			hex = elf_reader__u64(r, hex);
		else if (w->py_version_size == 4 && elf_reader__pread(r, &hex32, 4, off) == 0)
			hex = elf_reader__u32(r, hex32);
	}
	/* PY_VERSION_HEX: 0x030b07f0 is 3.11.7 final */
	if (hex >> 24 == 3 && hex <= 0xffffffffull) {
		b->major = (unsigned)(hex >> 24);
		b->minor = (unsigned)(hex >> 16) & 0xff;
		b->micro = (unsigned)(hex >> 8) & 0xff;
		b->version_from = PYTHON_VERSION_PY_VERSION;
		return 0;
	}
	b->major = 3;
	b->micro = 0;
	minor = minor_of_soname(r);
	b->version_from = PYTHON_VERSION_SONAME;
	if (minor < 0) {
		minor = minor_of_name(path);
		b->version_from = PYTHON_VERSION_FILE_NAME;
	}
	if (minor < 0)
		return -ENOTSUP;
	b->minor = (unsigned)minor;
	return 0;
}

int python_binary__read(int fd, const char *path, struct python_binary *out)
{
	const struct python_offsets *row;
	struct elf_reader r;
	struct wanted w = { 0 };
	int err, dyn, sym;

	memset(out, 0, sizeof(*out));
	err = elf_reader__open(&r, fd);
	if (err)
		return err;
	err = read_segments(&r, out);
	if (err)
		goto out_close;
	dyn = elf_reader__find_section(&r, SHT_DYNSYM);
	sym = elf_reader__find_section(&r, SHT_SYMTAB);
	if (dyn >= 0)
		err = scan_symbols(&r, (uint32_t)dyn, &w);
	if (!err && sym >= 0 && !wanted__all(&w))
		err = scan_symbols(&r, (uint32_t)sym, &w);
	if (err)
		goto out_close;
	err = -ENOENT;
	if (!w.has_runtime)
		goto out_close;
	out->runtime_vaddr = w.runtime;
	if (w.has_eval) {
		out->eval_start = w.eval;
		out->eval_end = w.eval + w.eval_size;
	}

	err = read_version(&r, path, &w, out);
	if (err)
		goto out_close;
	err = -ENOTSUP;
	if (out->major != 3)
		goto out_close;
	row = python_offsets__for(out->minor);
	if (!row)
		goto out_close;
	out->off = *row;
	if (out->minor >= 13) {
		struct python_offsets dbg = *row;

		err = read_debug_offsets(&r, out, &dbg);
		if (err == -ENOTSUP || err == -ENOMEM)
			goto out_close;
		if (err == 0) {
			out->off = dbg;
			out->from_debug_offsets = true;
		}
	}
	err = 0;
out_close:
	elf_reader__close(&r);
	return err;
}

int python_proc__init(const struct python_binary *bin, uint64_t map_start, uint64_t map_offset,
		      struct python_proc *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < bin->nsegments; i++) {
		uint64_t off = bin->segments[i].offset;

		/* The executable segment holding the mapped offset (pages of up to 64 KB):
		 * its vaddr - offset is the file's, and the mapping's start minus that is
		 * the load bias. */
		if (!(bin->segments[i].flags & PF_X) || map_offset < (off & ~0xffffull) ||
		    map_offset >= off + bin->segments[i].filesz)
			continue;
		out->runtime = bin->runtime_vaddr + map_start -
			       (bin->segments[i].vaddr - off + map_offset);
		out->off = bin->off;
		return 0;
	}
	return -ERANGE;
}

/* UTF-8 of one code point into out (room for 4). */
static size_t put_utf8(uint32_t c, char *out)
{
	if (c >= 0xd800 && c <= 0xdfff)
		c = '?';
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff) {
		out[0] = '?';
		return 1;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

size_t python__utf8(unsigned kind, const void *data, size_t len, char *out, size_t size)
{
	const unsigned char *p = data;
	size_t n = 0;

	if (kind != 1 && kind != 2 && kind != 4)
		kind = 1;
	for (size_t i = 0; i + kind <= len; i += kind) {
		uint32_t c;
		char buf[4];
		size_t k;

		if (kind == 1) {
			c = p[i];
		} else if (kind == 2) {
			uint16_t v;

			memcpy(&v, p + i, 2);
			c = v;
		} else {
			memcpy(&c, p + i, 4);
		}
		k = put_utf8(c, buf);
		if (n + k + 1 > size)
			break;
		memcpy(out + n, buf, k);
		n += k;
	}
	out[n] = '\0';
	return n;
}

/* The code cache: entries in one array, indexed by (pid, code). Forgotten entries keep
 * their slot with pid 0 (no process has it), so they never match again. */
struct python_code_cache {
	struct python_code_entry *entries;
	uint32_t n, cap;
	struct hashmap *index;
};

struct code_key {
	uint32_t pid;
	uint64_t code;
};

static uint64_t code_hash(uint32_t pid, uint64_t code)
{
	return hash_u64(hash_u64(0, pid), code);
}

static bool code_equal(const void *key, uint32_t id, void *ctx)
{
	const struct code_key *k = key;
	const struct python_code_cache *c = ctx;

	return c->entries[id].pid == k->pid && c->entries[id].code == k->code;
}

struct python_code_cache *python_code_cache__new(void)
{
	struct python_code_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->index = hashmap__new();
	if (!c->index) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void python_code_cache__free(struct python_code_cache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->entries[i].name);
		free(c->entries[i].file);
		free(c->entries[i].table);
	}
	free(c->entries);
	hashmap__free(c->index);
	free(c);
}

static uint32_t find_id(const struct python_code_cache *c, uint32_t pid, uint64_t code)
{
	struct code_key k = { pid, code };

	return hashmap__find(c->index, code_hash(pid, code), &k, code_equal, (void *)c);
}

/* A record's string as UTF-8, or fallback when it could not be read. */
static char *record_string(unsigned kind, const char *data, unsigned bytes, size_t max,
			   bool missing, bool cut, const char *fallback)
{
	/* Each input byte makes at most 3 output bytes (kind 1 -> 2, kind 2 -> 3, 4 -> 4). */
	size_t size = 3 * max + 4;
	char *s;
	size_t n;

	if (missing)
		return strdup(fallback);
	s = malloc(size);
	if (!s)
		return NULL;
	n = python__utf8(kind, data, bytes < max ? bytes : max, s, size - 4);
	if (cut)
		memcpy(s + n, "...", 4);
	return s;
}

int python_code_cache__add(struct python_code_cache *c, uint32_t pid,
			   const struct python_code *rec)
{
	struct python_code_entry e = { .pid = pid, .code = rec->code,
				       .firstlineno = rec->firstlineno };
	uint32_t id;

	e.name = record_string(rec->name_kind, rec->name, rec->name_bytes, PYTHON_NAME_LEN,
			       rec->flags & PYTHON_CODE_NO_NAME, rec->flags & PYTHON_CODE_NAME_CUT,
			       "[unknown Python function]");
	e.file = record_string(rec->file_kind, rec->file, rec->file_bytes, PYTHON_FILE_LEN,
			       rec->flags & PYTHON_CODE_NO_FILE, rec->flags & PYTHON_CODE_FILE_CUT,
			       "");
	if (!e.name || !e.file)
		goto out_free;
	if (rec->table_bytes) {
		e.table_len = rec->table_bytes < PYTHON_TABLE_LEN ? rec->table_bytes
								  : PYTHON_TABLE_LEN;
		e.table = malloc(e.table_len);
		if (!e.table)
			goto out_free;
		memcpy(e.table, rec->table, e.table_len);
		e.line_kind = rec->line_kind;
	}

	id = find_id(c, pid, rec->code);
	if (id != HASHMAP_NONE) {
		free(c->entries[id].name);
		free(c->entries[id].file);
		free(c->entries[id].table);
		c->entries[id] = e;
		return 0;
	}
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 64;
		struct python_code_entry *more = reallocarray(c->entries, cap, sizeof(*more));

		if (!more)
			goto out_free;
		c->entries = more;
		c->cap = cap;
	}
	if (hashmap__insert(c->index, code_hash(pid, rec->code), c->n))
		goto out_free;
	c->entries[c->n++] = e;
	return 0;
out_free:
	free(e.name);
	free(e.file);
	free(e.table);
	return -ENOMEM;
}

const struct python_code_entry *python_code_cache__find(const struct python_code_cache *c,
							uint32_t pid, uint64_t code)
{
	uint32_t id = find_id(c, pid, code);

	return id == HASHMAP_NONE ? NULL : &c->entries[id];
}

void python_code_cache__forget(struct python_code_cache *c, uint32_t pid)
{
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->entries[i].pid == pid)
			c->entries[i].pid = 0;
	}
}

/* 3.8-3.9 co_lnotab: (bytecode bytes, line) increments from the first line. */
static int64_t line_lnotab(const struct python_code_entry *e, uint64_t addr)
{
	int64_t line = e->firstlineno;
	uint64_t at = 0;

	for (uint32_t i = 0; i + 1 < e->table_len; i += 2) {
		at += e->table[i];
		if (at > addr)
			return line;
		line += (int8_t)e->table[i + 1];
	}
	/* Past the table: the last line, unless the table was cut. */
	return e->table_len + 4 >= PYTHON_TABLE_LEN ? 0 : line;
}

/* 3.10 co_linetable: ranges of bytecode bytes with a line delta each, -128: no line. */
static int64_t line_310(const struct python_code_entry *e, uint64_t addr)
{
	int64_t line = e->firstlineno, range_line = -1;
	uint64_t end = 0;

	for (uint32_t i = 0; i + 1 < e->table_len; i += 2) {
		int8_t delta = (int8_t)e->table[i + 1];

		end += e->table[i];
		if (delta == -128) {
			range_line = -1;
		} else {
			line += delta;
			range_line = line;
		}
		if (addr < end)
			return range_line > 0 ? range_line : 0;
	}
	return 0;
}

/* Unsigned varint of the location table: 6 bits a byte, 0x40 says more follow. */
static uint32_t varint(const struct python_code_entry *e, uint32_t *i)
{
	uint32_t v = 0, shift = 0;

	while (*i < e->table_len && shift < 32) {
		uint8_t b = e->table[(*i)++];

		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return v;
}

/* 3.11+ location table: entries of (1-8 code units, a kind), the kind saying how the
 * line moves (Objects/locations.md in CPython). */
static int64_t line_locations(const struct python_code_entry *e, uint64_t addr)
{
	int64_t line = e->firstlineno;
	uint64_t end = 0;
	uint32_t i = 0;

	while (i < e->table_len) {
		uint8_t first = e->table[i++];
		unsigned kind = (first >> 3) & 15;
		int64_t delta = 0, this_line;

		if (!(first & 0x80))
			return 0; /* not the start of an entry: lost our place */
		end += ((first & 7) + 1) * 2;
		if (kind == 13 || kind == 14) {
			uint32_t v = varint(e, &i);

			delta = (v & 1) ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
		} else if (kind >= 10 && kind <= 12) {
			delta = (int64_t)kind - 10;
		}
		if (kind != 15)
			line += delta;
		this_line = kind == 15 ? 0 : line;
		if (addr < end)
			return this_line > 0 ? this_line : 0;
		/* the rest of the entry: columns and end lines */
		while (i < e->table_len && !(e->table[i] & 0x80))
			i++;
	}
	return 0;
}

int32_t python_code__line(const struct python_code_entry *e, uint32_t instr)
{
	uint64_t addr = (uint64_t)instr * 2; /* tables count bytecode bytes */
	int64_t line = 0;

	if (!e || !e->table || instr == PYTHON_NO_INSTR)
		return 0;
	/* In 64 bits: a table of a few hundred bytes moves a 32-bit line by far less
	 * than 2^32, and memory that is not a table says a line that is not one. */
	switch (e->line_kind) {
	case PYTHON_LINES_LNOTAB:
		line = line_lnotab(e, addr);
		break;
	case PYTHON_LINES_310:
		line = line_310(e, addr);
		break;
	case PYTHON_LINES_LOCATIONS:
		line = line_locations(e, addr);
		break;
	}
	return line > 0 && line <= INT32_MAX ? (int32_t)line : 0;
}

bool python__is_library_file(const char *file)
{
	const char *p;

	if (!file)
		return false;
	if (strncmp(file, "<frozen ", 8) == 0)
		return true;
	if (strstr(file, "/site-packages/") || strstr(file, "/dist-packages/"))
		return true;
	/* the standard library: DIR/lib/python3.X/ or DIR/lib64/python3.X/ */
	for (p = strstr(file, "/python3."); p; p = strstr(p + 1, "/python3.")) {
		const char *d = p + 9;

		if (!(p - file >= 4 && strncmp(p - 4, "/lib", 4) == 0) &&
		    !(p - file >= 6 && strncmp(p - 6, "/lib64", 6) == 0))
			continue;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == '/')
			return true;
	}
	return false;
}
