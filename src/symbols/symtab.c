// SPDX-License-Identifier: MIT
/*
 * Symbol tables: built once per binary or upload, then looked up for every sampled
 * address of every profile shown, so lookups outnumber inserts by far. A sorted array
 * of 16-byte entries and one buffer of names: a million functions fit in 16 MB plus
 * their names, and a lookup is a binary search (~20 steps). Sorting is in place, so
 * building a table never needs twice its size.
 *
 * Their stored form (symtab__serialize, symtab__deserialize) is in symtab_stored.c.
 */
#include "symbols/symtab.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A last function of unknown size is taken to run this far, no further. */
#define SYMTAB_LAST_SIZE 4096
/* Enclosing functions looked back for when a nested symbol ends before the address. */
#define SYMTAB_LOOKBACK 16

struct symtab *symtab__new(void)
{
	struct symtab *tab = calloc(1, sizeof(*tab));

	return tab; /* errno is ENOMEM from calloc */
}

void symtab__free(struct symtab *tab)
{
	if (!tab)
		return;
	free(tab->syms);
	free(tab->names);
	free(tab);
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*buf, ncap * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

int symtab__add(struct symtab *tab, uint64_t addr, uint64_t size, const char *name,
		size_t name_len)
{
	struct symbol *sym;
	int err;

	/* Name offsets are 32-bit: 4 GB of names is far beyond any binary. */
	if (name_len >= UINT32_MAX || tab->names_len > UINT32_MAX - name_len - 1)
		return -ENOMEM;
	err = grow((void **)&tab->syms, &tab->cap, tab->nsyms + 1, sizeof(*tab->syms), 1024);
	if (err)
		return err;
	err = grow((void **)&tab->names, &tab->names_cap, tab->names_len + name_len + 1, 1,
		   16384);
	if (err)
		return err;
	sym = &tab->syms[tab->nsyms++];
	sym->addr = addr;
	sym->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	sym->name = (uint32_t)tab->names_len;
	memcpy(tab->names + tab->names_len, name, name_len);
	tab->names[tab->names_len + name_len] = '\0';
	tab->names_len += name_len + 1;
	return 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * By address; among aliases at one address, the one to keep first: a name, a known size, then
 * the larger, then the fewest leading underscores ("memcpy" over "__memcpy_avx"), then
 * the shorter name, then by name so the choice never depends on input order.
 */
static int __attribute__((noinline)) tie_break(const struct symbol *x, const struct symbol *y,
						const char *names)
{
	const char *nx = names + x->name, *ny = names + y->name;
	size_t ux, uy, lx, ly;

	/* A name over none: an FDE's range never hides the symbol at its start. */
	if ((nx[0] == '\0') != (ny[0] == '\0'))
		return nx[0] == '\0' ? 1 : -1;
	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? 1 : -1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	ux = leading_underscores(nx);
	uy = leading_underscores(ny);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(nx);
	ly = strlen(ny);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(nx, ny);
}

/* Addresses differ almost always: that test is inlined into the sort, the rest is not. */
static inline int compare(const struct symbol *x, const struct symbol *y, const char *names)
{
	if (__builtin_expect(x->addr != y->addr, 1))
		return x->addr < y->addr ? -1 : 1;
	return tie_break(x, y, names);
}

static void swap(struct symbol *a, struct symbol *b)
{
	struct symbol t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct symbol *a, size_t root, size_t n, const char *names)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && compare(&a[child], &a[child + 1], names) < 0)
			child++;
		if (compare(&a[root], &a[child], names) >= 0)
			return;
		swap(&a[root], &a[child]);
	}
}

static void heap_sort(struct symbol *a, size_t n, const char *names)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n, names);
	for (size_t end = n; end-- > 1;) {
		swap(&a[0], &a[end]);
		sift_down(a, 0, end, names);
	}
}

/*
 * In place, unlike glibc's qsort (a merge sort with a copy of the whole array): quicksort
 * with Hoare's partition around the middle element, insertion sort for short runs, and
 * heapsort when the recursion gets too deep, so no input makes it quadratic.
 */
