/* SPDX-License-Identifier: MIT */
/*
 * The part of the ELF reader that the public functions share: the file header, the
 * section headers and their names, read with pread and checked against the file. Both
 * classes (32/64-bit) and both byte orders are turned into one host-order form here, so
 * nothing above this layer looks at raw ELF structures.
 *
 * Nothing is mapped and nothing is read whole except the section header table and the
 * section name table, both small and capped: a 1 GB debug file costs a few kilobytes
 * here, and the symbol table is read in pieces by its reader.
 */
#ifndef SLIDEOPS_ELF_READER_H
#define SLIDEOPS_ELF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/clock.h"

/* Real binaries have dozens of sections; relocatable objects of huge C++ programs reach
 * tens of thousands (hence extended numbering). More than this is not a file we read. */
#define ELF_MAX_SECTIONS (1u << 18)
#define ELF_MAX_SHSTRTAB (16u << 20)
#define ELF_MAX_PHDRS 65535u

struct elf_shdr {
	uint32_t name;  /* offset into the section name table */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t addralign;
	uint64_t entsize;
};

struct elf_phdr {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};

/*
 * What reading one binary may cost. A capture reads binaries any user can write, so each
 * has caps beyond the reader's own sanity bounds; an upload (a person's own file, up to
 * 1 GB) has none but those. Every read counts against bytes_left.
 */
struct elf_limits {
	uint32_t max_sections;  /* more: -E2BIG */
	uint64_t max_symbols;   /* entries of one symbol table walked; more: -EOVERFLOW */
	uint64_t bytes_left;    /* more: -EFBIG */
	struct clock_budget deadline; /* {0, 0}: none; past it: -ETIMEDOUT */
	uint32_t reads_unclocked; /* small reads since the deadline was last looked at */
};

struct elf_reader {
	int fd;
	struct elf_limits *limits; /* NULL: none */
	uint64_t size;  /* of the file: every offset is checked against it */
	bool is64;
	bool swap;      /* the file's byte order is not the host's */
	uint16_t type;
	uint16_t machine;
	uint64_t phoff;
	uint32_t phnum;
	struct elf_shdr *shdrs;
	uint32_t shnum;
	char *shstrtab; /* NUL-terminated copy; "" when the file has none */
	uint64_t shstrtab_len;
};

/* Reads and checks the headers of fd. 0, -ENOEXEC (not a whole, well-formed ELF file),
 * -ENOMEM, or -errno of a failed read. */
int elf_reader__open(struct elf_reader *r, int fd);
/* The same within limits (which may be NULL); they are updated as the file is read.
 * Besides the errors above: -E2BIG, -EOVERFLOW, -EFBIG, -ETIMEDOUT (struct elf_limits). */
int elf_reader__open_limited(struct elf_reader *r, int fd, struct elf_limits *limits);
void elf_reader__close(struct elf_reader *r);

/* Reads exactly len bytes at off: -ENOEXEC when they are not all inside the file. */
int elf_reader__pread(const struct elf_reader *r, void *buf, size_t len, uint64_t off);

/* Program header i (i < phnum), checked and in host order. */
int elf_reader__phdr(const struct elf_reader *r, uint32_t i, struct elf_phdr *ph);

/* The name of section i; "" when it has none or the name is out of range. */
const char *elf_reader__section_name(const struct elf_reader *r, uint32_t i);

/* The first section of this type, or -1. */
int elf_reader__find_section(const struct elf_reader *r, uint32_t type);

/* True when [off, off + len) lies inside the file (no overflow). */
static inline bool elf_reader__in_file(const struct elf_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->size && len <= r->size - off;
}

/* A function symbol of a symbol table, in host order. */
struct elf_func {
	uint64_t addr;
	uint64_t size;
	bool size_declared; /* false: the symbol's size was 0, bounded here by its section */
	uint32_t name;  /* offset into the table's string table */
};

/*
 * Calls fn for each function symbol (STT_FUNC or STT_GNU_IFUNC, defined in a section) of
 * the symbol table in section index, reading the table in pieces. fn returns 0 to go on,
 * 1 to stop, or -errno. Returns 0, the first non-zero of fn, -ENOEXEC, or -errno.
 */
int elf_reader__each_function(const struct elf_reader *r, uint32_t index,
			      int (*fn)(const struct elf_func *f, void *ctx), void *ctx);

uint16_t elf_reader__u16(const struct elf_reader *r, uint16_t v);
uint32_t elf_reader__u32(const struct elf_reader *r, uint32_t v);
uint64_t elf_reader__u64(const struct elf_reader *r, uint64_t v);

#endif
