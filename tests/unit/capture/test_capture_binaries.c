// SPDX-License-Identifier: MIT
/*
 * Reading the binaries a capture met, after sampling, within caps. Real files built here:
 * a program read whole (its mapping filled in, its frames' file offsets become the ELF
 * addresses nm gives, its table handed back for its build id, or nothing read when the
 * caller keeps that build already), and copies any user could leave on a server -- a
 * section table of 60,000 entries, symbol tables of 64 MB of nothing in a sparse file,
 * a file that is not ELF -- each listed as not read with its reason, within its caps.
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

#include "capture/binaries.h"
#include "helpers/fixture.h"
#include "profile/profile.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"

static const char program[] =
	"__attribute__((noinline)) int work_here(int x) { return x * 3 + 1; }\n"
	"int main(int argc, char **argv) { (void)argv; return work_here(argc); }\n";

struct env {
	struct fixture *fx;
	char top[4096];      /* the repository: tests run from there */
	const char *bin;
	uint64_t work_vaddr, work_offset;
};

static uint64_t sh_hex(struct env *e, const char *fmt, const char *arg)
{
	char *out = fixture__sh_output(e->fx, fmt, arg);
	uint64_t v;

	assert_non_null(out);
	v = strtoull(out, NULL, 16);
	free(out);
	return v;
}

/* Where vaddr sits in the file: what /proc/PID/maps turns a sampled address into. */
static uint64_t file_offset(const char *path, uint64_t vaddr)
{
	struct elf_info info;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(elf_info__read(fd, &info), 0);
	close(fd);
	for (unsigned i = 0; i < info.nsegments; i++) {
		const struct elf_segment *seg = &info.segments[i];

		if (vaddr >= seg->vaddr && vaddr < seg->vaddr + seg->filesz)
			return vaddr - seg->vaddr + seg->offset;
	}
	fail_msg("0x%llx is in no segment of %s", (unsigned long long)vaddr, path);
	return 0;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	assert_non_null(getcwd(e->top, sizeof(e->top)));
	e->fx = fixture__new();
	assert_non_null(e->fx);
	e->bin = fixture__compile(e->fx, "prog", program, "-O1 -pie -fPIE");
	assert_non_null(e->bin);
	e->work_vaddr = sh_hex(e, "nm %s | awk '$3 == \"work_here\" { print $1 }'", e->bin);
	e->work_offset = file_offset(e->bin, e->work_vaddr);
	assert_true(e->work_vaddr && e->work_offset);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	fixture__free(e->fx);
	free(e);
	return 0;
}

/* A capture's view of path: the binary met, one frame at file offset off in it. */
static struct binaries *met(const char *path, struct profile *p, uint64_t off,
			    uint32_t *location)
{
	struct binaries *b = binaries__new();
	struct prof_location loc = { 0 };
	struct binary *bin;
	struct stat st;

	assert_non_null(b);
	assert_int_equal(stat(path, &st), 0);
	bin = binaries__get_by_path(b, st.st_dev, st.st_ino, path, true);
	assert_non_null(bin);
	loc.mapping = binary__mapping(bin, p, 0x7f0000000000ULL, 0x7f0000100000ULL, 0);
	assert_int_not_equal(loc.mapping, UINT32_MAX);
	loc.address = off;
	*location = profile__add_location(p, &loc);
	assert_int_not_equal(*location, UINT32_MAX);
	return b;
}

static int keeps_nothing(void *ctx, const char *build_id)
{
	(void)ctx;
	(void)build_id;
	return 0;
}

static int keeps_everything(void *ctx, const char *build_id)
{
	(void)build_id;
	++*(int *)ctx;
	return 1;
}

static void test_read_whole(void **state)
{
	struct env *e = *state;
	struct profile *p = profile__new(QUESTION_CPU);
	struct binaries_read_options o = { .has_symbols = keeps_nothing };
	struct binaries_read_result read;
	const struct prof_mapping *m;
	uint64_t off;
	uint32_t loc;
	struct binaries *b = met(e->bin, p, e->work_offset, &loc);

	assert_int_equal(binaries__read(b, p, &o, &read), 0);
	assert_int_equal(p->header.nnot_read, 0);
	m = &p->mappings[p->locations[loc].mapping];
	assert_int_equal(strlen(profile__str(p, m->build_id)), 40);
	assert_true(m->has_symtab);
	assert_int_equal(m->identity, 0);
	assert_true(p->locations[loc].address == e->work_vaddr);
	assert_int_equal(read.nsymbols, 1);
	assert_string_equal(read.symbols[0].build_id, profile__str(p, m->build_id));
	assert_true(read.symbols[0].from_symtab);
	assert_string_equal(symtab__lookup(read.symbols[0].tab, e->work_vaddr, &off), "work_here");
	binaries_read_result__release(&read);
	binaries__free(b);
	profile__free(p);
}

