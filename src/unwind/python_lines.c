// SPDX-License-Identifier: MIT
/*
 * Where a Python frame is (python.h): its line from the code object's line table, in each
 * version's format (whether its file is the
 * standard library or an installed package is elf/binary.c's python__is_library_file).
 */
#include "unwind/python.h"

#include <ctype.h>
#include <string.h>

/* 3.8-3.9 co_lnotab: (bytecode bytes, line) increments from the first line. */
static int64_t line_lnotab(const struct python_code_entry *e, uint64_t addr)
{
	int64_t line = e->firstlineno;
	uint64_t at = 0;

	for (uint32_t i = 0; i + 1 < e->table_len; i += 2) {
		at += e->table[i];
		if (at > addr)
			return line;
		line += (int8_t)e->table[i + 1];
	}
	/* Past the table: the last line, unless the table was cut. */
	return e->table_len + 4 >= PYTHON_TABLE_LEN ? 0 : line;
}

/* 3.10 co_linetable: ranges of bytecode bytes with a line delta each, -128: no line. */
static int64_t line_310(const struct python_code_entry *e, uint64_t addr)
{
	int64_t line = e->firstlineno, range_line = -1;
	uint64_t end = 0;

	for (uint32_t i = 0; i + 1 < e->table_len; i += 2) {
		int8_t delta = (int8_t)e->table[i + 1];

		end += e->table[i];
		if (delta == -128) {
			range_line = -1;
		} else {
			line += delta;
			range_line = line;
		}
		if (addr < end)
			return range_line > 0 ? range_line : 0;
	}
	return 0;
}

/* Unsigned varint of the location table: 6 bits a byte, 0x40 says more follow. */
static uint32_t varint(const struct python_code_entry *e, uint32_t *i)
{
	uint32_t v = 0, shift = 0;

	while (*i < e->table_len && shift < 32) {
		uint8_t b = e->table[(*i)++];

		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return v;
}

/* 3.11+ location table: entries of (1-8 code units, a kind), the kind saying how the
 * line moves (Objects/locations.md in CPython). */
static int64_t line_locations(const struct python_code_entry *e, uint64_t addr)
{
	int64_t line = e->firstlineno;
	uint64_t end = 0;
	uint32_t i = 0;

	while (i < e->table_len) {
		uint8_t first = e->table[i++];
		unsigned kind = (first >> 3) & 15;
		int64_t delta = 0, this_line;

		if (!(first & 0x80))
			return 0; /* not the start of an entry: lost our place */
		end += ((first & 7) + 1) * 2;
		if (kind == 13 || kind == 14) {
			uint32_t v = varint(e, &i);

			delta = (v & 1) ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
		} else if (kind >= 10 && kind <= 12) {
			delta = (int64_t)kind - 10;
		}
		if (kind != 15)
			line += delta;
		this_line = kind == 15 ? 0 : line;
		if (addr < end)
			return this_line > 0 ? this_line : 0;
		/* the rest of the entry: columns and end lines */
		while (i < e->table_len && !(e->table[i] & 0x80))
			i++;
	}
	return 0;
}

int32_t python_code__line(const struct python_code_entry *e, uint32_t instr)
{
	uint64_t addr = (uint64_t)instr * 2; /* tables count bytecode bytes */
	int64_t line = 0;

	if (!e || !e->table || instr == PYTHON_NO_INSTR)
		return 0;
	/* In 64 bits: a table of a few hundred bytes moves a 32-bit line by far less
	 * than 2^32, and memory that is not a table says a line that is not one. */
	switch (e->line_kind) {
	case PYTHON_LINES_LNOTAB:
		line = line_lnotab(e, addr);
		break;
	case PYTHON_LINES_310:
		line = line_310(e, addr);
		break;
	case PYTHON_LINES_LOCATIONS:
		line = line_locations(e, addr);
		break;
	}
	return line > 0 && line <= INT32_MAX ? (int32_t)line : 0;
}
