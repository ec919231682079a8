// SPDX-License-Identifier: MIT
/*
 * The unwind table builder against real binaries and against hostile ones. Real: Debian's
 * libc.so.6 and python3.11 (no frame pointers in either) and programs built here; every
 * row readelf --debug-dump=frames-interp prints must agree with our table at that address
 * (CFA rule and offset, where rbp is saved, end of stack). Hostile: every refusal (each
 * cap, each kind of damage) says why, and the on-disk cache never trusts a damaged file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/fixture.h"
#include "unwind/unwind.h"
#include "unwind/unwind_internal.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON "/usr/bin/python3.11"

static int open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static struct unwind_table *build_file(const char *path)
{
	struct unwind_table *t = NULL;
	enum unwind_not_read why;
	int fd = open_file(path);

	assert_int_equal(unwind_table__build(fd, NULL, &t, &why), 0);
	assert_int_equal(why, UNWIND_READ);
	close(fd);
	assert_true(unwind_table__valid(t));
	return t;
}

struct agreement {
	unsigned fdes, rows, mismatches;
};

/* Is our row at loc what readelf's row says? cfa like "rsp+8", rbp like "c-16" or NULL,
 * ra like "c-8" or "u". */
static bool row_agrees(const struct unwind_table *t, uint64_t loc, const char *cfa,
		       const char *rbp, const char *ra)
{
	const struct unwind_row *r = unwind_table__lookup(t, loc);
	unsigned kind;

	if (!r)
		return false;
	kind = unwind_row__cfa_kind(r);
	if (strcmp(ra, "u") == 0)
		return kind == UNWIND_CFA_END;
	if (strcmp(cfa, "exp") == 0)
		return kind == UNWIND_CFA_PLT || kind == UNWIND_CFA_SIGNAL ||
		       kind == UNWIND_CFA_UNSUPPORTED;
	if (kind == UNWIND_CFA_SIGNAL || kind == UNWIND_CFA_UNSUPPORTED)
		return true; /* a rule we do not follow, whatever its details */
	if (strncmp(cfa, "rsp+", 4) == 0) {
		if (kind != UNWIND_CFA_RSP || r->cfa_off != atoi(cfa + 4))
			return false;
	} else if (strncmp(cfa, "rbp+", 4) == 0) {
		if (kind != UNWIND_CFA_RBP || r->cfa_off != atoi(cfa + 4))
			return false;
	} else {
		return kind == UNWIND_CFA_UNSUPPORTED;
	}
	if (rbp && strncmp(rbp, "c-", 2) == 0)
		return unwind_row__rbp_kind(r) == UNWIND_RBP_OFFSET &&
		       r->rbp_off * 8 == -atoi(rbp + 2);
	if (!rbp || strcmp(rbp, "u") == 0)
		return unwind_row__rbp_kind(r) != UNWIND_RBP_OFFSET;
	return unwind_row__rbp_kind(r) == UNWIND_RBP_LOST;
}

/* Every row of readelf's interpretation of path's frame section against t. */
static struct agreement compare_with_readelf(const char *path, const struct unwind_table *t)
{
	struct agreement a = { 0 };
	char cmd[512], line[1024], *cols[64];
	int ncols = 0, rbp_col = -1, ra_col = -1;
	bool in_fde = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp %s 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *tok, *save;
		int n = 0;