/* Built with -g: the source line of the sampled address comes back for its build. */
static void test_lines_of_sampled_addresses(void **state)
{
	struct env *e = *state;
	const char *bin = fixture__compile(e->fx, "progg", program, "-O1 -g -pie -fPIE");
	struct profile *p = profile__new(QUESTION_CPU);
	struct binaries_read_result read;
	const struct line_row *row;
	uint32_t loc;
	struct binaries *b;
	uint64_t vaddr;

	assert_non_null(bin);
	vaddr = sh_hex(e, "nm %s | awk '$3 == \"work_here\" { print $1 }'", bin);
	b = met(bin, p, file_offset(bin, vaddr), &loc);
	assert_int_equal(binaries__read(b, p, NULL, &read), 0);
	assert_true(p->locations[loc].address == vaddr);
	assert_int_equal(read.nlines, 1);
	row = line_table__find(read.lines[0].table, vaddr);
	assert_non_null(row);
	assert_true(strstr(line_table__file(read.lines[0].table, row), "progg.c") != NULL);
	assert_int_equal(row->line, 1);
	binaries_read_result__release(&read);
	binaries__free(b);
	profile__free(p);
}

static void test_kept_build_not_read_again(void **state)
{
	struct env *e = *state;
	struct profile *p = profile__new(QUESTION_CPU);
	int asked = 0;
	struct binaries_read_options o = { .has_symbols = keeps_everything, .ctx = &asked };
	struct binaries_read_result read;
	uint32_t loc;
	struct binaries *b = met(e->bin, p, e->work_offset, &loc);

	assert_int_equal(binaries__read(b, p, &o, &read), 0);
	assert_int_equal(asked, 1);
	assert_int_equal(read.nsymbols, 0);
	/* Its facts are read all the same: the frame has its ELF address. */
	assert_true(p->locations[loc].address == e->work_vaddr);
	binaries_read_result__release(&read);
	binaries__free(b);
	profile__free(p);
}

/* Reads a hostile copy of the program and returns the reason it was not read. */
static const char *not_read_reason(struct env *e, const char *name, unsigned nsections,
				   const struct binaries_budget *budget, struct profile *p)
{
	struct binaries_read_options o = { .budget = budget };
	struct binaries_read_result read;
	const char *path;
	uint32_t loc;
	struct binaries *b;

	assert_int_equal(fixture__sh(e->fx, "python3 %s/tests/tools/make-hostile-elf.py %s %s %u",
				     e->top, e->bin, name, nsections), 0);
	path = fixture__path(e->fx, name);
	b = met(path, p, e->work_offset, &loc);
	assert_int_equal(binaries__read(b, p, &o, &read), 0);
	assert_int_equal(read.nsymbols, 0);
	binaries_read_result__release(&read);
	binaries__free(b);
	assert_int_equal(p->header.nnot_read, 1);
	assert_string_equal(profile__str(p, p->header.not_read[0].path), path);
	return profile__str(p, p->header.not_read[0].reason);
}

static void test_too_many_sections(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);

	assert_string_equal(not_read_reason(*state, "sections", 60000, NULL, p),
			    "it has more than 16384 sections");
	profile__free(p);
}

static void test_bytes_cap(void **state)
{
	struct binaries_budget budget = binaries_budget_default;
	struct profile *p = profile__new(QUESTION_CPU);

	budget.bytes = 32 << 20;
	assert_string_equal(not_read_reason(*state, "bytes", 200, &budget, p),
			    "reading it needed more than 32 MB");
	profile__free(p);
}

static void test_time_cap(void **state)
{
	struct binaries_budget budget = binaries_budget_default;
	struct profile *p = profile__new(QUESTION_CPU);

	budget.per_binary_ns = 1000000; /* 1 ms: 200 tables of 64 MB take far longer */
	assert_string_equal(not_read_reason(*state, "slow", 200, &budget, p),
			    "reading it took more than 1 ms of CPU time (or 8 times that in all)");
	profile__free(p);
}

static void test_whole_budget_runs_out(void **state)
{
	struct binaries_budget budget = binaries_budget_default;
	struct profile *p = profile__new(QUESTION_CPU);

	budget.total_ns = 0;
	assert_string_equal(not_read_reason(*state, "late", 2, &budget, p),
			    "the capture's 0 s of CPU time for reading binaries (or 8 times that in "
			    "all) ran out before it");
	profile__free(p);
}

static void test_not_elf(void **state)
{
	struct env *e = *state;
	struct profile *p = profile__new(QUESTION_CPU);
	struct binaries_read_result read;
	const char *path = fixture__write(e->fx, "script", "#!/bin/sh\necho hi\n");
	uint32_t loc;
	struct binaries *b = met(path, p, 0x10, &loc);

	assert_int_equal(binaries__read(b, p, NULL, &read), 0);
	assert_int_equal(p->header.nnot_read, 1);
	assert_string_equal(profile__str(p, p->header.not_read[0].reason),
			    "it is not a whole ELF file");
	/* The frame keeps its file offset: nothing better is known. */
	assert_int_equal(p->locations[loc].address, 0x10);
	binaries__free(b);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_whole),
		cmocka_unit_test(test_lines_of_sampled_addresses),
		cmocka_unit_test(test_kept_build_not_read_again),
		cmocka_unit_test(test_too_many_sections),
		cmocka_unit_test(test_bytes_cap),
		cmocka_unit_test(test_time_cap),
		cmocka_unit_test(test_whole_budget_runs_out),
		cmocka_unit_test(test_not_elf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
