// SPDX-License-Identifier: MIT
/*
 * Symbol tables: built once per binary or upload, then looked up for every sampled
 * address of every profile shown, so lookups outnumber inserts by far. A sorted array
 * of 16-byte entries and one buffer of names: a million functions fit in 16 MB plus
 * their names, and a lookup is a binary search (~20 steps). Sorting is in place, so
 * building a table never needs twice its size.
 *
 * The stored form is zlib-compressed: a fixed header, then per symbol the address as a
 * delta from the previous one and the size, as LEB128 varints, then the names in symbol
 * order, each NUL-terminated. Deltas keep the numbers small, so a table packs to a few
 * bytes a symbol plus its compressed names.
 */
#include "symbols/symtab.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/byte_cursor.h"

#define SYMTAB_MAGIC "SOSYMTB1"
#define SYMTAB_HEADER_LEN 32 /* magic, nsyms, names_len, payload_len */
/* A last function of unknown size is taken to run this far, no further. */
#define SYMTAB_LAST_SIZE 4096
/* Enclosing functions looked back for when a nested symbol ends before the address. */
#define SYMTAB_LOOKBACK 16
/* More than any real binary holds; a stored blob claiming more is not trusted. */
#define SYMTAB_MAX_SYMS (64u << 20)
#define SYMTAB_MAX_NAMES (2ull << 30)
#define SYMTAB_MAX_RATIO 128
#define SYMTAB_MIN_BUDGET (1ull << 20)

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

/* ---- stored form ---- */

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* A deflate stream fed from a small staging buffer into a growing output buffer. */
struct packer {
	z_stream z;
	unsigned char *out;
	size_t cap;
	unsigned char stage[64 << 10];
	size_t staged;
};

static int packer__drain(struct packer *pk, int flush)
{
	pk->z.next_in = pk->stage;
	pk->z.avail_in = (uInt)pk->staged;
	do {
		size_t used = SYMTAB_HEADER_LEN + pk->z.total_out;
		int ret;

		if (pk->z.avail_out == 0) {
			size_t ncap = pk->cap * 2;
			unsigned char *p = realloc(pk->out, ncap);

			if (!p)
				return -ENOMEM;
			pk->out = p;
			pk->cap = ncap;
			pk->z.next_out = p + used;
			pk->z.avail_out = (uInt)(ncap - used > UINT32_MAX ? UINT32_MAX : ncap - used);
		}
		ret = deflate(&pk->z, flush);
		if (ret == Z_STREAM_ERROR)
			return -EINVAL;
		if (ret == Z_STREAM_END)
			break;
	} while (pk->z.avail_in > 0 || pk->z.avail_out == 0 ||
		 (flush == Z_FINISH));
	pk->staged = 0;
	return 0;
}

static int packer__put(struct packer *pk, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		size_t n = sizeof(pk->stage) - pk->staged;
		int err;

		if (n > len)
			n = len;
		memcpy(pk->stage + pk->staged, p, n);
		pk->staged += n;
		p += n;
		len -= n;
		if (pk->staged == sizeof(pk->stage)) {
			err = packer__drain(pk, Z_NO_FLUSH);
			if (err)
				return err;
		}
	}
	return 0;
}

