/* SPDX-License-Identifier: MIT */
/*
 * A symbol table: function names by address range, for one build. Built once (from an
 * ELF file or an upload), looked up many times: lookups outnumber inserts by far, so
 * it is a sorted array and a binary search. Names live in one buffer.
 */
#ifndef SLIDEOPS_SYMBOLS_SYMTAB_H
#define SLIDEOPS_SYMBOLS_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elf_file.h"

/* 16 bytes: a million functions cost 16 MB besides their names. */
struct symbol {
	uint64_t addr;
	uint32_t size;   /* 0 in input: runs to the next symbol (fixed by symtab__finish);
			    no function is 4 GB, larger sizes are cut to UINT32_MAX */
	uint32_t name;   /* offset into names */
};

struct symtab {
	struct symbol *syms;
	size_t nsyms, cap;
	char *names;
	size_t names_len, names_cap;
};

struct symtab *symtab__new(void);
void symtab__free(struct symtab *tab);

/* 0 or -ENOMEM. */
int symtab__add(struct symtab *tab, uint64_t addr, uint64_t size, const char *name,
		size_t name_len);
/* Sorts, drops duplicates, bounds zero sizes. Call once after the last add. */
int symtab__finish(struct symtab *tab);

/* The function holding addr (and addr's offset into it), or NULL. */
const char *symtab__lookup(const struct symtab *tab, uint64_t addr, uint64_t *offset);

/* The function symbols of one of an ELF file's tables (elf__each_symbol), as a table.
 * 0, -ENOENT (no such table), -ENOEXEC (corrupt), -errno. */
int symtab__read_elf(int fd, enum elf_symbols_from from, struct symtab **out);
/* The same within limits (elf/elf_reader.h; NULL: none), with their errors. */
int symtab__read_elf_limited(int fd, enum elf_symbols_from from, struct elf_limits *limits,
			     struct symtab **out);

/* A compact, compressed form for the store, and back. deserialize checks everything
 * and returns NULL with errno EBADMSG for a blob that is not a whole table. */
int symtab__serialize(const struct symtab *tab, void **blob, size_t *len);
struct symtab *symtab__deserialize(const void *blob, size_t len);

#endif
