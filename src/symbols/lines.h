/* SPDX-License-Identifier: MIT */
/*
 * Source lines for sampled addresses, from a binary's DWARF (or its debug file): what
 * lets `go tool pprof -list` and `-lines` show a profile line by line.
 *
 * A binary may be gone when a profile is exported, so line tables are read when its
 * addresses are known and kept by build id, like symbol tables. Two kinds:
 *   exact   one row per sampled address (a capture reads these after sampling);
 *   ranges  every row of the line program (an upload reads these): an address takes
 *           the row at or before it, until a row with line 0 (the end of a sequence).
 * Reading is bounded: a file over caps->max_bytes is not read, and reading stops at
 * caps->max_ns or caps->max_rows, keeping what it has (truncated is set).
 */
#ifndef SLIDEOPS_SYMBOLS_LINES_H
#define SLIDEOPS_SYMBOLS_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct strtab;

struct line_row {
	uint64_t address;    /* ELF virtual address */
	uint32_t file;       /* string id in the table's files ("" is 0) */
	uint32_t line;       /* 0: no line here */
	uint32_t start_line; /* the line where the function starts; 0 when unknown */
};

struct line_table {
	struct line_row *rows; /* sorted by address, one row per address */
	size_t n;
	bool exact;
	bool truncated;
	struct strtab *files;
};

struct lines_caps {
	uint64_t max_bytes;  /* larger files are not read: -EFBIG */
	uint64_t max_ns;     /* stop reading after this much CPU time (util/clock.h's budget) */
	size_t max_rows;
};

/* The defaults: 1 GB files, 2 s, 4M rows. */
extern const struct lines_caps LINES_CAPS_DEFAULT;

/*
 * Reads the lines of the n sorted addresses (ELF addresses of the file open at fd: the
 * binary, or its debug file): an exact table with a row for each address that has a
 * line. With addrs NULL, every row of the file: a ranges table. caps NULL: the defaults.
 * 0 and *out; -ENODATA when the file has no DWARF lines; -EFBIG; -ENOMEM.
 */
int lines__read(int fd, const uint64_t *addrs, size_t n, const struct lines_caps *caps,
		struct line_table **out);

/*
 * The same in two steps, for a caller that reads one file for many captures (a
 * resident profiler): the file's DWARF opened once (libdw decompresses a debug file's
 * sections then, which costs more than the lookups), read many times. open: 0 and *out
 * (fd is not taken: the handle keeps a descriptor of its own), -ENODATA, -EFBIG,
 * -ENOMEM, -errno. bytes: the file's size.
 */
struct lines_dwarf;
int lines_dwarf__open(int fd, const struct lines_caps *caps, struct lines_dwarf **out);
int lines_dwarf__read(struct lines_dwarf *d, const uint64_t *addrs, size_t n,
		      const struct lines_caps *caps, struct line_table **out);
uint64_t lines_dwarf__bytes(const struct lines_dwarf *d);
void lines_dwarf__close(struct lines_dwarf *d);

/* The sorted, distinct addresses of p's locations in mapping m: what to read for it.
 * *addrs is malloc'd. 0 or -ENOMEM. */
int lines__sampled_addresses(const struct profile *p, uint32_t m, uint64_t **addrs, size_t *n);

/*
 * After sampling: for each mapping of p with a build id, reads the lines of its sampled
 * addresses and hands the table to keep (the store: store__keep_lines). open returns an
 * fd of the mapping's binary or debug file (or -errno to pass it over: the debug file
 * installed under DEBUG_FILES_ROOT is tried then); it is closed here. Files without
 * lines are passed over; caps bound each file. Returns how many tables were kept, or
 * -ENOMEM.
 */
int lines__read_profile(const struct profile *p, int (*open)(void *ctx, uint32_t mapping),
			void *open_ctx,
			int (*keep)(void *ctx, const char *build_id, const struct line_table *t),
			void *keep_ctx, const struct lines_caps *caps);

/* The row for address, or NULL. */
const struct line_row *line_table__find(const struct line_table *t, uint64_t address);
const char *line_table__file(const struct line_table *t, const struct line_row *r);

/* An exact table with the rows of both (b's win on the same address): how the rows of
 * a new capture join those kept for the same build. NULL on ENOMEM. */
struct line_table *line_table__merge(const struct line_table *a, const struct line_table *b);

/* The stored form, and back. Decoding checks every count against the size it was given
 * (and caps rows at 16M): NULL with errno EBADMSG or ENOMEM. */
int line_table__serialize(const struct line_table *t, void **out, size_t *len);
struct line_table *line_table__deserialize(const void *data, size_t len);
void line_table__free(struct line_table *t);

/* Where tables are kept by build id (the workspace). */
struct lines_lookup {
	int (*get)(void *ctx, const char *build_id, struct line_table **out);
	void *ctx;
};

/* Fills src_file, src_line and start_line of every location whose build has a table.
 * 0 or -ENOMEM. */
int profile__add_lines(struct profile *p, const struct lines_lookup *lookup);

#endif
