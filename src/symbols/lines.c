// SPDX-License-Identifier: MIT
/*
 * Line tables from DWARF with libdw. See lines.h.
 *
 * An exact read asks libdw per address (dwarf_addrdie, dwarf_getsrc_die, and the
 * enclosing function's declaration line from a walk of the CU's scopes, from the last
 * address's function when the next one is in it too): a capture samples a few thousand
 * addresses per binary. A ranges read walks every CU's line program once.
 * Both check the clock every few hundred steps, so a huge or hostile file costs at most
 * caps->max_ns.
 *
 * The two reads share the per-CU walk and its caps, and a kept open file (lines_dwarf)
 * serves both. The table they fill, as a value and stored: line_table.c.
 */
#include "symbols/lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/profile.h"
#include "symbols/line_table_internal.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/strtab.h"

const struct lines_caps LINES_CAPS_DEFAULT = {
	.max_bytes = 1ULL << 30,
	.max_ns = 2000000000ULL,
	.max_rows = 4u << 20,
};

#define CLOCK_EVERY 256


static bool over_time(const struct clock_budget *deadline, size_t step)
{
	return step % CLOCK_EVERY == 0 && clock_budget__over(deadline);
}

/* The declaration line of the innermost function around pc in cu; [*lo, *hi) is the
 * range of the function, when known, for rows that need no lookup of their own. */
static uint32_t function_start(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes), line = 0;

	*lo = *hi = 0;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			if (dwarf_decl_line(&scopes[i], &line) != 0)
				line = 0;
			if (tag == DW_TAG_subprogram && (dwarf_lowpc(&scopes[i], lo) ||
							 dwarf_highpc(&scopes[i], hi)))
				*lo = *hi = 0;
			break;
		}
	}
	free(scopes);
	return line > 0 ? (uint32_t)line : 0;
}

/* DIEs whose children may hold code: scopes with addresses of their own, and the
 * containers that C++ and other languages nest definitions in, which have none. */
static bool holds_scopes(int tag, bool *has_pc)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_entry_point:
		*has_pc = true;
		return true;
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		*has_pc = false;
		return true;
	default:
		return false;
	}
}

/* Scopes nest no deeper than this in any real program; a hostile file's are cut. */
#define SCOPE_DEPTH_MAX 64

/*
 * The innermost subprogram or inlined subroutine among die's descendants that contains
 * pc, into *fn, and the outermost one into *outer (NULL: not wanted): the chain
 * dwarf_getscopes finds, but without the second walk it makes for an inlined instance's
 * abstract origin, which function_start does not need (dwarf_decl_line follows it).
 */
