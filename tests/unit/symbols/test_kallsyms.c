// SPDX-License-Identifier: MIT
/*
 * Kernel symbols and the kernel's build id: /proc/kallsyms files of the shapes the
 * kernel writes (text and data symbols, modules, the all-zero view of an unprivileged
 * reader), notes files with and without a GNU build id, and the running kernel's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/fixture.h"
#include "profile/profile.h"
#include "symbols/kallsyms.h"
#include "symbols/symtab.h"

static void assert_named(const struct symtab *tab, uint64_t addr, const char *want)
{
	uint64_t off;
	const char *got = symtab__lookup(tab, addr, &off);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
}

static void test_kallsyms_file(void **state)
{
	struct fixture *fx = fixture__new();
	struct symtab *tab;

	(void)state;
	assert_non_null(fx);
	fixture__write(fx, "kallsyms",
		       "ffffffff81000000 T _stext\n"
		       "ffffffff81000100 t do_one_thing\n"
		       "ffffffff81000200 D some_data\n"
		       "ffffffff81000300 T do_syscall_64\n"
		       "ffffffff81000400 W weak_function\n"
		       "ffffffff81000500 r read_only\n"
		       "ffffffffc0a01000 t nf_hook_thing\t[nf_tables]\n"
		       "ffffffffc0a01100 T nf_other\t[nf_tables]\n"
		       "not a line\n");
	tab = kallsyms__load(fixture__path(fx, "kallsyms"));
	assert_non_null(tab);
	assert_named(tab, 0xffffffff81000100ULL, "do_one_thing");
	/* Data symbols are not functions: the text before them runs on. */
	assert_named(tab, 0xffffffff81000250ULL, "do_one_thing");
	assert_named(tab, 0xffffffff81000310ULL, "do_syscall_64");
	assert_named(tab, 0xffffffff81000410ULL, "weak_function");
	assert_named(tab, 0xffffffffc0a01010ULL, "nf_hook_thing");
	assert_named(tab, 0xffffffffc0a01100ULL, "nf_other");
	assert_named(tab, 0xffffffff80000000ULL, NULL);
	symtab__free(tab);

	/* What an unprivileged reader sees (kptr_restrict): refused, not all "_stext". */
	fixture__write(fx, "zeros", "0000000000000000 T _stext\n0000000000000000 t foo\n");
	errno = 0;
	assert_null(kallsyms__load(fixture__path(fx, "zeros")));
	assert_int_equal(errno, EPERM);
	assert_null(kallsyms__load(fixture__path(fx, "missing")));
	assert_int_equal(errno, ENOENT);
	fixture__free(fx);
}

/* One ELF note: header, name padded to 4, descriptor padded to 4. */
static size_t put_note(unsigned char *buf, uint32_t type, const char *name, const void *desc,
		       uint32_t descsz)
{
	Elf32_Nhdr nh = { .n_namesz = strlen(name) + 1, .n_descsz = descsz, .n_type = type };
	size_t at = sizeof(nh);

	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + at, name, nh.n_namesz);
	at += (nh.n_namesz + 3) & ~3u;
	memcpy(buf + at, desc, descsz);
	at += (descsz + 3) & ~3u;
	return at;
}

static const char *write_bytes(struct fixture *fx, const char *name, const void *data,
			       size_t len)
{
	const char *path = fixture__path(fx, name);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

static void test_build_id(void **state)
{
	static const unsigned char id[20] = { 0x10, 0x1a, 0xb6, 0xe3, 0xd5, 0xf5, 0x3b, 0xc0,
					      0x86, 0x5c, 0x1d, 0x94, 0xa4, 0x77, 0x17, 0x64,
					      0x48, 0xa2, 0x61, 0xa6 };
	struct fixture *fx = fixture__new();
	char out[BUILD_ID_HEX_MAX + 1];
	unsigned char buf[512];
	size_t len = 0;

	(void)state;
	assert_non_null(fx);
	/* Other notes first, as Xen's and the kernel's own version notes sit there. */
	len += put_note(buf + len, 6, "Linux", "6.1", 4);
	len += put_note(buf + len, 18, "Xen", "\0\0\0\0\0\0\0\0", 8);
	len += put_note(buf + len, NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	assert_int_equal(kernel__build_id(write_bytes(fx, "notes", buf, len), out, sizeof(out)), 0);
	assert_string_equal(out, "101ab6e3d5f53bc0865c1d94a477176448a261a6");

	/* No build id; a note that claims more than the file holds. */
	len = put_note(buf, 6, "Linux", "6.1", 4);
	assert_int_equal(kernel__build_id(write_bytes(fx, "none", buf, len), out, sizeof(out)),
			 -ENOENT);
	len = put_note(buf, NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	((Elf32_Nhdr *)buf)->n_descsz = 4000;
	assert_int_equal(kernel__build_id(write_bytes(fx, "lying", buf, len), out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(kernel__build_id(fixture__path(fx, "missing"), out, sizeof(out)), -ENOENT);
	fixture__free(fx);
}

/* The running kernel: a build id of hex digits, and its own symbols when we may read
 * them (root). */
static void test_running_kernel(void **state)
{
	char out[BUILD_ID_HEX_MAX + 1];
	struct symtab *tab;

	(void)state;
	if (kernel__build_id("/sys/kernel/notes", out, sizeof(out)) == 0)
		assert_int_equal(strspn(out, "0123456789abcdef"), strlen(out));
	if (geteuid() != 0)
		skip();
	tab = kallsyms__load("/proc/kallsyms");
	assert_non_null(tab);
	assert_true(tab->nsyms > 1000);
	symtab__free(tab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_file),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