		if (strstr(line, " FDE cie=")) {
			a.fdes++;
			in_fde = true;
			continue;
		}
		/* A CIE's initial row has no address of its own. */
		if (strstr(line, " CIE")) {
			in_fde = false;
			continue;
		}
		if (strncmp(line, "   LOC", 6) == 0) {
			ncols = 0;
			rbp_col = ra_col = -1;
			for (tok = strtok_r(line, " \n", &save); tok && ncols < 64;
			     tok = strtok_r(NULL, " \n", &save), ncols++) {
				if (strcmp(tok, "rbp") == 0)
					rbp_col = ncols;
				if (strcmp(tok, "ra") == 0)
					ra_col = ncols;
			}
			continue;
		}
		if (!in_fde || strlen(line) < 17 || line[16] != ' ' || ra_col < 0)
			continue;
		for (tok = strtok_r(line, " \n", &save); tok && n < 64;
		     tok = strtok_r(NULL, " \n", &save))
			cols[n++] = tok;
		if (n != ncols)
			continue;
		a.rows++;
		if (!row_agrees(t, strtoull(cols[0], NULL, 16), cols[1],
				rbp_col >= 0 ? cols[rbp_col] : NULL, cols[ra_col])) {
			if (a.mismatches++ < 5)
				fprintf(stderr, "mismatch at %s: cfa %s rbp %s ra %s\n", cols[0],
					cols[1], rbp_col >= 0 ? cols[rbp_col] : "-", cols[ra_col]);
		}
	}
	pclose(p);
	return a;
}

static void check_real(const char *path)
{
	struct unwind_table *t;
	struct agreement a;

	if (access(path, R_OK) != 0) {
		fprintf(stderr, "skipped: no %s here\n", path);
		skip();
	}
	t = build_file(path);
	a = compare_with_readelf(path, t);
	fprintf(stderr, "%s: %u FDEs, %u rows (readelf %u FDEs, %u rows)\n", path, t->nfdes,
		t->nrows, a.fdes, a.rows);
	assert_int_equal(t->nfdes, a.fdes);
	assert_int_equal(t->nskipped, 0);
	/* Ours: rows where the CFA or rbp rule changes, plus an end row per gap, plus the
	 * initial row of FDEs readelf prints no row for (no instructions of their own). */
	assert_true(t->nrows >= a.rows / 2 && t->nrows <= a.rows + 2 * t->nfdes);
	assert_int_equal(a.mismatches, 0);
	unwind_table__free(t);
}

static void test_libc(void **state)
{
	(void)state;
	check_real(LIBC);
}

static void test_python(void **state)
{
	(void)state;
	check_real(PYTHON);
}

static const char program[] =
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"__attribute__((noinline)) int work(int n) { char b[n + 1]; memset(b, 1, n);\n"
	"  int s = 0; for (int i = 0; i < n; i++) s += b[i] * i; return s; }\n"
	"int main(int argc, char **argv) { (void)argv; printf(\"%d\\n\", work(argc)); return 0; }\n";

/* Programs built here, with and without frame pointers, PIE and not, and one with only
 * .debug_frame: every readelf row agrees. */
static void test_built_programs(void **state)
{
	static const char *const flags[] = {
		"-O2 -fomit-frame-pointer -pie -fPIE",
		"-O2 -fno-omit-frame-pointer -no-pie",
		"-O0 -g",
		"-O2 -shared -fPIC",
	};
	struct fixture *fx = fixture__new();

	(void)state;
	assert_non_null(fx);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const char *bin = fixture__compile(fx, "prog", program, flags[i]);
		struct unwind_table *t;
		struct agreement a;

		assert_non_null(bin);
		t = build_file(bin);
		assert_false(t->from_debug_frame);
		a = compare_with_readelf(bin, t);
		assert_true(a.rows > 0);
		assert_int_equal(a.mismatches, 0);
		unwind_table__free(t);
	}
	fixture__free(fx);
}

/* Code built without unwind tables, with -g: .debug_frame is all there is. */
static void test_debug_frame_only(void **state)
{
	struct fixture *fx = fixture__new();
	const char *src, *obj;
	struct unwind_table *t;
	enum unwind_not_read why;
	int fd;

	(void)state;
	assert_non_null(fx);
	/* A relocatable object: no crt files bring their own .eh_frame. */
	src = fixture__write(fx, "lib.c", program);
	assert_non_null(src);
	assert_int_equal(fixture__sh(fx, "gcc -O2 -g -fno-asynchronous-unwind-tables "
				     "-fno-unwind-tables -shared -fPIC -nostdlib -o lib.so lib.c"),
			 0);
	obj = fixture__path(fx, "lib.so");
	fd = open_file(obj);
	assert_int_equal(unwind_table__build(fd, NULL, &t, &why), 0);
	close(fd);
	assert_true(t->from_debug_frame);
	assert_true(unwind_table__valid(t));
	assert_true(t->nfdes >= 2);
	unwind_table__free(t);
	fixture__free(fx);
}

