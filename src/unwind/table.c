// SPDX-License-Identifier: MIT
/*
 * Unwind tables: reading a binary's frame section within the caps, and turning the rows
 * the parser emits (eh_frame.c) into the sorted, merged table the walker searches.
 * Built once per build id and looked up many times, so building may sort and copy.
 */
#include "unwind/unwind_internal.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"
#include "util/messages.h"

/* Reading a section in pieces keeps each pread small; the whole section is kept. */
#define READ_PIECE (1u << 20)

void unwind_caps__default(struct unwind_caps *caps)
{
	caps->max_bytes = 64ull << 20;
	caps->max_fdes = 1u << 20;
	caps->max_rows = 4u << 20;
	caps->max_ms = 5000;
}

const char *unwind_not_read__str(enum unwind_not_read why)
{
	switch (why) {
	case UNWIND_READ: return msg_text(MSG_UNWIND_READ);
	case UNWIND_NOT_ELF: return msg_text(MSG_UNWIND_NOT_ELF);
	case UNWIND_NOT_X86_64: return msg_text(MSG_UNWIND_NOT_X86_64);
	case UNWIND_NO_FRAME_INFO: return msg_text(MSG_UNWIND_NO_FRAME_INFO);
	case UNWIND_TOO_BIG: return msg_text(MSG_UNWIND_TOO_BIG);
	case UNWIND_TOO_MANY_FDES: return msg_text(MSG_UNWIND_TOO_MANY_FDES);
	case UNWIND_TOO_MANY_ROWS: return msg_text(MSG_UNWIND_TOO_MANY_ROWS);
	case UNWIND_TOO_SLOW: return msg_text(MSG_UNWIND_TOO_SLOW);
	case UNWIND_MALFORMED: return msg_text(MSG_UNWIND_MALFORMED);
	case UNWIND_TEXT_TOO_LARGE: return msg_text(MSG_UNWIND_TEXT_TOO_LARGE);
	case UNWIND_NO_MEMORY: return msg_text(MSG_OUT_OF_MEMORY);
	case UNWIND_IO_ERROR: return msg_text(MSG_UNWIND_IO_ERROR);
	case UNWIND_NOT_READ_COUNT: break;
	}
	return "?";
}

int unwind_rows__cmp(const void *a, const void *b)
{
	const struct tmp_row *x = a, *y = b;
	int xn = unwind_row__cfa_kind(&x->row) != UNWIND_CFA_NONE;
	int yn = unwind_row__cfa_kind(&y->row) != UNWIND_CFA_NONE;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (xn != yn)
		return xn - yn;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Rows in unwind_rows__cmp's order, which is total (seq is unique and the rows are
 * pushed in seq order): a stable LSD radix sort of each row's key, its address from the
 * lowest shifted left by one with the end-of-FDE bit below it, carrying its index. A
 * stable sort by that key alone keeps rows of one key in the order pushed, which is
 * seq's: the order qsort with unwind_rows__cmp gives, in time linear in the rows. A
 * comparison sort was half of building a large binary's table (cc1: 478,579 rows), the
 * most a resident profiler spends on a machine that starts new programs. Rows whose
 * addresses span more than the table can hold (finish refuses them) or more rows than
 * the index bits hold are sorted by qsort. Beside the rows it holds two keys a row, 16
 * bytes, as qsort's merge sort held a copy of them (24).
 */
#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

