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
#include <string.h>

static int add_symbol(void *ctx, uint64_t addr, uint64_t size, bool declared,
		      const char *name, size_t len)
{
	(void)declared;
	return symtab__add(ctx, addr, size, name, len);
}

struct ranges {
	struct symbol *items; /* name unused */
	size_t n, cap;
};

static int add_range(void *ctx, uint64_t start, uint64_t size);

/* A table being read from one ELF table, and where its symbols of no declared size
 * start: those alone are cut to the .eh_frame function at their start. */
struct reading {
	struct symtab *tab;
	struct ranges unsized;
};

static int add_function(void *ctx, uint64_t addr, uint64_t size, bool declared,
			const char *name, size_t len)
{
	struct reading *rd = ctx;
	int err = symtab__add(rd->tab, addr, size, name, len);

	if (!err && !declared)
		err = add_range(&rd->unsized, addr, size);
	return err;
}

static int add_range(void *ctx, uint64_t start, uint64_t size)
{
	struct ranges *r = ctx;

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

static int range__cmp(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* The .eh_frame function starting at addr, or NULL. */
static const struct symbol *range__at(const struct ranges *r, uint64_t addr)
{
	struct symbol key = { .addr = addr };

	return r->n ? bsearch(&key, r->items, r->n, sizeof(key), range__cmp) : NULL;
}

/*
 * What tab's names cover, for deciding which .eh_frame functions are unnamed. A symbol
 * that declares no size (hand-written assembly without .size: unsized, as the reader
 * bounded it by its section) with an FDE at its start covers that FDE; any other covers
 * its size, or its first byte when that is unknown.
 */
static int named_extent(struct symtab *tab, const struct ranges *r,
			const struct ranges *unsized, struct symtab *probe)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		struct symbol *sym = &tab->syms[i];
		const struct symbol *fde = range__at(r, sym->addr);

		/* A size the symbol declares stands: assembly such as libc's clone3 has
		 * several FDEs within its one symbol. */
		if (fde && (sym->size == 0 || range__at(unsized, sym->addr)))
			sym->size = fde->size;
	}
	probe->syms = malloc((tab->nsyms ? tab->nsyms : 1) * sizeof(*probe->syms));
	if (!probe->syms)
		return -ENOMEM;
	if (tab->nsyms)
		memcpy(probe->syms, tab->syms, tab->nsyms * sizeof(*probe->syms));
	probe->nsyms = probe->cap = tab->nsyms;
	probe->names = tab->names; /* borrowed: read by the sort's tie-break only */
	probe->names_len = tab->names_len;
	for (size_t i = 0; i < probe->nsyms; i++) {
		if (probe->syms[i].size == 0)
			probe->syms[i].size = 1;
	}
	return symtab__finish(probe);
}

/*
 * Adds the .eh_frame functions that tab's names do not cover, as unnamed entries, and
 * finishes tab. A file whose .eh_frame cannot be read keeps the names it has.
 */
static int add_unnamed_functions(int fd, struct elf_limits *limits, struct symtab *tab,
				 const struct ranges *unsized)
{
	struct symtab probe = { 0 };
	struct ranges r = { 0 };
	size_t n;
	int err = elf__each_function_range_limited(fd, limits, add_range, &r);

	if (err == -ENOMEM)
		goto out_free;
	if (r.n)
		qsort(r.items, r.n, sizeof(*r.items), range__cmp);
	err = named_extent(tab, &r, unsized, &probe);
	n = r.n;
	for (size_t i = 0; i < n && !err; i++) {
		if (symtab__lookup(&probe, r.items[i].addr, NULL))
			continue;
		err = symtab__add(tab, r.items[i].addr, r.items[i].size, "", 0);
	}
	if (!err)
		err = symtab__finish(tab);
out_free:
	free(probe.syms);
	free(r.items);
	return err;
}

static int add_binary(int fd, struct elf_limits *limits, struct symtab *tab,
		      const struct ranges *unsized)
{
	/* Stubs are a bonus: a PLT we cannot read (or past the limits) leaves the symbols
	 * as they are; so do functions. */
	int err = elf__each_plt_stub_limited(fd, limits, add_symbol, tab);

	if (err && err != -ENOMEM)
		err = 0;
	if (!err)
		err = add_unnamed_functions(fd, limits, tab, unsized);
	return err;
}

int symtab__add_binary(int fd, struct elf_limits *limits, struct symtab *tab)
{
	/* tab's sizes (a debug file's .symtab) are taken as declared. */
	const struct ranges none = { 0 };

	return add_binary(fd, limits, tab, &none);
}

int symtab__read_elf(int fd, enum elf_symbols_from from, struct symtab **out)
{
	return symtab__read_elf_limited(fd, from, NULL, out);
}

int symtab__read_elf_limited(int fd, enum elf_symbols_from from, struct elf_limits *limits,
			     struct symtab **out)
{
	struct symtab *tab = symtab__new();
	struct reading rd = { .tab = tab };
	int err;

	*out = NULL;
	if (!tab)
		return -ENOMEM;
	err = elf__each_symbol_limited(fd, from, limits, add_function, &rd);
	/* Without .dynsym, the last resort, a binary still has its stubs and functions. */
	if (err == -ENOENT && from == ELF_SYMBOLS_DYNSYM)
		err = 0;
	if (rd.unsized.n)
		qsort(rd.unsized.items, rd.unsized.n, sizeof(*rd.unsized.items), range__cmp);
	if (!err)
		err = add_binary(fd, limits, tab, &rd.unsized);
	free(rd.unsized.items);
	if (err) {
		symtab__free(tab);
		return err;
	}
	*out = tab;
	return 0;
}
