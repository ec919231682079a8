// SPDX-License-Identifier: MIT
/*
 * Function symbols of an ELF file, in bounded memory. A 1 GB debug file can hold a
 * million functions: its .symtab (tens of MB) is read 64 KB at a time, and names come
 * through a 64 KB window over .strtab that slides forward. Linkers write .strtab in
 * about the order of .symtab, so the window rarely has to jump back. What is kept is
 * only what the caller keeps of each function (src/symbols builds its tables from it).
 */
#include "elf/elf_file.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"

#define SYMTAB_CHUNK (64u << 10)
#define STRTAB_WINDOW (64u << 10) /* also the longest name kept; longer ones are cut */
#define STRTAB_WHOLE (16u << 20)

int elf_reader__each_function(const struct elf_reader *r, uint32_t index,
			      int (*fn)(const struct elf_func *f, void *ctx), void *ctx)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	const struct elf_shdr *sh;
	unsigned char *buf;
	uint64_t nsyms, done = 0;
	size_t per_chunk = SYMTAB_CHUNK / entsize;
	int err = 0;

	if (index >= r->shnum)
		return -ENOEXEC;
	sh = &r->shdrs[index];
	if (sh->entsize != 0 && sh->entsize != entsize)
		return -ENOEXEC;
	nsyms = sh->size / entsize;
	if (r->limits && nsyms > r->limits->max_symbols)
		return -EOVERFLOW;

	buf = malloc(per_chunk * entsize);
	if (!buf)
		return -ENOMEM;
	while (done < nsyms && !err) {
		size_t n = nsyms - done < per_chunk ? (size_t)(nsyms - done) : per_chunk;

		err = elf_reader__pread(r, buf, n * entsize, sh->offset + done * entsize);
		for (size_t i = 0; i < n && !err; i++) {
			const unsigned char *raw = buf + i * entsize;
			struct elf_func f;
			unsigned char info;
			uint16_t shndx;

			if (r->is64) {
				Elf64_Sym s;

				memcpy(&s, raw, sizeof(s));
				info = s.st_info;
				shndx = elf_reader__u16(r, s.st_shndx);
				f.addr = elf_reader__u64(r, s.st_value);
				f.size = elf_reader__u64(r, s.st_size);
				f.name = elf_reader__u32(r, s.st_name);
			} else {
				Elf32_Sym s;

				memcpy(&s, raw, sizeof(s));
				info = s.st_info;
				shndx = elf_reader__u16(r, s.st_shndx);
				f.addr = elf_reader__u32(r, s.st_value);
				f.size = elf_reader__u32(r, s.st_size);
				f.name = elf_reader__u32(r, s.st_name);
			}
			if (ELF64_ST_TYPE(info) != STT_FUNC && ELF64_ST_TYPE(info) != STT_GNU_IFUNC)
				continue;
			if (shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON)
				continue;
			/* Thumb functions have bit 0 set in their address; the code does not. */
			if (r->machine == EM_ARM)
				f.addr &= ~(uint64_t)1;
			/* A function of unknown size (_init, hand-written assembly) ends with its
			 * section at the latest: _init must not swallow the PLT after .init. */
			f.size_declared = f.size != 0;
			if (f.size == 0 && shndx < r->shnum && shndx < SHN_LORESERVE &&
			    (r->shdrs[shndx].flags & SHF_ALLOC) && f.addr >= r->shdrs[shndx].addr &&
			    f.addr - r->shdrs[shndx].addr < r->shdrs[shndx].size)
				f.size = r->shdrs[shndx].addr + r->shdrs[shndx].size - f.addr;
			err = fn(&f, ctx);
		}
		done += n;
	}
	free(buf);
	return err;
}

/*
 * A window over a string table. A table of up to STRTAB_WHOLE is read whole, once: the
 * names of .dynsym and of most .symtab tables jump back and forth, and a 64 KB window
 * would read the table again and again (gigabytes for a large C++ binary). A larger one
 * (a 1 GB debug file's) is read in 64 KB pieces that slide forward.
 */
