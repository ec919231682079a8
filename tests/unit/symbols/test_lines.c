// SPDX-License-Identifier: MIT
/*
 * Source lines: read from a real binary built with -g at test time (exact, for sampled
 * addresses, and every row, as an upload reads them), kept and read back in their
 * stored form (which refuses anything cut or edited), put on a profile's locations,
 * and exported in pprof with real mappings, the executable first. A gzip bomb is refused
 * within its budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "profile/pprof.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "util/strtab.h"

static char dir[64], src[128], bin[128];
static uint64_t hot_addr, main_addr;

static const char source[] =
	"static volatile unsigned long sink;\n"          /* 1 */
	"__attribute__((noinline)) void hot_loop(void)\n" /* 2 */
	"{\n"                                             /* 3 */
	"\tfor (unsigned long i = 0; i < 1000; i++)\n"    /* 4 */
	"\t\tsink += i * 7;\n"                            /* 5 */
	"}\n"                                             /* 6 */
	"int main(void)\n"                                /* 7 */
	"{\n"                                             /* 8 */
	"\thot_loop();\n"                                 /* 9 */
	"\treturn 0;\n"                                   /* 10 */
	"}\n";

static uint64_t symbol_address(const char *name)
{
	char cmd[256], line[256];
	uint64_t addr = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm '%s'", bin);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, sym[128];

		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 && strcmp(sym, name) == 0)
			addr = a;
	}
	pclose(f);
	return addr;
}