static bool innermost_function(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *fn, Dwarf_Die *outer,
			       int depth)
{
	Dwarf_Die child;

	if (depth >= SCOPE_DEPTH_MAX || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		bool has_pc, is_fn;

		if (!holds_scopes(tag, &has_pc) || (has_pc && dwarf_haspc(&child, pc) != 1))
			continue;
		is_fn = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
		if (innermost_function(&child, pc, fn, is_fn ? NULL : outer, depth + 1)) {
			if (is_fn && outer)
				*outer = child;
			return true;
		}
		if (is_fn) {
			*fn = child;
			if (outer)
				*outer = child;
			return true;
		}
		/* A block or container around pc with no function inside: its siblings. */
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* What function_start says of fn, the innermost function found. */
static uint32_t function_start_of(Dwarf_Die *fn, Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	int line = 0;

	*lo = *hi = 0;
	if (dwarf_decl_line(fn, &line) != 0)
		line = 0;
	if (dwarf_tag(fn) == DW_TAG_subprogram && (dwarf_lowpc(fn, lo) || dwarf_highpc(fn, hi)))
		*lo = *hi = 0;
	return line > 0 ? (uint32_t)line : 0;
}

/* The outermost function of the last address looked up, in its CU: sorted addresses
 * fall in it one after the other, and are looked for inside it, not from the CU. */
struct scope_memo {
	bool valid;
	Dwarf_Off cu;
	Dwarf_Die outer;
};

/* function_start, from memo's function when pc is in it. */
static uint32_t function_start_memo(struct scope_memo *memo, Dwarf_Die *cu, Dwarf_Addr pc,
				    Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	Dwarf_Die fn, outer;

	*lo = *hi = 0;
	if (memo->valid && memo->cu == dwarf_dieoffset(cu) && dwarf_haspc(&memo->outer, pc) == 1) {
		if (!innermost_function(&memo->outer, pc, &fn, NULL, 1))
			fn = memo->outer;
		return function_start_of(&fn, lo, hi);
	}
	memo->valid = false;
	if (!innermost_function(cu, pc, &fn, &outer, 0))
		return 0;
	memo->valid = true;
	memo->cu = dwarf_dieoffset(cu);
	memo->outer = outer;
	return function_start_of(&fn, lo, hi);
}

static int read_exact(Dwarf *dbg, const uint64_t *addrs, size_t n, const struct lines_caps *caps,
		      const struct clock_budget *deadline, struct line_table *t)
{
	struct scope_memo memo = { 0 };
	size_t cap = 0;

	for (size_t i = 0; i < n && t->n < caps->max_rows; i++) {
		Dwarf_Die cu;
		Dwarf_Line *l;
		struct line_row r = { .address = addrs[i] };
		const char *src;
		int line = 0;

		if (over_time(deadline, i + 1)) {
			t->truncated = true;
			break;
		}
		if (!dwarf_addrdie(dbg, addrs[i], &cu))
			continue;
		l = dwarf_getsrc_die(&cu, addrs[i]);
		if (!l || dwarf_lineno(l, &line) || line <= 0)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		r.line = (uint32_t)line;
		r.file = strtab__intern(t->files, src ? src : "");
		if (r.file == STRTAB_NONE)
			return -ENOMEM;
		{
			Dwarf_Addr lo, hi;

			r.start_line = function_start_memo(&memo, &cu, addrs[i], &lo, &hi);
		}
		if (line_table__push(t, &cap, &r))
			return -ENOMEM;
	}
	return 0;
}

static int read_ranges(Dwarf *dbg, const struct lines_caps *caps,
		       const struct clock_budget *deadline, struct line_table *t)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0, step = 0;

	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nlines;

		if (dwarf_offdie(dbg, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &nlines) == 0) {
			for (size_t i = 0; i < nlines; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				struct line_row r = { 0 };
				Dwarf_Addr addr;
				bool end = false;
				const char *src;
				int line = 0;

				if (over_time(deadline, ++step) || t->n >= caps->max_rows) {
					t->truncated = true;
					goto out;
				}
				if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &line) ||
				    dwarf_lineendsequence(l, &end))
					continue;
				r.address = addr;
				if (!end && line > 0) {
					src = dwarf_linesrc(l, NULL, NULL);
					r.line = (uint32_t)line;
					r.file = strtab__intern(t->files, src ? src : "");
					if (r.file == STRTAB_NONE)
						return -ENOMEM;
				}
				if (line_table__push(t, &cap, &r))
					return -ENOMEM;
			}
		}
		off = next;
	}
out:
	line_table__sort(t);
	/* Function starts: one scope lookup per function, reused for its other rows. */
	{
		Dwarf_Addr lo = 0, hi = 0;
		uint32_t start = 0;

		for (size_t i = 0; i < t->n; i++) {
			Dwarf_Die cu;

			if (!t->rows[i].line)
				continue;
			if (t->rows[i].address >= lo && t->rows[i].address < hi) {
				t->rows[i].start_line = start;
				continue;
			}
			if (over_time(deadline, ++step)) {
				t->truncated = true;
				break;
			}
			start = 0;
			lo = hi = 0;
			if (dwarf_addrdie(dbg, t->rows[i].address, &cu))
				start = function_start(&cu, t->rows[i].address, &lo, &hi);
			t->rows[i].start_line = start;
		}
	}
	return 0;
}

struct lines_dwarf {
	int fd;        /* ours: libdw reads through it */
	Dwarf *dbg;
	uint64_t bytes;
};

int lines_dwarf__open(int fd, const struct lines_caps *caps, struct lines_dwarf **out)
{
	struct lines_dwarf *d;
	struct stat st;

	*out = NULL;
	if (!caps)
		caps = &LINES_CAPS_DEFAULT;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENODATA;
	if ((uint64_t)st.st_size > caps->max_bytes)
		return -EFBIG;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->bytes = (uint64_t)st.st_size;
	d->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d->fd < 0) {
		free(d);
		return -errno;
	}
	d->dbg = dwarf_begin(d->fd, DWARF_C_READ);
	if (!d->dbg) {
		close(d->fd);
		free(d);
		return -ENODATA;
	}
	*out = d;
	return 0;
}

uint64_t lines_dwarf__bytes(const struct lines_dwarf *d)
{
	return d->bytes;
}

