// SPDX-License-Identifier: MIT
/*
 * Building a line table (line_table.c), for the reads that fill one (lines.c): a new
 * empty table, a row pushed, the rows sorted to one per address.
 */
#ifndef SLIDEOPS_SYMBOLS_LINE_TABLE_INTERNAL_H
#define SLIDEOPS_SYMBOLS_LINE_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "symbols/lines.h"

/* An empty table; exact: its rows are the addresses asked for alone. NULL: no memory. */
struct line_table *line_table__new(bool exact);
/* r appended; *cap the rows' capacity, grown as needed. 0 or -ENOMEM. */
int line_table__push(struct line_table *t, size_t *cap, const struct line_row *r);
/* Sorted, one row per address: of rows at one address, the last with a line wins. */
void line_table__sort(struct line_table *t);

#endif