void unwind_rows__sort(struct tmp_row *rows, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0, *keys = NULL, *other = NULL;
	unsigned index_bits = 1, key_bits;
	bool in_order = true;

	for (size_t i = 0; i < n; i++) {
		if (rows[i].pc < lo)
			lo = rows[i].pc;
		if (rows[i].pc > hi)
			hi = rows[i].pc;
		if (i > 0 && in_order && unwind_rows__cmp(&rows[i - 1], &rows[i]) > 0)
			in_order = false;
	}
	if (in_order)
		return;
	while (index_bits < 64 && (n >> index_bits))
		index_bits++;
	key_bits = 1;
	while (key_bits < 64 && ((hi - lo) >> key_bits))
		key_bits++;
	key_bits++; /* the end-of-FDE bit */
	if (hi - lo > UINT32_MAX || key_bits + index_bits > 64)
		goto sort_all;
	keys = malloc(n * sizeof(*keys));
	other = malloc(n * sizeof(*other));
	if (!keys || !other)
		goto sort_all;
	for (size_t i = 0; i < n; i++) {
		uint64_t key = (rows[i].pc - lo) << 1 |
			       (unwind_row__cfa_kind(&rows[i].row) != UNWIND_CFA_NONE);

		keys[i] = key << index_bits | i;
	}
	for (unsigned shift = index_bits; shift < index_bits + key_bits; shift += RADIX_BITS) {
		size_t count[RADIX_SIZE] = { 0 }, at = 0;
		uint64_t *swap;

		for (size_t i = 0; i < n; i++)
			count[(keys[i] >> shift) & (RADIX_SIZE - 1)]++;
		for (size_t d = 0; d < RADIX_SIZE; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			other[count[(keys[i] >> shift) & (RADIX_SIZE - 1)]++] = keys[i];
		swap = keys;
		keys = other;
		other = swap;
	}
	/* In place, cycle by cycle: position i takes the row at keys[i]. */
	for (size_t i = 0; i < n; i++)
		keys[i] &= (1ull << index_bits) - 1;
	for (size_t i = 0; i < n; i++) {
		struct tmp_row first;
		size_t j = i;

		if (keys[i] == i)
			continue;
		first = rows[i];
		while (keys[j] != i) {
			size_t from = keys[j];

			rows[j] = rows[from];
			keys[j] = j;
			j = from;
		}
		rows[j] = first;
		keys[j] = j;
	}
	goto out;

sort_all:
	qsort(rows, n, sizeof(*rows), unwind_rows__cmp);
out:
	free(keys);
	free(other);
}

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off;
}

/* Sorts and merges b's rows into b->t. */
static int finish(struct unwind_build *b)
{
	struct unwind_table *t = b->t;
	size_t n = 0;

	if (b->ntmp == 0)
		return unwind_build__fail(b, UNWIND_NO_FRAME_INFO, -ENOENT);
	unwind_rows__sort(b->tmp, b->ntmp);
	/* In place: the last row at each address wins, equal neighbours merge. */
	for (size_t i = 0; i < b->ntmp; i++) {
		if (i + 1 < b->ntmp && b->tmp[i + 1].pc == b->tmp[i].pc)
			continue;
		if (n > 0 && same_rule(&b->tmp[n - 1].row, &b->tmp[i].row))
			continue;
		b->tmp[n++] = b->tmp[i];
	}
	if (n > b->caps.max_rows)
		return unwind_build__fail(b, UNWIND_TOO_MANY_ROWS, -E2BIG);
	t->base = b->tmp[0].pc;
	if (b->tmp[n - 1].pc - t->base > UINT32_MAX)
		return unwind_build__fail(b, UNWIND_TEXT_TOO_LARGE, -ENOEXEC);
	t->rows = malloc(n * sizeof(*t->rows));
	if (!t->rows)
		return unwind_build__fail(b, UNWIND_NO_MEMORY, -ENOMEM);
	for (size_t i = 0; i < n; i++) {
		t->rows[i] = b->tmp[i].row;
		t->rows[i].pc = (uint32_t)(b->tmp[i].pc - t->base);
	}
	t->nrows = (uint32_t)n;
	return 0;
}

static int build_from(const struct section_bytes *s, const struct unwind_caps *caps,
		      struct unwind_table **out, enum unwind_not_read *why)
{
	struct unwind_build b = { 0 };
	int err;

	if (caps)
		b.caps = *caps;
	else
		unwind_caps__default(&b.caps);
	b.max_tmp = (size_t)b.caps.max_rows + b.caps.max_fdes;
	*out = NULL;
	b.t = calloc(1, sizeof(*b.t));
	if (!b.t) {
		*why = UNWIND_NO_MEMORY;
		return -ENOMEM;
	}
	b.t->from_debug_frame = s->debug_frame;
	if (s->len > b.caps.max_bytes)
		err = unwind_build__fail(&b, UNWIND_TOO_BIG, -E2BIG);
	else
		err = unwind_build__section(&b, s);
	if (!err)
		err = finish(&b);
	free(b.tmp);
	*why = err ? b.why : UNWIND_READ;
	if (err) {
		unwind_table__free(b.t);
		return err;
	}
	*out = b.t;
	return 0;
}

