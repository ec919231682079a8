// SPDX-License-Identifier: MIT
/*
 * ELF headers by pread, checked against the file (see elf_reader.h). Any header that
 * points outside the file, or a section whose bytes do not all lie in it, makes the file
 * "not a whole ELF file": that is how a truncated upload is told from a real one, since
 * linkers put the section header table last.
 */
#include "elf/elf_reader.h"

#include "util/clock.h"

#include <byteswap.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint16_t elf_reader__u16(const struct elf_reader *r, uint16_t v)
{
	return r->swap ? bswap_16(v) : v;
}

uint32_t elf_reader__u32(const struct elf_reader *r, uint32_t v)
{
	return r->swap ? bswap_32(v) : v;
}

uint64_t elf_reader__u64(const struct elf_reader *r, uint64_t v)
{
	return r->swap ? bswap_64(v) : v;
}

#define ELF_LARGE_READ (64u << 10)
#define ELF_READS_PER_CLOCK 64

int elf_reader__pread(const struct elf_reader *r, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	if (!elf_reader__in_file(r, off, len))
		return -ENOEXEC;
	if (r->limits) {
		if (len > r->limits->bytes_left)
			return -EFBIG;
		r->limits->bytes_left -= len;
		/* The thread's CPU clock is a system call, and a binary's PLT names are read a
		 * few bytes at a time: the deadline is looked at on every large read and on
		 * every ELF_READS_PER_CLOCK-th small one. */
		if (len >= ELF_LARGE_READ ||
		    ++r->limits->reads_unclocked >= ELF_READS_PER_CLOCK) {
			r->limits->reads_unclocked = 0;
			if (clock_budget__over(&r->limits->deadline))
				return -ETIMEDOUT;
		}
	}
	while (len) {
		ssize_t n = pread(r->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* The file shrank under us: what is left is not a whole file. */
		if (n == 0)
			return -ENOEXEC;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Decodes section header i from raw (one entry of the table, of the file's class). */
static void decode_shdr(const struct elf_reader *r, const void *raw, struct elf_shdr *sh)
{
	if (r->is64) {
		Elf64_Shdr s;

		memcpy(&s, raw, sizeof(s));
		sh->name = elf_reader__u32(r, s.sh_name);
		sh->type = elf_reader__u32(r, s.sh_type);
		sh->flags = elf_reader__u64(r, s.sh_flags);
		sh->addr = elf_reader__u64(r, s.sh_addr);
		sh->offset = elf_reader__u64(r, s.sh_offset);
		sh->size = elf_reader__u64(r, s.sh_size);
		sh->link = elf_reader__u32(r, s.sh_link);
		sh->info = elf_reader__u32(r, s.sh_info);
		sh->addralign = elf_reader__u64(r, s.sh_addralign);
		sh->entsize = elf_reader__u64(r, s.sh_entsize);
	} else {
		Elf32_Shdr s;

		memcpy(&s, raw, sizeof(s));
		sh->name = elf_reader__u32(r, s.sh_name);
		sh->type = elf_reader__u32(r, s.sh_type);
		sh->flags = elf_reader__u32(r, s.sh_flags);
		sh->addr = elf_reader__u32(r, s.sh_addr);
		sh->offset = elf_reader__u32(r, s.sh_offset);
		sh->size = elf_reader__u32(r, s.sh_size);
		sh->link = elf_reader__u32(r, s.sh_link);
		sh->info = elf_reader__u32(r, s.sh_info);
		sh->addralign = elf_reader__u32(r, s.sh_addralign);
		sh->entsize = elf_reader__u32(r, s.sh_entsize);
	}
}

int elf_reader__phdr(const struct elf_reader *r, uint32_t i, struct elf_phdr *ph)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	unsigned char raw[sizeof(Elf64_Phdr)];
	int err;

	if (i >= r->phnum)
		return -ENOENT;
	err = elf_reader__pread(r, raw, entsize, r->phoff + (uint64_t)i * entsize);
	if (err)
		return err;
	if (r->is64) {
		Elf64_Phdr p;

		memcpy(&p, raw, sizeof(p));
		ph->type = elf_reader__u32(r, p.p_type);
		ph->flags = elf_reader__u32(r, p.p_flags);
		ph->offset = elf_reader__u64(r, p.p_offset);
		ph->vaddr = elf_reader__u64(r, p.p_vaddr);
		ph->filesz = elf_reader__u64(r, p.p_filesz);
		ph->memsz = elf_reader__u64(r, p.p_memsz);
		ph->align = elf_reader__u64(r, p.p_align);
	} else {
		Elf32_Phdr p;

		memcpy(&p, raw, sizeof(p));
		ph->type = elf_reader__u32(r, p.p_type);
		ph->flags = elf_reader__u32(r, p.p_flags);
		ph->offset = elf_reader__u32(r, p.p_offset);
		ph->vaddr = elf_reader__u32(r, p.p_vaddr);
		ph->filesz = elf_reader__u32(r, p.p_filesz);
		ph->memsz = elf_reader__u32(r, p.p_memsz);
		ph->align = elf_reader__u32(r, p.p_align);
	}
	return 0;
}

/* The fields of the file header we use, whatever the class. */
struct ehdr {
	uint16_t type, machine;
	uint64_t phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
};

static int read_ehdr(struct elf_reader *r, struct ehdr *eh)
{
	unsigned char ident[EI_NIDENT];
	int err;

	err = elf_reader__pread(r, ident, sizeof(ident), 0);
	if (err)
		return err;
	if (memcmp(ident, ELFMAG, SELFMAG) != 0 || ident[EI_VERSION] != EV_CURRENT)
		return -ENOEXEC;
	switch (ident[EI_CLASS]) {
	case ELFCLASS32: r->is64 = false; break;
	case ELFCLASS64: r->is64 = true; break;
	default: return -ENOEXEC;
	}
	switch (ident[EI_DATA]) {
	case ELFDATA2LSB: r->swap = __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__; break;
	case ELFDATA2MSB: r->swap = __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__; break;
	default: return -ENOEXEC;
	}

	if (r->is64) {
		Elf64_Ehdr e;

		err = elf_reader__pread(r, &e, sizeof(e), 0);
		if (err)
			return err;
		eh->type = elf_reader__u16(r, e.e_type);
		eh->machine = elf_reader__u16(r, e.e_machine);
		eh->phoff = elf_reader__u64(r, e.e_phoff);
		eh->shoff = elf_reader__u64(r, e.e_shoff);
		eh->phentsize = elf_reader__u16(r, e.e_phentsize);
		eh->phnum = elf_reader__u16(r, e.e_phnum);
		eh->shentsize = elf_reader__u16(r, e.e_shentsize);
		eh->shnum = elf_reader__u16(r, e.e_shnum);
		eh->shstrndx = elf_reader__u16(r, e.e_shstrndx);
	} else {
		Elf32_Ehdr e;

		err = elf_reader__pread(r, &e, sizeof(e), 0);
		if (err)
			return err;
		eh->type = elf_reader__u16(r, e.e_type);
		eh->machine = elf_reader__u16(r, e.e_machine);
		eh->phoff = elf_reader__u32(r, e.e_phoff);
		eh->shoff = elf_reader__u32(r, e.e_shoff);
		eh->phentsize = elf_reader__u16(r, e.e_phentsize);
		eh->phnum = elf_reader__u16(r, e.e_phnum);
		eh->shentsize = elf_reader__u16(r, e.e_shentsize);
		eh->shnum = elf_reader__u16(r, e.e_shnum);
		eh->shstrndx = elf_reader__u16(r, e.e_shstrndx);
	}
	return 0;
}

/*
 * The section header table, whole (it is small), decoded. Section 0 carries the real
 * counts when they do not fit the file header (extended numbering).
 */
static int read_sections(struct elf_reader *r, const struct ehdr *eh, uint32_t *shstrndx,
			 uint32_t *phnum)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	struct elf_shdr first;
	unsigned char *raw = NULL;
	uint64_t shnum = eh->shnum;
	int err;

	*shstrndx = eh->shstrndx;
	*phnum = eh->phnum;
	if (eh->shoff == 0)
		return eh->shnum == 0 ? 0 : -ENOEXEC;
	if (eh->shentsize != entsize)
		return -ENOEXEC;

	raw = malloc(entsize);
	if (!raw)
		return -ENOMEM;
	err = elf_reader__pread(r, raw, entsize, eh->shoff);
	if (err)
		goto out_free;
	decode_shdr(r, raw, &first);
	if (shnum == 0)
		shnum = first.size;
	if (eh->shstrndx == SHN_XINDEX)
		*shstrndx = first.link;
	if (eh->phnum == PN_XNUM)
		*phnum = first.info;
	err = -E2BIG;
	if (r->limits && shnum > r->limits->max_sections)
		goto out_free;
	err = -ENOEXEC;
	if (shnum == 0 || shnum > ELF_MAX_SECTIONS ||
	    !elf_reader__in_file(r, eh->shoff, shnum * entsize))
		goto out_free;

	free(raw);
	raw = malloc(shnum * entsize);
	r->shdrs = calloc(shnum, sizeof(*r->shdrs));
	err = -ENOMEM;
	if (!raw || !r->shdrs)
		goto out_free;
	err = elf_reader__pread(r, raw, shnum * entsize, eh->shoff);
	if (err)
		goto out_free;
	r->shnum = (uint32_t)shnum;
	for (uint32_t i = 0; i < r->shnum; i++) {
		struct elf_shdr *sh = &r->shdrs[i];

		decode_shdr(r, raw + (size_t)i * entsize, sh);
		/* Every byte a section claims must be in the file: a cut file fails here. */
		if (sh->type != SHT_NULL && sh->type != SHT_NOBITS &&
		    !elf_reader__in_file(r, sh->offset, sh->size)) {
			err = -ENOEXEC;
			goto out_free;
		}
	}
	err = 0;
out_free:
	free(raw);
	return err;
}

static int read_shstrtab(struct elf_reader *r, uint32_t shstrndx)
{
	const struct elf_shdr *sh;
	int err;

	if (shstrndx == SHN_UNDEF || r->shnum == 0)
		goto none;
	if (shstrndx >= r->shnum)
		return -ENOEXEC;
	sh = &r->shdrs[shstrndx];
	if (sh->type != SHT_STRTAB || sh->size > ELF_MAX_SHSTRTAB)
		return -ENOEXEC;
	r->shstrtab = malloc(sh->size + 1);
	if (!r->shstrtab)
		return -ENOMEM;
	err = elf_reader__pread(r, r->shstrtab, sh->size, sh->offset);
	if (err)
		return err;
	r->shstrtab[sh->size] = '\0';
	r->shstrtab_len = sh->size;
	return 0;
none:
	r->shstrtab = calloc(1, 1);
	return r->shstrtab ? 0 : -ENOMEM;
}

/* Loadable segments must lie in the file, as sections must. */
static int check_segments(const struct elf_reader *r, uint16_t phentsize)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	if (r->phnum == 0)
		return 0;
	if (phentsize != entsize || r->phnum > ELF_MAX_PHDRS ||
	    !elf_reader__in_file(r, r->phoff, (uint64_t)r->phnum * entsize))
		return -ENOEXEC;
	for (uint32_t i = 0; i < r->phnum; i++) {
		struct elf_phdr ph;
		int err = elf_reader__phdr(r, i, &ph);

		if (err)
			return err;
		if (ph.type == PT_LOAD && !elf_reader__in_file(r, ph.offset, ph.filesz))
			return -ENOEXEC;
	}
	return 0;
}

int elf_reader__open(struct elf_reader *r, int fd)
{
	return elf_reader__open_limited(r, fd, NULL);
}

int elf_reader__open_limited(struct elf_reader *r, int fd, struct elf_limits *limits)
{
	struct ehdr eh;
	uint32_t shstrndx, phnum;
	struct stat st;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->limits = limits;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	r->size = (uint64_t)st.st_size;

	err = read_ehdr(r, &eh);
	if (err)
		goto out_close;
	r->type = eh.type;
	r->machine = eh.machine;
	r->phoff = eh.phoff;
	err = read_sections(r, &eh, &shstrndx, &phnum);
	if (err)
		goto out_close;
	r->phnum = phnum;
	err = read_shstrtab(r, shstrndx);
	if (err)
		goto out_close;
	err = check_segments(r, eh.phentsize);
	if (err)
		goto out_close;
	return 0;

out_close:
	elf_reader__close(r);
	return err;
}

void elf_reader__close(struct elf_reader *r)
{
	free(r->shdrs);
	free(r->shstrtab);
	r->shdrs = NULL;
	r->shstrtab = NULL;
	r->shnum = 0;
}

const char *elf_reader__section_name(const struct elf_reader *r, uint32_t i)
{
	if (i >= r->shnum || r->shdrs[i].name >= r->shstrtab_len)
		return "";
	return r->shstrtab + r->shdrs[i].name;
}

int elf_reader__find_section(const struct elf_reader *r, uint32_t type)
{
	for (uint32_t i = 0; i < r->shnum; i++) {
		if (r->shdrs[i].type == type)
			return (int)i;
	}
	return -1;
}
