/* SPDX-License-Identifier: MIT */
/*
 * What the ELF reader's tests share (test_elf.c, test_elf_hostile.c, test_elf_formats.c):
 * the sources they build with gcc, reading a file whole or into a memory file, its ELF
 * facts and symbol tables, and checks against readelf's view of the same file. Each
 * including file uses what it needs.
 */
#ifndef SLIDEOPS_TESTS_ELF_FIXTURE_H
#define SLIDEOPS_TESTS_ELF_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "helpers/fixture.h"
#include "symbols/symtab.h"

__attribute__((unused)) static const char program[] =
	"#include <stdio.h>\n"
	"static int helper_square(int x) { return x * x; }\n"
	"__attribute__((noinline)) int compute_totals(int n)\n"
	"{ int s = 0; for (int i = 0; i < n; i++) s += helper_square(i) ^ s; return s; }\n"
	"__attribute__((noinline)) void report_totals(int v) { printf(\"%d\\n\", v); }\n"
	"int main(int argc, char **argv) { (void)argv; report_totals(compute_totals(argc)); return 0; }\n";

__attribute__((unused)) static const char library[] =
	"int lib_add(int a, int b) { return a + b; }\n"
	"static __attribute__((noinline)) int lib_hidden(int a) { return a * 7 + 1; }\n"
	"int lib_mul(int a, int b) { return lib_hidden(a) * b; }\n";

/* ---- helpers ---- */

__attribute__((unused)) static int open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

__attribute__((unused)) static void *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open_file(path);
	char *buf;

	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

__attribute__((unused)) static int memfd_of(const void *data, size_t len)
{
	int fd = memfd_create("elf-test", MFD_CLOEXEC);

	assert_true(fd >= 0);
	if (len)
		assert_int_equal(pwrite(fd, data, len, 0), (ssize_t)len);
	return fd;
}

__attribute__((unused)) static int read_info(const char *path, struct elf_info *info)
{
	int fd = open_file(path), err;

	err = elf_info__read(fd, info);
	close(fd);
	return err;
}

__attribute__((unused)) static struct symtab *read_symbols(const char *path, enum elf_symbols_from from, int *err)
{
	struct symtab *tab = NULL;
	int fd = open_file(path);

	*err = symtab__read_elf(fd, from, &tab);
	close(fd);
	return tab;
}

/* The symbol table invariants every table keeps: sorted by address, strictly (aliases
 * folded into one), none empty, names inside the buffer ("" only for the unnamed
 * functions of .eh_frame, which never start where a named one does). */
__attribute__((unused)) static void assert_invariants(const struct symtab *tab)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		const struct symbol *s = &tab->syms[i];

		assert_true(s->size > 0);
		assert_true(s->name < tab->names_len);
		if (i > 0)
			assert_true(tab->syms[i - 1].addr < s->addr);
	}
}

/* A name the ELF table itself holds: not a PLT stub's, not an unnamed function. */
__attribute__((unused)) static bool from_table(const struct symtab *tab, size_t i)
{
	const char *name = tab->names + tab->syms[i].name;
	size_t len = strlen(name);

	return len > 0 && !(len > 4 && strcmp(name + len - 4, "@plt") == 0);
}

__attribute__((unused)) static const char *lookup(const struct symtab *tab, uint64_t addr)
{
	return symtab__lookup(tab, addr, NULL);
}

__attribute__((unused)) static uint64_t address_of(const struct symtab *tab, const char *name)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		if (strcmp(tab->names + tab->syms[i].name, name) == 0)
			return tab->syms[i].addr;
	}
	fail_msg("no symbol %s", name);
	return 0;
}

__attribute__((unused)) static bool has_name(const struct symtab *tab, const char *name)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		if (strcmp(tab->names + tab->syms[i].name, name) == 0)
			return true;
	}
	return false;
}

__attribute__((unused)) static size_t plt_names(const struct symtab *tab)
{
	size_t n = 0;

	for (size_t i = 0; i < tab->nsyms; i++)
		n += tab->names[tab->syms[i].name] != '\0' && !from_table(tab, i);
	return n;
}

/*
 * Compares a table with readelf's function symbols of the same table: every address
 * readelf lists starts one of ours, and each of ours is one readelf lists, name and
 * address (aliases at one address are folded into one name).
 */
__attribute__((unused)) static void assert_matches_readelf(struct fixture *fx, const char *path, const char *table,
				   const struct symtab *tab)
{
	char *out = fixture__sh_output(
		fx,
		"readelf -W --syms '%s' | "
		"awk -v want='%s' '/^Symbol table/ { cur = index($0, \"\\047\" want \"\\047\") > 0 } "
		"cur && ($4 == \"FUNC\" || $4 == \"IFUNC\") && $7 != \"UND\" && $7 != \"ABS\" "
		"{ sub(/@.*/, \"\", $8); print $2, $8 }'",
		path, table);
	struct { uint64_t addr; char name[256]; } *listed = NULL;
	size_t n = 0, cap = 0;
	char *line, *save = NULL;

	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t off = 1;

		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			listed = realloc(listed, cap * sizeof(*listed));
			assert_non_null(listed);
		}
		assert_int_equal(sscanf(line, "%" SCNx64 " %255s", &listed[n].addr, listed[n].name),
				 2);
		assert_non_null(symtab__lookup(tab, listed[n].addr, &off));
		assert_int_equal(off, 0);
		n++;
	}
	assert_true(n >= symtab__named(tab) - plt_names(tab));
	assert_true(tab->nsyms > 0);
	for (size_t i = 0; i < tab->nsyms; i++) {
		bool found = false;

		if (!from_table(tab, i))
			continue;

		for (size_t j = 0; j < n && !found; j++)
			found = listed[j].addr == tab->syms[i].addr &&
				strcmp(listed[j].name, tab->names + tab->syms[i].name) == 0;
		if (!found)
			fail_msg("%s: %s at %" PRIx64 " is not in readelf's %s", path,
				 tab->names + tab->syms[i].name, tab->syms[i].addr, table);
	}
	free(listed);
	free(out);
}

__attribute__((unused)) static char *readelf_build_id(struct fixture *fx, const char *path)
{
	return fixture__sh_output(fx, "readelf -n '%s' | awk '/Build ID/ { print $3; exit }'",
				  path);
}

#endif