int symtab__serialize(const struct symtab *tab, void **blob, size_t *len)
{
	struct packer *pk;
	uint64_t prev = 0, payload_len = 0, names_len = 0;
	unsigned char header[SYMTAB_HEADER_LEN];
	int err;

	*blob = NULL;
	*len = 0;
	for (size_t i = 0; i < tab->nsyms; i++) {
		unsigned char tmp[20];
		size_t name_len = strlen(tab->names + tab->syms[i].name) + 1;

		payload_len += put_varint(tmp, tab->syms[i].addr - prev);
		payload_len += put_varint(tmp, tab->syms[i].size);
		names_len += name_len;
		prev = tab->syms[i].addr;
	}
	payload_len += names_len;

	pk = calloc(1, sizeof(*pk));
	if (!pk)
		return -ENOMEM;
	if (deflateInit(&pk->z, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(pk);
		return -ENOMEM;
	}
	pk->cap = SYMTAB_HEADER_LEN + 4096 + (size_t)(payload_len / 4);
	pk->out = malloc(pk->cap);
	err = -ENOMEM;
	if (!pk->out)
		goto out_end;
	memcpy(header, SYMTAB_MAGIC, 8);
	put_u64(header + 8, tab->nsyms);
	put_u64(header + 16, names_len);
	put_u64(header + 24, payload_len);
	memcpy(pk->out, header, SYMTAB_HEADER_LEN);
	pk->z.next_out = pk->out + SYMTAB_HEADER_LEN;
	pk->z.avail_out = (uInt)(pk->cap - SYMTAB_HEADER_LEN);

	prev = 0;
	for (size_t i = 0; i < tab->nsyms; i++) {
		unsigned char tmp[20];
		size_t n = put_varint(tmp, tab->syms[i].addr - prev);

		n += put_varint(tmp + n, tab->syms[i].size);
		err = packer__put(pk, tmp, n);
		if (err)
			goto out_end;
		prev = tab->syms[i].addr;
	}
	for (size_t i = 0; i < tab->nsyms; i++) {
		const char *name = tab->names + tab->syms[i].name;

		err = packer__put(pk, name, strlen(name) + 1);
		if (err)
			goto out_end;
	}
	err = packer__drain(pk, Z_FINISH);
	if (err)
		goto out_end;
	*len = SYMTAB_HEADER_LEN + pk->z.total_out;
	*blob = pk->out;
	pk->out = NULL;

out_end:
	deflateEnd(&pk->z);
	free(pk->out);
	free(pk);
	return err;
}

/* The bytes of the varint at p, or 0 when truncated or past 64 bits. */
static size_t get_varint(const unsigned char *p, size_t len, uint64_t *v)
{
	struct byte_cursor c = byte_cursor__new(p, len);

	*v = byte_cursor__uleb128(&c);
	return c.bad ? 0 : (size_t)(c.p - p);
}

/*
 * Everything in a blob is checked: the header's counts against their limits and each
 * other, the stream for exactly the promised length, each symbol for order and range,
 * and the names for exactly one per symbol (empty for an unnamed function). Anything
 * else is EBADMSG.
 */
struct symtab *symtab__deserialize(const void *blob, size_t len)
{
	const unsigned char *in = blob;
	uint64_t nsyms, names_len, payload_len, prev = 0;
	unsigned char *payload = NULL;
	struct symtab *tab = NULL;
	size_t pos = 0, npos;
	z_stream z = { 0 };
	int err = EBADMSG, ret;

	if (len < SYMTAB_HEADER_LEN || memcmp(in, SYMTAB_MAGIC, 8) != 0)
		goto out;
	nsyms = get_u64(in + 8);
	names_len = get_u64(in + 16);
	payload_len = get_u64(in + 24);
	/* Each symbol takes at least two varint bytes and its name's NUL (unnamed functions
	 * have an empty name). */
	if (nsyms > SYMTAB_MAX_SYMS || names_len > SYMTAB_MAX_NAMES || names_len >= UINT32_MAX ||
	    names_len < nsyms || payload_len < names_len ||
	    payload_len - names_len < nsyms * 2 || payload_len - names_len > nsyms * 20)
		goto out;
	/* The budget: names compress 3 to 10 times, deflate at most about 1032 times. A
	 * header promising more than SYMTAB_MAX_RATIO times the blob (or 1 MB for a small
	 * one) is refused before anything is allocated for it: an index edited into a
	 * bomb costs nothing. */
	if (payload_len > SYMTAB_MIN_BUDGET &&
	    payload_len / SYMTAB_MAX_RATIO > len - SYMTAB_HEADER_LEN + 1)
		goto out;

	err = ENOMEM;
	payload = malloc(payload_len ? payload_len : 1);
	tab = symtab__new();
	if (!payload || !tab)
		goto out;
	if (nsyms) {
		tab->syms = malloc(nsyms * sizeof(*tab->syms));
		tab->names = malloc(names_len);
		if (!tab->syms || !tab->names)
			goto out;
		tab->cap = nsyms;
		tab->names_cap = names_len;
	}

	if (inflateInit(&z) != Z_OK)
		goto out;
	z.next_in = (unsigned char *)in + SYMTAB_HEADER_LEN;
	z.avail_in = (uInt)(len - SYMTAB_HEADER_LEN > UINT32_MAX ? UINT32_MAX
								 : len - SYMTAB_HEADER_LEN);
	z.next_out = payload;
	z.avail_out = (uInt)payload_len;
	ret = inflate(&z, Z_FINISH);
	err = EBADMSG;
	/* Exactly the promised bytes, the stream ends there, and nothing follows it. */
	if (ret != Z_STREAM_END || z.total_out != payload_len ||
	    z.total_in != len - SYMTAB_HEADER_LEN) {
		inflateEnd(&z);
		goto out;
	}
	inflateEnd(&z);

	for (uint64_t i = 0; i < nsyms; i++) {
		struct symbol *sym = &tab->syms[i];
		uint64_t delta, size;

		npos = get_varint(payload + pos, payload_len - names_len - pos, &delta);
		if (!npos)
			goto out;
		pos += npos;
		npos = get_varint(payload + pos, payload_len - names_len - pos, &size);
		if (!npos)
			goto out;
		pos += npos;
		/* Strictly increasing, non-empty, not wrapping. */
		if ((i > 0 && delta == 0) || delta > UINT64_MAX - prev || size == 0 ||
		    size > UINT32_MAX)
			goto out;
		sym->addr = prev + delta;
		sym->size = (uint32_t)size;
		if (size > UINT64_MAX - sym->addr)
			goto out;
		prev = sym->addr;
	}
	if (pos != payload_len - names_len)
		goto out;

	if (names_len)
		memcpy(tab->names, payload + pos, names_len);
	pos = 0;
	for (uint64_t i = 0; i < nsyms; i++) {
		const char *end = memchr(tab->names + pos, '\0', names_len - pos);

		if (!end)
			goto out;
		tab->syms[i].name = (uint32_t)pos;
		pos = (size_t)(end - tab->names) + 1;
	}
	if (pos != names_len)
		goto out;
	tab->nsyms = nsyms;
	tab->names_len = names_len;
	free(payload);
	return tab;

out:
	free(payload);
	symtab__free(tab);
	errno = err;
	return NULL;
}