static int setup(void **state)
{
	char cmd[512];
	FILE *f;

	(void)state;
	strcpy(dir, "/tmp/slideops-lines.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(src, sizeof(src), "%s/hot.c", dir);
	snprintf(bin, sizeof(bin), "%s/hot", dir);
	f = fopen(src, "w");
	if (!f || fputs(source, f) < 0 || fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "gcc -g -O1 -Wl,--build-id -o '%s' '%s'", bin, src);
	if (system(cmd) != 0)
		return -1;
	hot_addr = symbol_address("hot_loop");
	main_addr = symbol_address("main");
	return hot_addr && main_addr ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_exact_lines_of_sampled_addresses(void **state)
{
	uint64_t addrs[3] = { hot_addr, main_addr, 0x10 };
	struct line_table *t;
	const struct line_row *r;
	int fd = open(bin, O_RDONLY);

	(void)state;
	if (hot_addr > main_addr) {
		addrs[0] = 0x10;
		addrs[1] = main_addr;
		addrs[2] = hot_addr;
	} else {
		addrs[0] = 0x10;
		addrs[1] = hot_addr;
		addrs[2] = main_addr;
	}
	assert_true(fd >= 0);
	assert_int_equal(lines__read(fd, addrs, 3, NULL, &t), 0);
	close(fd);
	assert_true(t->exact);
	r = line_table__find(t, hot_addr);
	assert_non_null(r);
	assert_true(r->line >= 2 && r->line <= 5);
	assert_int_equal(r->start_line, 2);
	assert_non_null(strstr(line_table__file(t, r), "hot.c"));
	r = line_table__find(t, main_addr);
	assert_non_null(r);
	assert_true(r->line >= 7 && r->line <= 9);
	assert_int_equal(r->start_line, 7);
	/* Exact: an address not read has no line, nor does one outside the code. */
	assert_null(line_table__find(t, hot_addr + 1));
	assert_null(line_table__find(t, 0x10));
	line_table__free(t);
}

static void test_every_row_and_stored_form(void **state)
{
	struct line_table *t, *back, *m;
	const struct line_row *r;
	void *blob;
	size_t len;
	int fd = open(bin, O_RDONLY);

	(void)state;
	assert_int_equal(lines__read(fd, NULL, 0, NULL, &t), 0);
	close(fd);
	assert_false(t->exact);
	/* Ranges: an address inside hot_loop takes the row at or before it. */
	r = line_table__find(t, hot_addr + 1);
	assert_non_null(r);
	assert_true(r->line >= 2 && r->line <= 5);
	assert_int_equal(r->start_line, 2);

	assert_int_equal(line_table__serialize(t, &blob, &len), 0);
	back = line_table__deserialize(blob, len);
	assert_non_null(back);
	assert_int_equal(back->n, t->n);
	assert_int_equal(line_table__find(back, hot_addr + 1)->line, r->line);
	/* Cut anywhere, or a count that promises more: refused. */
	for (size_t cut = 0; cut < len; cut += len / 17 + 1) {
		errno = 0;
		assert_null(line_table__deserialize(blob, cut));
		assert_int_equal(errno, EBADMSG);
	}
	((unsigned char *)blob)[16] = 0xff;
	assert_null(line_table__deserialize(blob, len));
	free(blob);

	/* Exact rows of two captures join. */
	m = line_table__merge(back, NULL);
	assert_non_null(m);
	assert_int_equal(m->n, back->n);
	line_table__free(m);
	line_table__free(back);
	line_table__free(t);

	/* Not ELF, no DWARF: no lines, no crash. */
	fd = open(src, O_RDONLY);
	assert_int_equal(lines__read(fd, NULL, 0, NULL, &t), -ENODATA);
	close(fd);
}

/* The pprof export: lines on the locations from the table kept by build id, real
 * mappings, the executable first (pprof's main binary), has_line_numbers set. */
static void test_export_has_lines_and_main_binary_first(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU), *back;
	struct prof_mapping lib = { .kind = MAPPING_LIB, .language = LANGUAGE_C,
				    .build_id_recorded = true };
	struct prof_mapping exe = { .kind = MAPPING_EXE, .language = LANGUAGE_C,
				    .build_id_recorded = true, .start = 0x555555554000 + 0x1000,
				    .limit = 0x555555554000 + 0x2000, .offset = 0x1000,
				    .vaddr = 0x1000 };
	struct prof_labels lb = { .pid = 1, .comm = 0 };
	uint32_t ml, me, locs[2], stack;
	int64_t v[PROFILE_MAX_VALUES] = { 5, 50000000 };
	char path[160];
	struct lines_lookup lookup;
	struct store *s;
	struct line_table *t;
	uint64_t addrs[1] = { hot_addr };
	void *blob;
	size_t len;
	int fd;

	(void)state;
	lib.path = profile__intern(p, "/usr/lib/libc.so.6");
	lib.build_id = profile__intern(p, "aaaa");
	exe.path = profile__intern(p, bin);
	exe.build_id = profile__intern(p, "bbbb");
	ml = profile__add_mapping(p, &lib);
	me = profile__add_mapping(p, &exe);
	locs[0] = profile__add_location(p, &(struct prof_location){ .mapping = me,
								     .address = hot_addr });
	locs[1] = profile__add_location(p, &(struct prof_location){ .mapping = ml,
								     .address = 0x29d90 });
	stack = profile__add_stack(p, locs, 2);
	lb.comm = profile__intern(p, "hot");
	assert_int_equal(profile__add_sample(p, stack, v, &lb), 0);
	p->locations[locs[0]].name = profile__intern(p, "hot_loop");
	p->locations[locs[1]].name = profile__intern(p, "__libc_start_call_main");

	snprintf(path, sizeof(path), "%s/ws", dir);
	s = store__open(path);
	assert_non_null(s);
	fd = open(bin, O_RDONLY);
	assert_int_equal(lines__read(fd, addrs, 1, NULL, &t), 0);
	close(fd);
	assert_int_equal(store__put_lines(s, "bbbb", t), 0);
	line_table__free(t);
	lookup = store__lines_lookup(s);
	assert_int_equal(profile__add_lines(p, &lookup), 0);
	store__close(s);
	assert_true(p->locations[locs[0]].src_line >= 2);

	assert_int_equal(pprof__encode(p, true, &blob, &len), 0);
	assert_int_equal(pprof__decode(blob, len, &back), 0);
	free(blob);
	/* The executable first, its range as the process had it. */
	assert_string_equal(profile__str(back, back->mappings[0].path), bin);
	assert_int_equal(back->mappings[0].start, 0x555555555000);
	assert_int_equal(back->mappings[0].limit, 0x555555556000);
	assert_int_equal(back->mappings[0].offset, 0x1000);
	/* Read back, addresses are ELF addresses again, with the file and line. */
	for (uint32_t i = 0; i < back->nlocations; i++) {
		const struct prof_location *l = &back->locations[i];

		if (l->mapping != 0)
			continue;
		assert_int_equal(l->address, hot_addr);
		assert_non_null(strstr(profile__str(back, l->file), "hot.c"));
		assert_true(l->line >= 2 && l->line <= 5);
	}
	profile__free(back);
	profile__free(p);
}

static int open_bin(void *ctx, uint32_t mapping)
{
	(void)ctx;
	(void)mapping;
	return open(bin, O_RDONLY | O_CLOEXEC);
}

/* What the capture calls after sampling: each build's sampled addresses read once and
 * kept by build id; a second capture's rows join the first's. */
static void test_read_profile_keeps_by_build_id(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct prof_mapping exe = { .kind = MAPPING_EXE, .build_id_recorded = true };
	struct line_table *t;
	char path[160];
	struct store *s;
	uint32_t m;

	(void)state;
	exe.path = profile__intern(p, bin);
	exe.build_id = profile__intern(p, "cccc");
	m = profile__add_mapping(p, &exe);
	profile__add_location(p, &(struct prof_location){ .mapping = m, .address = hot_addr });
	snprintf(path, sizeof(path), "%s/ws2", dir);
	s = store__open(path);
	assert_non_null(s);
	assert_int_equal(lines__read_profile(p, open_bin, NULL, store__keep_lines, s, NULL), 1);
	profile__add_location(p, &(struct prof_location){ .mapping = m, .address = main_addr });
	assert_int_equal(lines__read_profile(p, open_bin, NULL, store__keep_lines, s, NULL), 1);
	assert_int_equal(store__get_lines(s, "cccc", &t), 0);
	assert_int_equal(t->n, 2);
	assert_non_null(line_table__find(t, hot_addr));
	assert_non_null(line_table__find(t, main_addr));
	line_table__free(t);
	store__close(s);
	profile__free(p);
}

/* 1 GiB of zeros in about 1 MB of gzip: refused, with no more than a few MB in use. */
static void test_gzip_bomb_is_refused_within_budget(void **state)
{
	static unsigned char zeros[1 << 16];
	size_t cap = 2 << 20;
	unsigned char *gz = malloc(cap);
	z_stream zs = { 0 };
	struct profile *p;
	struct rusage before, after;

	(void)state;
	assert_non_null(gz);
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_out = gz;
	zs.avail_out = (uInt)cap;
	for (int i = 0; i < (1 << 14); i++) {
		zs.next_in = zeros;
		zs.avail_in = sizeof(zeros);
		assert_true(deflate(&zs, i == (1 << 14) - 1 ? Z_FINISH : Z_NO_FLUSH) >= 0);
	}
	assert_true(zs.total_out < cap);
	getrusage(RUSAGE_SELF, &before);
	assert_int_equal(pprof__decode(gz, zs.total_out, &p), -EBADMSG);
	getrusage(RUSAGE_SELF, &after);
	assert_null(p);
	/* ru_maxrss is in kB: the peak grew by less than 32 MB (it used to grow by 1 GB). */
	assert_true(after.ru_maxrss - before.ru_maxrss < 32 * 1024);
	deflateEnd(&zs);
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gzip_bomb_is_refused_within_budget),
		cmocka_unit_test(test_exact_lines_of_sampled_addresses),
		cmocka_unit_test(test_every_row_and_stored_form),
		cmocka_unit_test(test_export_has_lines_and_main_binary_first),
		cmocka_unit_test(test_read_profile_keeps_by_build_id),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