int unwind_table__from_section(const void *data, size_t len, uint64_t vaddr, bool debug_frame,
			       const struct unwind_caps *caps, struct unwind_table **out,
			       enum unwind_not_read *why)
{
	const struct section_bytes s = { data, len, vaddr, debug_frame };

	return build_from(&s, caps, out, why);
}

/* The frame section to read: .eh_frame with contents, else .debug_frame; -1 if none. */
static int frame_section(const struct elf_reader *r, bool *debug_frame)
{
	int debug = -1;

	for (uint32_t i = 0; i < r->shnum; i++) {
		const struct elf_shdr *sh = &r->shdrs[i];
		const char *name = elf_reader__section_name(r, i);

		if (sh->type == SHT_NOBITS || sh->size == 0 || (sh->flags & SHF_COMPRESSED))
			continue;
		if (strcmp(name, ".eh_frame") == 0) {
			*debug_frame = false;
			return (int)i;
		}
		if (strcmp(name, ".debug_frame") == 0 && debug < 0)
			debug = (int)i;
	}
	*debug_frame = true;
	return debug;
}

int unwind_table__build(int fd, const struct unwind_caps *caps, struct unwind_table **out,
			enum unwind_not_read *why)
{
	struct unwind_caps defaults;
	struct section_bytes s = { 0 };
	struct elf_reader r;
	const struct elf_shdr *sh;
	uint8_t *data = NULL;
	int idx, err;

	*out = NULL;
	if (!caps) {
		unwind_caps__default(&defaults);
		caps = &defaults;
	}
	err = elf_reader__open(&r, fd);
	if (err) {
		*why = err == -ENOEXEC ? UNWIND_NOT_ELF :
		       err == -ENOMEM ? UNWIND_NO_MEMORY : UNWIND_IO_ERROR;
		return err;
	}
	if (!r.is64 || r.swap || r.machine != EM_X86_64) {
		*why = UNWIND_NOT_X86_64;
		err = -ENOEXEC;
		goto out_close;
	}
	idx = frame_section(&r, &s.debug_frame);
	if (idx < 0) {
		*why = UNWIND_NO_FRAME_INFO;
		err = -ENOENT;
		goto out_close;
	}
	sh = &r.shdrs[idx];
	if (sh->size > caps->max_bytes) {
		*why = UNWIND_TOO_BIG;
		err = -E2BIG;
		goto out_close;
	}
	data = malloc(sh->size);
	if (!data) {
		*why = UNWIND_NO_MEMORY;
		err = -ENOMEM;
		goto out_close;
	}
	for (uint64_t done = 0; done < sh->size;) {
		size_t piece = sh->size - done > READ_PIECE ? READ_PIECE : sh->size - done;

		err = elf_reader__pread(&r, data + done, piece, sh->offset + done);
		if (err) {
			*why = err == -ENOEXEC ? UNWIND_NOT_ELF : UNWIND_IO_ERROR;
			goto out_free;
		}
		done += piece;
	}
	s.data = data;
	s.len = sh->size;
	/* .debug_frame addresses are absolute; its sh_addr is 0 and unused. */
	s.vaddr = sh->addr;
	err = build_from(&s, caps, out, why);
out_free:
	free(data);
out_close:
	elf_reader__close(&r);
	return err;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct unwind_row *unwind_table__lookup(const struct unwind_table *t, uint64_t vaddr)
{
	uint32_t lo = 0, hi = t->nrows;
	uint64_t pc;

	if (vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return NULL;
	pc = vaddr - t->base;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo == t->nrows)
		return NULL;
	return &t->rows[lo - 1];
}

bool unwind_table__valid(const struct unwind_table *t)
{
	if (!t || t->nrows == 0 || !t->rows)
		return false;
	for (uint32_t i = 0; i < t->nrows; i++) {
		const struct unwind_row *r = &t->rows[i];

		if (unwind_row__cfa_kind(r) >= UNWIND_CFA_KINDS ||
		    unwind_row__rbp_kind(r) >= UNWIND_RBP_KINDS)
			return false;
		if (i > 0 && t->rows[i - 1].pc >= r->pc)
			return false;
	}
	return unwind_row__cfa_kind(&t->rows[t->nrows - 1]) == UNWIND_CFA_NONE;
}