static void intro_sort(struct symbol *a, size_t n, const char *names, int depth)
{
	while (n > 16) {
		struct symbol pivot;
		ptrdiff_t i = -1, j = (ptrdiff_t)n;

		if (depth-- == 0) {
			heap_sort(a, n, names);
			return;
		}
		pivot = a[n / 2];
		for (;;) {
			do
				i++;
			while (compare(&a[i], &pivot, names) < 0);
			do
				j--;
			while (compare(&a[j], &pivot, names) > 0);
			if (i >= j)
				break;
			swap(&a[i], &a[j]);
		}
		/* [0, j] and [j + 1, n): recurse into the smaller, loop on the larger. */
		if ((size_t)j + 1 < n - (size_t)j - 1) {
			intro_sort(a, (size_t)j + 1, names, depth);
			a += j + 1;
			n -= (size_t)j + 1;
		} else {
			intro_sort(a + j + 1, n - (size_t)j - 1, names, depth);
			n = (size_t)j + 1;
		}
	}
	for (size_t k = 1; k < n; k++) {
		struct symbol t = a[k];
		size_t m = k;

		for (; m > 0 && compare(&a[m - 1], &t, names) > 0; m--)
			a[m] = a[m - 1];
		a[m] = t;
	}
}

static void sort_symbols(struct symtab *tab)
{
	int depth = 0;

	/* Linkers write most of a table in address order: often nothing is left to do. */
	for (size_t i = 1; i < tab->nsyms; i++) {
		if (compare(&tab->syms[i - 1], &tab->syms[i], tab->names) > 0)
			goto unsorted;
	}
	return;
unsorted:
	for (size_t n = tab->nsyms; n > 1; n >>= 1)
		depth += 2;
	intro_sort(tab->syms, tab->nsyms, tab->names, depth);
}

int symtab__finish(struct symtab *tab)
{
	size_t n = 0;

	if (tab->nsyms == 0)
		return 0;
	sort_symbols(tab);
	for (size_t i = 0; i < tab->nsyms; i++) {
		if (n > 0 && tab->syms[n - 1].addr == tab->syms[i].addr)
			continue;
		/* Nothing fits at the very last address: a symbol there is corrupt input. */
		if (tab->syms[i].addr == UINT64_MAX)
			continue;
		tab->syms[n++] = tab->syms[i];
	}
	tab->nsyms = n;
	for (size_t i = 0; i < n; i++) {
		struct symbol *sym = &tab->syms[i];
		uint64_t room = i + 1 < n ? tab->syms[i + 1].addr - sym->addr : SYMTAB_LAST_SIZE;

		if (sym->size == 0)
			sym->size = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
		/* No function wraps past the end of the address space (addr < UINT64_MAX
		 * here, so at least one byte is left). */
		if (sym->size > UINT64_MAX - sym->addr)
			sym->size = (uint32_t)(UINT64_MAX - sym->addr);
		if (sym->size == 0)
			sym->size = 1;
	}
	return 0;
}

int symtab__fill(struct symtab *tab, const struct symtab *from)
{
	size_t n = tab->nsyms, added = 0;
	int err = 0;

	for (size_t i = 0; i < from->nsyms && !err; i++) {
		const struct symbol *sym = &from->syms[i];
		struct symtab head = *tab;

		/* Look up among tab's own (sorted) symbols only, not those added here. */
		head.nsyms = n;
		if (symtab__lookup(&head, sym->addr, NULL))
			continue;
		err = symtab__add(tab, sym->addr, sym->size, from->names + sym->name,
				  strlen(from->names + sym->name));
		added++;
	}
	if (!err && added)
		err = symtab__finish(tab);
	return err;
}

size_t symtab__named(const struct symtab *tab)
{
	size_t n = 0;

	for (size_t i = 0; tab && i < tab->nsyms; i++)
		n += tab->names[tab->syms[i].name] != '\0';
	return n;
}

const char *symtab__lookup(const struct symtab *tab, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi, stop;

	if (!tab || tab->nsyms == 0)
		return NULL;
	/* The last symbol starting at or before addr. */
	hi = tab->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* Usually that symbol holds addr; when a symbol nested in a function ends before
	 * addr, the function around it does, a few entries back. */
	stop = lo > SYMTAB_LOOKBACK ? lo - SYMTAB_LOOKBACK : 0;
	for (size_t i = lo; i-- > stop;) {
		const struct symbol *sym = &tab->syms[i];

		if (addr - sym->addr < sym->size) {
			if (offset)
				*offset = addr - sym->addr;
			return tab->names + sym->name;
		}
	}
	return NULL;
}