int lines_dwarf__read(struct lines_dwarf *d, const uint64_t *addrs, size_t n,
		      const struct lines_caps *caps, struct line_table **out)
{
	struct clock_budget deadline;
	struct line_table *t;
	int err;

	*out = NULL;
	if (!caps)
		caps = &LINES_CAPS_DEFAULT;
	deadline = clock_budget__from_now(caps->max_ns);
	t = line_table__new(addrs != NULL);
	if (!t)
		return -ENOMEM;
	err = addrs ? read_exact(d->dbg, addrs, n, caps, &deadline, t) :
		    read_ranges(d->dbg, caps, &deadline, t);
	if (!err && addrs)
		line_table__sort(t);
	if (!err && t->n == 0)
		err = -ENODATA;
	if (err) {
		line_table__free(t);
		return err;
	}
	*out = t;
	return 0;
}

void lines_dwarf__close(struct lines_dwarf *d)
{
	if (!d)
		return;
	dwarf_end(d->dbg);
	close(d->fd);
	free(d);
}

int lines__read(int fd, const uint64_t *addrs, size_t n, const struct lines_caps *caps,
		struct line_table **out)
{
	struct lines_dwarf *d;
	int err = lines_dwarf__open(fd, caps, &d);

	*out = NULL;
	if (err)
		return err;
	err = lines_dwarf__read(d, addrs, n, caps, out);
	lines_dwarf__close(d);
	return err;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int lines__sampled_addresses(const struct profile *p, uint32_t m, uint64_t **addrs, size_t *n)
{
	uint64_t *a = malloc(sizeof(*a) * (p->nlocations ? p->nlocations : 1));
	size_t k = 0, out = 0;

	*addrs = NULL;
	*n = 0;
	if (!a)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nlocations; i++)
		if (p->locations[i].mapping == m)
			a[k++] = p->locations[i].address;
	qsort(a, k, sizeof(*a), u64_cmp);
	for (size_t i = 0; i < k; i++)
		if (!out || a[out - 1] != a[i])
			a[out++] = a[i];
	*addrs = a;
	*n = out;
	return 0;
}

int lines__read_profile(const struct profile *p, int (*open)(void *ctx, uint32_t mapping),
			void *open_ctx,
			int (*keep)(void *ctx, const char *build_id, const struct line_table *t),
			void *keep_ctx, const struct lines_caps *caps)
{
	int kept = 0;

	for (uint32_t m = 0; m < p->nmappings; m++) {
		const struct prof_mapping *pm = &p->mappings[m];
		const char *bid = profile__str(p, pm->build_id);
		struct line_table *t = NULL;
		uint64_t *addrs;
		size_t n;
		int fd, err;

		if (!*bid || pm->kind == MAPPING_KERNEL || pm->kind == MAPPING_ANON ||
		    pm->kind == MAPPING_JIT)
			continue;
		/* A build seen in an earlier mapping was read with it. */
		for (uint32_t j = 0; j < m; j++)
			if (p->mappings[j].build_id == pm->build_id)
				goto next;
		err = lines__sampled_addresses(p, m, &addrs, &n);
		if (err)
			return err;
		fd = n ? open(open_ctx, m) : -ENOENT;
		if (fd < 0)
			fd = n ? symtab__open_installed_debug(DEBUG_FILES_ROOT, bid) : fd;
		err = fd >= 0 ? lines__read(fd, addrs, n, caps, &t) : fd;
		if (fd >= 0)
			close(fd);
		free(addrs);
		if (err == -ENOMEM)
			return err;
		if (!err && keep(keep_ctx, bid, t) == 0)
			kept++;
		line_table__free(t);
next:;
	}
	return kept;
}

int profile__add_lines(struct profile *p, const struct lines_lookup *lookup)
{
	for (uint32_t m = 0; m < p->nmappings; m++) {
		const struct prof_mapping *pm = &p->mappings[m];
		struct line_table *t = NULL;
		int err;

		if (!pm->build_id || !*profile__str(p, pm->build_id) || pm->kind == MAPPING_KERNEL)
			continue;
		err = lookup->get(lookup->ctx, profile__str(p, pm->build_id), &t);
		if (err == -ENOMEM)
			return err;
		if (err || !t)
			continue;
		for (uint32_t i = 0; i < p->nlocations; i++) {
			struct prof_location *l = &p->locations[i];
			const struct line_row *r;

			if (l->mapping != m || l->file)
				continue; /* interpreter frames carry their own */
			r = line_table__find(t, l->address);
			if (!r)
				continue;
			l->src_file = profile__intern(p, line_table__file(t, r));
			if (l->src_file == UINT32_MAX) {
				line_table__free(t);
				return -ENOMEM;
			}
			l->src_line = r->line;
			l->src_start_line = r->start_line;
		}
		line_table__free(t);
	}
	return 0;
}