/* ---- refusals ---- */

static void expect_refusal(const char *path, const struct unwind_caps *caps, int err,
			   enum unwind_not_read why_expected)
{
	struct unwind_table *t = (void *)1;
	enum unwind_not_read why = UNWIND_READ;
	int fd = open_file(path);

	assert_int_equal(unwind_table__build(fd, caps, &t, &why), err);
	assert_null(t);
	assert_int_equal(why, why_expected);
	assert_string_not_equal(unwind_not_read__str(why), "?");
	close(fd);
}

/* Each cap, met by libc: the table is not read and says which cap. */
static void test_caps(void **state)
{
	struct unwind_caps caps;

	(void)state;
	unwind_caps__default(&caps);
	caps.max_bytes = 4096;
	expect_refusal(LIBC, &caps, -E2BIG, UNWIND_TOO_BIG);
	unwind_caps__default(&caps);
	caps.max_fdes = 100;
	expect_refusal(LIBC, &caps, -E2BIG, UNWIND_TOO_MANY_FDES);
	unwind_caps__default(&caps);
	caps.max_rows = 1000;
	expect_refusal(LIBC, &caps, -E2BIG, UNWIND_TOO_MANY_ROWS);
	unwind_caps__default(&caps);
	caps.max_ms = 0;
	expect_refusal(LIBC, &caps, -E2BIG, UNWIND_TOO_SLOW);
}

static void test_not_usable_files(void **state)
{
	struct fixture *fx = fixture__new();
	const char *text, *bin32, *nodebug;

	(void)state;
	assert_non_null(fx);
	text = fixture__write(fx, "text", "not an ELF file at all\n");
	expect_refusal(text, NULL, -ENOEXEC, UNWIND_NOT_ELF);
	bin32 = fixture__compile(fx, "bin32", "int f(int x) { return x + 1; }\n"
				 "void _start(void) { for (;;) f(1); }\n",
				 "-m32 -O1 -nostdlib -static");
	if (bin32)
		expect_refusal(bin32, NULL, -ENOEXEC, UNWIND_NOT_X86_64);
	nodebug = fixture__compile(fx, "bare", "int f(int x) { return x + 1; }\n"
				   "void _start(void) { for (;;) f(1); }\n",
				   "-O1 -nostdlib -static -fno-asynchronous-unwind-tables "
				   "-fno-unwind-tables -Wl,--build-id");
	assert_non_null(nodebug);
	expect_refusal(nodebug, NULL, -ENOENT, UNWIND_NO_FRAME_INFO);
	/* Cut in the middle: the section headers (last in the file) are gone. */
	expect_refusal(fixture__truncated_copy(fx, LIBC, 1 << 20, "cut"), NULL, -ENOEXEC,
		       UNWIND_NOT_ELF);
	fixture__free(fx);
}

