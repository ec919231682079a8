// SPDX-License-Identifier: MIT
/*
 * A binary's own names, as one table (src/elf reads the file): the function symbols of
 * one of its ELF tables (or of the debug file installed for it), its PLT stubs
 * ("memcpy@plt"), and the functions no symbol names, from .eh_frame, as unnamed
 * entries, so that a stripped binary's addresses group by the function that holds them.
 */
#include "symbols/symtab.h"

#include <errno.h>
#include <stdlib.h>

static int add_symbol(void *ctx, uint64_t addr, uint64_t size, const char *name, size_t len)
{
	return symtab__add(ctx, addr, size, name, len);
}

struct ranges {
	const struct symtab *named;
	struct symbol *items; /* name unused */
	size_t n, cap;
};

/* Keeps a function range that no named symbol covers. */
static int add_range(void *ctx, uint64_t start, uint64_t size)
{
	struct ranges *r = ctx;

	if (symtab__lookup(r->named, start, NULL))
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct symbol *p = realloc(r->items, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->items = p;
		r->cap = cap;
	}
	r->items[r->n].addr = start;
	r->items[r->n].size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	r->n++;
	return 0;
}

/*
 * Adds the .eh_frame functions that tab (finished) does not name, as unnamed entries,
 * and finishes it again. A file whose .eh_frame cannot be read keeps the names it has.
 */
static int add_unnamed_functions(int fd, struct symtab *tab)
{
	struct ranges r = { .named = tab };
	int err = elf__each_function_range(fd, add_range, &r);

	if (err == -ENOMEM) {
		free(r.items);
		return err;
	}
	err = 0;
	for (size_t i = 0; i < r.n && !err; i++)
		err = symtab__add(tab, r.items[i].addr, r.items[i].size, "", 0);
	free(r.items);
	if (!err && r.n)
		err = symtab__finish(tab);
	return err;
}

int symtab__add_binary(int fd, struct symtab *tab)
{
	/* Stubs are a bonus: a PLT we cannot read leaves the symbols as they are. */
	int err = elf__each_plt_stub(fd, add_symbol, tab);

	if (err && err != -ENOMEM)
		err = 0;
	if (!err)
		err = symtab__finish(tab);
	if (!err)
		err = add_unnamed_functions(fd, tab);
	return err;
}

int symtab__read_elf(int fd, enum elf_symbols_from from, struct symtab **out)
{
	struct symtab *tab = symtab__new();
	int err;

	*out = NULL;
	if (!tab)
		return -ENOMEM;
	err = elf__each_symbol(fd, from, add_symbol, tab);
	/* Without .dynsym, the last resort, a binary still has its stubs and functions. */
	if (err == -ENOENT && from == ELF_SYMBOLS_DYNSYM)
		err = 0;
	if (!err)
		err = symtab__add_binary(fd, tab);
	if (err) {
		symtab__free(tab);
		return err;
	}
	*out = tab;
	return 0;
}
