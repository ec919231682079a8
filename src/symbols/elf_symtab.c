// SPDX-License-Identifier: MIT
/* A binary's own names: the symbol table of one of its ELF tables (src/elf reads it). */
#include "symbols/symtab.h"

#include <errno.h>

static int add_symbol(void *ctx, uint64_t addr, uint64_t size, const char *name, size_t len)
{
	return symtab__add(ctx, addr, size, name, len);
}

int symtab__read_elf(int fd, enum elf_symbols_from from, struct symtab **out)
{
	return symtab__read_elf_limited(fd, from, NULL, out);
}

int symtab__read_elf_limited(int fd, enum elf_symbols_from from, struct elf_limits *limits,
			     struct symtab **out)
{
	struct symtab *tab = symtab__new();
	int err;

	*out = NULL;
	if (!tab)
		return -ENOMEM;
	err = elf__each_symbol_limited(fd, from, limits, add_symbol, tab);
	if (!err)
		err = symtab__finish(tab);
	if (err) {
		symtab__free(tab);
		return err;
	}
	*out = tab;
	return 0;
}