struct strtab_window {
	const struct elf_reader *r;
	uint64_t offset, size; /* of the string table in the file */
	char *buf;
	size_t cap;            /* bytes buf holds */
	uint64_t start;        /* table offset of buf[0] */
	size_t len;            /* bytes valid in buf */
};

/* The name at table offset off: 1 with name and len set, 0 when there is none, -errno. */
static int window__name(struct strtab_window *w, uint64_t off, const char **name, size_t *len)
{
	const char *end;
	int err;

	if (off >= w->size)
		return 0;
	if (off < w->start || off >= w->start + w->len ||
	    !memchr(w->buf + (off - w->start), '\0', w->len - (off - w->start))) {
		w->start = off;
		w->len = w->size - off < w->cap ? (size_t)(w->size - off) : w->cap;
		err = elf_reader__pread(w->r, w->buf, w->len, w->offset + off);
		if (err) {
			w->len = 0;
			return err;
		}
	}
	*name = w->buf + (off - w->start);
	end = memchr(*name, '\0', w->len - (off - w->start));
	/* A name running off the table (corrupt) or past the window (huge) is cut there, and
	 * no name is kept longer than a window, however the table was read. */
	*len = end ? (size_t)(end - *name) : w->len - (off - w->start);
	if (*len > STRTAB_WINDOW)
		*len = STRTAB_WINDOW;
	return *len > 0;
}

struct collect {
	struct strtab_window names;
	elf_symbol_fn fn;
	void *ctx;
	uint64_t budget; /* name bytes still allowed: see elf__each_symbol */
};

static int collect_function(const struct elf_func *f, void *ctx)
{
	struct collect *c = ctx;
	const char *name = NULL;
	size_t len = 0;
	int ret;

	ret = window__name(&c->names, f->name, &name, &len);
	if (ret <= 0)
		return ret;
	if (len + 1 > c->budget)
		return -ENOEXEC;
	c->budget -= len + 1;
	return c->fn(c->ctx, f->addr, f->size, f->size_declared, name, len);
}

int elf__each_symbol(int fd, enum elf_symbols_from from, elf_symbol_fn fn, void *ctx)
{
	return elf__each_symbol_limited(fd, from, NULL, fn, ctx);
}

int elf__each_symbol_limited(int fd, enum elf_symbols_from from, struct elf_limits *limits,
			     elf_symbol_fn fn, void *ctx)
{
	struct collect c = { .fn = fn, .ctx = ctx };
	struct elf_reader r;
	const struct elf_shdr *sh, *strsh;
	int index, err;

	err = elf_reader__open_limited(&r, fd, limits);
	if (err)
		return err;

	index = elf_reader__find_section(&r, from == ELF_SYMBOLS_SYMTAB ? SHT_SYMTAB : SHT_DYNSYM);
	err = -ENOENT;
	if (index < 0)
		goto out_close;
	sh = &r.shdrs[index];
	/* No linker compresses a symbol table; one that is compressed is not read. */
	if (sh->flags & SHF_COMPRESSED)
		goto out_close;
	err = -ENOEXEC;
	if (sh->link == 0 || sh->link >= r.shnum)
		goto out_close;
	strsh = &r.shdrs[sh->link];
	if (strsh->type != SHT_STRTAB || (strsh->flags & SHF_COMPRESSED))
		goto out_close;

	c.names.r = &r;
	c.names.offset = strsh->offset;
	c.names.size = strsh->size;
	/*
	 * Symbols may share a name (and linkers may merge one name into the tail of
	 * another), but a real table never names its functions with many times the bytes
	 * of its string table. Without this bound, a small file whose thousands of symbols
	 * all point at one 64 KB name would make us copy gigabytes.
	 */
	c.budget = 4 * strsh->size + (1u << 20);
	c.names.cap = strsh->size <= STRTAB_WHOLE ? (size_t)strsh->size : STRTAB_WINDOW;
	if (c.names.cap < STRTAB_WINDOW)
		c.names.cap = STRTAB_WINDOW;
	c.names.buf = malloc(c.names.cap);
	err = -ENOMEM;
	if (!c.names.buf)
		goto out_close;
	err = elf_reader__each_function(&r, (uint32_t)index, collect_function, &c);
	free(c.names.buf);
out_close:
	elf_reader__close(&r);
	return err;
}
