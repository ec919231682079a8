/* SPDX-License-Identifier: MIT */
/* What the table builder's files share: rows as the parser emits them, before sorting,
 * and the two steps on them both take (push, fail). The table (table.c) calls the parser
 * (eh_frame.c), never the other way round. */
#ifndef SLIDEOPS_UNWIND_INTERNAL_H
#define SLIDEOPS_UNWIND_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "unwind/unwind.h"

/* A row with its full 64-bit address and its order of emission (ties: the later FDE). */
struct tmp_row {
	uint64_t pc;
	uint32_t seq;
	struct unwind_row row; /* row.pc unused */
};

struct unwind_build {
	struct unwind_caps caps;
	struct unwind_table *t;
	struct tmp_row *tmp;
	size_t ntmp, cap;
	size_t max_tmp;          /* max_rows plus one end row per FDE */
	enum unwind_not_read why;
};

struct section_bytes {
	const uint8_t *data;
	size_t len;
	uint64_t vaddr;
	bool debug_frame;
};

/* Appends a row: 0, -E2BIG past the caps, -ENOMEM. */
static inline int unwind_build__push(struct unwind_build *b, uint64_t pc, struct unwind_row row)
{
	if (b->ntmp >= b->max_tmp)
		return -E2BIG;
	if (b->ntmp == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct tmp_row *tmp;

		if (cap > b->max_tmp)
			cap = b->max_tmp;
		tmp = realloc(b->tmp, cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		b->tmp = tmp;
		b->cap = cap;
	}
	b->tmp[b->ntmp] = (struct tmp_row){ pc, (uint32_t)b->ntmp, row };
	b->ntmp++;
	return 0;
}

/* The rows' order (a qsort comparator, total): by address; at one address an end-of-FDE
 * row first, so the FDE starting there (sorted after it) wins; else in the order emitted. */
int unwind_rows__cmp(const void *a, const void *b);
/* Sorts rows in unwind_rows__cmp's order (in linear time when it can). */
void unwind_rows__sort(struct tmp_row *rows, size_t n);
/* Records why and returns err. */
static inline int unwind_build__fail(struct unwind_build *b, enum unwind_not_read why, int err)
{
	b->why = why;
	return err;
}
/* Parses one frame section into b's rows (eh_frame.c). 0 or -errno, b->why set. */
int unwind_build__section(struct unwind_build *b, const struct section_bytes *s);

#endif
