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

/* 16 bytes: a million functions cost 16 MB besides their names. A symbol whose name is
 * "" is a function known only by its bounds (.eh_frame of a stripped binary): lookups
 * return "" for it, and the symbolizer names it by its start, "app+0x4a1f20". */
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
/* Adds to tab (finished) the symbols of from whose start no symbol of tab holds: what a
 * second source knows that the first does not. Finishes tab. 0 or -ENOMEM. */
int symtab__fill(struct symtab *tab, const struct symtab *from);
/* Symbols with a name (not the unnamed functions). */
size_t symtab__named(const struct symtab *tab);

/* The function holding addr (and addr's offset into it), or NULL; "" for an unnamed
 * function (its start is addr - *offset). */
const char *symtab__lookup(const struct symtab *tab, uint64_t addr, uint64_t *offset);

/* The function symbols of one of an ELF file's tables (elf__each_symbol), its PLT stubs
 * (elf__each_plt_stub), and the functions neither names as unnamed entries
 * (elf__each_function_range). 0, -ENOENT (no .symtab; without .dynsym, the last resort,
 * the table holds stubs and unnamed functions), -ENOEXEC (corrupt), -errno. */
int symtab__read_elf(int fd, enum elf_symbols_from from, struct symtab **out);
/* The same within limits (elf/elf_reader.h; NULL: none), with their errors. */
int symtab__read_elf_limited(int fd, enum elf_symbols_from from, struct elf_limits *limits,
			     struct symtab **out);

/* What the binary in fd adds to the names in tab (from it, or from its debug file): its
 * PLT stubs, then the .eh_frame functions no name covers, unnamed, as far as limits
 * (NULL: none) let it read. Finishes tab. 0 or -ENOMEM. */
int symtab__add_binary(int fd, struct elf_limits *limits, struct symtab *tab);

/* Where distributions install debug files: ROOT/.build-id/xx/rest.debug. */
#define DEBUG_FILES_ROOT "/usr/lib/debug"

/* The debug file installed for build_id under root, opened as
 * symtab__read_installed_debug opens it (beneath root, a file we trust, at most 1 GB):
 * a descriptor, or -ENOENT, -EPERM, -EFBIG, -errno. Its build id is not checked. */
int symtab__open_installed_debug(const char *root, const char *build_id);

/*
 * The .symtab of the debug file installed for build_id (lowercase hex) under root
 * (DEBUG_FILES_ROOT), resolved beneath root without leaving it by a symlink, and read
 * only when it is a regular file owned by root (or us), writable by no one else, at most
 * 1 GB, and of that build id. 0 and *out; -ENOENT (none, or not of that build), -EPERM
 * (not a file we trust), -EFBIG, -ENOEXEC, -errno.
 */
int symtab__read_installed_debug(const char *root, const char *build_id,
				 struct elf_limits *limits, struct symtab **out);

/*
 * What a capture keeps for a binary it sampled (fd open on it, build_id from its
 * elf_info, "" when none), best names first (architecture.md; an upload, kept elsewhere, beats
 * them all): the debug file installed for its build id under debug_root (NULL: none),
 * else its own .symtab, else its .dynsym; always with the binary's PLT stubs and its
 * unnamed .eh_frame functions. *from says which kind of table it is (an installed debug
 * file is a .symtab). Within limits (NULL: none; the debug file counts against them
 * too), with their errors. 0, -ENOEXEC, -errno.
 */
int symtab__read_binary(int fd, const char *build_id, const char *debug_root,
			struct elf_limits *limits, struct symtab **out,
			enum elf_symbols_from *from);

/* A compact, compressed form for the store, and back. deserialize checks everything
 * and returns NULL with errno EBADMSG for a blob that is not a whole table. */
int symtab__serialize(const struct symtab *tab, void **blob, size_t *len);
struct symtab *symtab__deserialize(const void *blob, size_t len);

#endif