/* Hostile frame sections, each refused as malformed, never half-read. */
static void test_hostile_sections(void **state)
{
	/* A CIE (zR, pcrel|sdata4 pointers, rsp+8, ra at cfa-8) and an FDE after it; each
	 * case below damages one thing. */
	static const uint8_t good[] = {
		0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
		0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,
		0x14, 0, 0, 0, 0x1c, 0, 0, 0, 0x00, 0x10, 0, 0, 0x40, 0, 0, 0, 0,
		0x41, 0x0e, 0x10, 0, 0, 0, 0,
		0, 0, 0, 0,
	};
	uint8_t buf[sizeof(good)];
	struct unwind_table *t;
	enum unwind_not_read why;
	struct {
		size_t at;
		uint8_t value;
	} damage[] = {
		{ 0, 0x7f },   /* CIE length past the section */
		{ 28, 0x40 },  /* FDE's CIE pointer before the section */
		{ 28, 0x18 },  /* ... to the middle of the CIE */
		{ 8, 9 },      /* unknown CIE version */
		{ 42, 0x3d },  /* unknown CFA opcode (0x3d) */
		{ 42, 0x0b },  /* restore_state with nothing remembered */
		{ 42, 0x0f },  /* def_cfa_expression longer than the FDE */
		{ 17, 0x3e },  /* an unknown CFA opcode in the CIE */
	};

	(void)state;
	assert_int_equal(unwind_table__from_section(good, sizeof(good), 0x1000, false, NULL, &t,
						    &why), 0);
	assert_int_equal(t->nrows, 3); /* rsp+8 at 0x1000+..., rsp+16 one byte on, the end */
	assert_int_equal(unwind_row__cfa_kind(&t->rows[0]), UNWIND_CFA_RSP);
	assert_int_equal(t->rows[0].cfa_off, 8);
	assert_int_equal(t->rows[1].cfa_off, 16);
	assert_int_equal(t->rows[1].pc, 1);
	assert_int_equal(unwind_row__cfa_kind(&t->rows[2]), UNWIND_CFA_NONE);
	assert_int_equal(t->rows[2].pc, 0x40);
	unwind_table__free(t);

	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		memcpy(buf, good, sizeof(buf));
		buf[damage[i].at] = damage[i].value;
		t = (void *)1;
		assert_int_not_equal(unwind_table__from_section(buf, sizeof(buf), 0x1000, false,
								NULL, &t, &why), 0);
		assert_null(t);
		assert_int_equal(why, UNWIND_MALFORMED);
	}

	/* remember_state nested past any real code's depth. */
	{
		uint8_t deep[64 + 40] = { 0 };
		size_t n = 24;

		memcpy(deep, good, 24);
		deep[n] = 0x14 + 40; /* FDE length */
		deep[n + 4] = (uint8_t)(n + 4);
		memcpy(deep + n + 8, good + 32, 9);
		memset(deep + n + 17, 0x0a, 40 + 7);
		assert_int_not_equal(unwind_table__from_section(deep, n + 4 + 0x14 + 40, 0x1000,
								false, NULL, &t, &why), 0);
		assert_int_equal(why, UNWIND_MALFORMED);
	}
}

/* ---- the cache ---- */

static void test_cache(void **state)
{
	struct fixture *fx = fixture__new();
	struct unwind_table *t, *back;
	enum unwind_not_read why;
	const char *dir, *id = "1234567890abcdef";
	char path[512];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(fx);
	dir = fixture__path(fx, "profiler/unwind");
	fd = open_file(LIBC);

	/* Absent: built and saved. */
	assert_int_equal(unwind_table__get(dir, id, fd, NULL, &t, &why), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, id);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, 48 + (size_t)t->nrows * 8);

	/* Read back: the same table. */
	assert_int_equal(unwind_table__load(dir, id, &back), 0);
	assert_int_equal(back->nrows, t->nrows);
	assert_int_equal(back->base, t->base);
	assert_memory_equal(back->rows, t->rows, t->nrows * 8);
	unwind_table__free(back);

	/* Another build id's name on it: refused. */
	assert_int_equal(fixture__sh(fx, "cp %s %s/abcdef", path, dir), 0);
	assert_int_equal(unwind_table__load(dir, "abcdef", &back), -EBADMSG);

	/* One flipped byte in the rows, or a truncated file: damaged, then rebuilt by get. */
	assert_int_equal(fixture__sh(fx, "printf '\\377' | dd of=%s bs=1 seek=1000 conv=notrunc "
				     "2>/dev/null", path), 0);
	assert_int_equal(unwind_table__load(dir, id, &back), -EBADMSG);
	assert_int_equal(unwind_table__get(dir, id, fd, NULL, &back, &why), 0);
	assert_memory_equal(back->rows, t->rows, t->nrows * 8);
	unwind_table__free(back);
	assert_int_equal(unwind_table__load(dir, id, &back), 0);
	unwind_table__free(back);
	assert_int_equal(truncate(path, 4000), 0);
	assert_int_equal(unwind_table__load(dir, id, &back), -EBADMSG);

	/* A refusal is remembered under its caps: the file is not read again. */
	{
		struct unwind_caps small;
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

		unwind_caps__default(&small);
		small.max_fdes = 10;
		assert_int_equal(unwind_table__get(dir, "feed", fd, &small, &back, &why), -E2BIG);
		assert_int_equal(why, UNWIND_TOO_MANY_FDES);
		/* Same caps: answered from the marker, even given a file that is not ELF. */
		assert_int_equal(unwind_table__get(dir, "feed", devnull, &small, &back, &why),
				 -E2BIG);
		assert_int_equal(why, UNWIND_TOO_MANY_FDES);
		/* Other caps: read again. */
		assert_int_equal(unwind_table__get(dir, "feed", fd, NULL, &back, &why), 0);
		unwind_table__free(back);
		close(devnull);
	}

	/* Names that are not build ids never become paths. */
	assert_int_equal(unwind_table__load(dir, "../etc", &back), -EINVAL);
	assert_int_equal(unwind_table__get(dir, "ABC/..", fd, NULL, &back, &why), -EINVAL);

	close(fd);
	unwind_table__free(t);
	fixture__free(fx);
}

