// SPDX-License-Identifier: MIT
/*
 * CPython binaries (python.h): whether a file is an interpreter or libpython, its version,
 * where _PyRuntime and the evaluator are, and the layouts that fit it. Called once per
 * binary: what matters is bounded work on files we did not make (every read is through
 * the ELF reader, checked against the file), not speed.
 */
#include "unwind/python.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"

#define NONE PYTHON_NONE

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
	/* 3.6 has no _PyRuntime: its interpreters' list is pystate.c's static interp_head
	 * (in .symtab), which the walker reads as a runtime whose head is at offset 0. */
	uint64_t interp_head;
	bool has_runtime, has_py_version, has_eval, has_interp_head;
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
			if (!w->has_runtime && !w->has_interp_head && size == 8) {
				is = check_name(r, strtab, name, "interp_head");
				if (is < 0)
					err = is;
				if (is > 0) {
					w->interp_head = value;
					w->has_interp_head = true;
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
	return python_offsets__size_windows(o) ? 0 : -ENOEXEC;
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
	if (!w.has_runtime && !w.has_interp_head)
		goto out_close;
	out->runtime_vaddr = w.has_runtime ? w.runtime : w.interp_head;
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
	/* interp_head stands for the runtime of 3.6 only. */
	if (!row || (!w.has_runtime && out->minor != 6))
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