static void expect_comparator_order(struct tmp_row *rows, size_t n)
{
	struct tmp_row *want = malloc(n * sizeof(*want));

	assert_non_null(want);
	memcpy(want, rows, n * sizeof(*rows));
	qsort(want, n, sizeof(*want), unwind_rows__cmp);
	unwind_rows__sort(rows, n);
	assert_memory_equal(rows, want, n * sizeof(*rows));
	/* Sorted again: unchanged. */
	unwind_rows__sort(rows, n);
	assert_memory_equal(rows, want, n * sizeof(*rows));
	free(want);
}

/* The sort gives qsort's order by the rows' comparator exactly, rows and all: unsorted
 * rows with ties at one address, rows already in order, a binary's cold parts (runs that
 * overlap), and addresses too far apart for one table (sorted all the same). */
static void test_rows_sort(void **state)
{
	static const struct {
		size_t n;
		uint64_t base, span;
	} cases[] = {
		{ 1, 0x1000, 1 },
		{ 2, 0x1000, 1 },
		{ 1000, 0x400000, 64 }, /* most addresses shared */
		{ 200000, 0x7f0000000000ull, 1u << 24 },
		{ 5000, 0, 1ull << 40 }, /* wider than a table: the fallback */
	};
	uint64_t seed = 42;
	struct tmp_row *rows;
	size_t n = 0;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		rows = calloc(cases[c].n, sizeof(*rows));
		assert_non_null(rows);
		for (size_t i = 0; i < cases[c].n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			rows[i].pc = cases[c].base + (seed >> 11) % cases[c].span;
			rows[i].seq = (uint32_t)i;
			rows[i].row.kind = (seed >> 3) % 3 ? UNWIND_CFA_RSP : UNWIND_CFA_NONE;
			rows[i].row.cfa_off = (uint16_t)i;
		}
		expect_comparator_order(rows, cases[c].n);
		free(rows);
	}
	/* Hot functions in order, each with a cold part far below it, as GCC lays out
	 * .text.unlikely: each FDE's rows in order, the runs overlapping. */
	rows = calloc(4 * 512, sizeof(*rows));
	assert_non_null(rows);
	for (uint32_t f = 0; f < 512; f++) {
		uint64_t hot = 0x10000 + f * 0x100, cold = 0x1000 + f * 0x10;
		static const uint8_t kinds[] = { UNWIND_CFA_RSP, UNWIND_CFA_NONE };

		for (int part = 0; part < 4; part++, n++) {
			rows[n].pc = (part < 2 ? hot : cold) + (part & 1) * (part < 2 ? 0x100 : 0x10);
			rows[n].seq = (uint32_t)n;
			rows[n].row.kind = kinds[part & 1];
		}
	}
	expect_comparator_order(rows, n);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_sort),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_built_programs),
		cmocka_unit_test(test_debug_frame_only),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_not_usable_files),
		cmocka_unit_test(test_hostile_sections),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
