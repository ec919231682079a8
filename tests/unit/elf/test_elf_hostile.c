// SPDX-License-Identifier: MIT
/*
 * The ELF reader against hostile input: what is not ELF, every truncation of a file,
 * damaged headers, names beyond any real table and random damage must be refused or read
 * sanely, never crash.
 */
#include "elf_fixture.h"

#include "elf/elf_reader.h"

/* ---- not ELF, truncated, damaged ---- */

static void test_not_elf(void **state)
{
	struct fixture *fx = fixture__new();
	const char *src = fixture__write(fx, "app.c", program);
	const char *empty = fixture__write(fx, "empty", "");
	const char *text = fixture__write(fx, "elf-ish", "\177ELF but not really");
	const char *obj = fixture__compile(fx, "lib.o", library, "-c");
	const char *files[] = { src, empty, text };
	struct elf_info info;
	struct symtab *tab;
	int fd, err;

	(void)state;
	assert_int_equal(fixture__sh(fx, "ar rcs archive.a '%s'", obj), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_non_null(files[i]);
		assert_int_equal(read_info(files[i], &info), -ENOEXEC);
		assert_string_equal(info.build_id, "");
		assert_null(read_symbols(files[i], ELF_SYMBOLS_SYMTAB, &err));
		assert_int_equal(err, -ENOEXEC);
	}
	assert_int_equal(read_info(fixture__path(fx, "archive.a"), &info), -ENOEXEC);

	/* Not a regular file: a directory, a character device. */
	fd = open(fixture__dir(fx), O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(elf_info__read(fd, &info), -ENOEXEC);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(elf_info__read(fd, &info), -ENOEXEC);
	assert_int_equal(symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab), -ENOEXEC);
	close(fd);
	/* A relocatable object is ELF: read, with its type. */
	assert_int_equal(read_info(obj, &info), 0);
	assert_int_equal(info.type, ET_REL);
	fixture__free(fx);
}

/* Cut anywhere, a file is not whole: the reader says so, at every cut point. */
static void assert_every_cut_refused(const char *path)
{
	size_t len;
	char *data = slurp(path, &len);
	int fd = memfd_create("cut", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, len, 0), (ssize_t)len);
	for (size_t cut = len; cut-- > 0;) {
		struct elf_info info;
		struct symtab *tab = NULL;
		int a, b, c;

		assert_int_equal(ftruncate(fd, (off_t)cut), 0);
		a = elf_info__read(fd, &info);
		b = symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab);
		c = symtab__read_elf(fd, ELF_SYMBOLS_DYNSYM, &tab);
		if (a != -ENOEXEC || b != -ENOEXEC || c != -ENOEXEC)
			fail_msg("%s cut at %zu of %zu: %d %d %d", path, cut, len, a, b, c);
		assert_null(tab);
	}
	close(fd);
	free(data);
}

static void test_truncated_at_every_cut(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -g");
	const char *dbg = fixture__only_keep_debug(fx, exe, "app.debug");
	const char *so = fixture__compile(fx, "lib.so", library, "-O1 -shared -fPIC");

	(void)state;
	assert_non_null(exe);
	assert_non_null(dbg);
	assert_non_null(so);
	assert_every_cut_refused(exe);
	assert_every_cut_refused(dbg);
	assert_every_cut_refused(so);
	/* And the whole file reads. */
	{
		struct elf_info info;

		assert_int_equal(read_info(dbg, &info), 0);
	}
	/* The same check through a real file on disk, for one cut. */
	{
		const char *cut = fixture__truncated_copy(fx, exe, 4096, "app.cut");
		struct elf_info info;

		assert_non_null(cut);
		assert_int_equal(read_info(cut, &info), -ENOEXEC);
	}
	fixture__free(fx);
}

/* A copy of an ELF64 file with one field of its headers changed. */
struct damage {
	const char *what;
	void (*apply)(unsigned char *elf, size_t len);
	int info_err, syms_err; /* what the reader must answer */
};

static Elf64_Ehdr *ehdr(unsigned char *elf)
{
	return (Elf64_Ehdr *)elf;
}

static Elf64_Shdr *shdr_of_type(unsigned char *elf, uint32_t type)
{
	Elf64_Ehdr *eh = ehdr(elf);

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(elf + eh->e_shoff + i * sizeof(Elf64_Shdr));

		if (sh->sh_type == type)
			return sh;
	}
	fail_msg("no section of type %u", type);
	return NULL;
}

static void shoff_past_end(unsigned char *elf, size_t len) { ehdr(elf)->e_shoff = len; }
static void shoff_huge(unsigned char *elf, size_t len) { (void)len; ehdr(elf)->e_shoff = ~0ull - 10; }
static void shnum_huge(unsigned char *elf, size_t len) { (void)len; ehdr(elf)->e_shnum = 0xfeff; }
static void shentsize_bad(unsigned char *elf, size_t len) { (void)len; ehdr(elf)->e_shentsize = 12; }
static void shstrndx_bad(unsigned char *elf, size_t len) { (void)len; ehdr(elf)->e_shstrndx = 0xfe00; }
static void phoff_past_end(unsigned char *elf, size_t len) { ehdr(elf)->e_phoff = len - 8; }
static void class_bad(unsigned char *elf, size_t len) { (void)len; elf[EI_CLASS] = 7; }
static void symtab_past_end(unsigned char *elf, size_t len)
{
	shdr_of_type(elf, SHT_SYMTAB)->sh_offset = len - 16;
}
static void symtab_size_huge(unsigned char *elf, size_t len)
{
	(void)len;
	shdr_of_type(elf, SHT_SYMTAB)->sh_size = ~0ull / 2;
}
static void symtab_link_bad(unsigned char *elf, size_t len)
{
	(void)len;
	shdr_of_type(elf, SHT_SYMTAB)->sh_link = 0xffff;
}
static void symtab_link_self(unsigned char *elf, size_t len)
{
	Elf64_Shdr *sh = shdr_of_type(elf, SHT_SYMTAB);

	(void)len;
	sh->sh_link = (uint32_t)(((unsigned char *)sh - elf - ehdr(elf)->e_shoff) /
				 sizeof(Elf64_Shdr));
}
static void symtab_entsize_bad(unsigned char *elf, size_t len)
{
	(void)len;
	shdr_of_type(elf, SHT_SYMTAB)->sh_entsize = 7;
}
/* Every name offset far past the string table: symbols without names are dropped. */
static void names_past_strtab(unsigned char *elf, size_t len)
{
	Elf64_Shdr *sh = shdr_of_type(elf, SHT_SYMTAB);

	(void)len;
	for (uint64_t o = sh->sh_offset; o + sizeof(Elf64_Sym) <= sh->sh_offset + sh->sh_size;
	     o += sizeof(Elf64_Sym))
		((Elf64_Sym *)(elf + o))->st_name = 0x7fffffff;
}
/* Every symbol named by the whole string table at once (its last NUL made a letter):
 * the copies would add up to many times the file; the reader refuses instead. */
static void names_all_huge(unsigned char *elf, size_t len)
{
	Elf64_Shdr *sh = shdr_of_type(elf, SHT_SYMTAB);
	Elf64_Shdr *str = (Elf64_Shdr *)(elf + ehdr(elf)->e_shoff +
					 sh->sh_link * sizeof(Elf64_Shdr));

	(void)len;
	memset(elf + str->sh_offset + 1, 'x', str->sh_size - 1);
	for (uint64_t o = sh->sh_offset; o + sizeof(Elf64_Sym) <= sh->sh_offset + sh->sh_size;
	     o += sizeof(Elf64_Sym))
		((Elf64_Sym *)(elf + o))->st_name = 1;
}
static void note_sizes_huge(unsigned char *elf, size_t len)
{
	Elf64_Ehdr *eh = ehdr(elf);

	(void)len;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(elf + eh->e_shoff + i * sizeof(Elf64_Shdr));

		if (sh->sh_type == SHT_NOTE && sh->sh_size >= 12)
			memset(elf + sh->sh_offset, 0xff, 8);
	}
}

static void test_damaged_headers(void **state)
{
	static const struct damage damages[] = {
		{ "e_shoff past the end", shoff_past_end, -ENOEXEC, -ENOEXEC },
		{ "e_shoff near 2^64", shoff_huge, -ENOEXEC, -ENOEXEC },
		{ "e_shnum too large", shnum_huge, -ENOEXEC, -ENOEXEC },
		{ "e_shentsize wrong", shentsize_bad, -ENOEXEC, -ENOEXEC },
		{ "e_shstrndx out of range", shstrndx_bad, -ENOEXEC, -ENOEXEC },
		{ "e_phoff past the end", phoff_past_end, -ENOEXEC, -ENOEXEC },
		{ "unknown class", class_bad, -ENOEXEC, -ENOEXEC },
		{ ".symtab past the end", symtab_past_end, -ENOEXEC, -ENOEXEC },
		{ ".symtab size huge", symtab_size_huge, -ENOEXEC, -ENOEXEC },
		{ ".symtab links nowhere", symtab_link_bad, 0, -ENOEXEC },
		{ ".symtab links to itself", symtab_link_self, 0, -ENOEXEC },
		{ ".symtab entry size wrong", symtab_entsize_bad, -ENOEXEC, -ENOEXEC },
		{ "names past .strtab", names_past_strtab, 0, 0 },
		{ "note sizes huge", note_sizes_huge, 0, 0 },
	};
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1");
	size_t len;
	unsigned char *orig;

	(void)state;
	assert_non_null(exe);
	orig = slurp(exe, &len);
	for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); i++) {
		const struct damage *d = &damages[i];
		unsigned char *copy = malloc(len);
		struct symtab *tab = NULL;
		struct elf_info info;
		int fd, a, b;

		assert_non_null(copy);
		memcpy(copy, orig, len);
		d->apply(copy, len);
		fd = memfd_of(copy, len);
		a = elf_info__read(fd, &info);
		b = symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab);
		if (a != d->info_err || b != d->syms_err)
			fail_msg("%s: info %d (want %d), symbols %d (want %d)", d->what, a,
				 d->info_err, b, d->syms_err);
		if (tab) {
			assert_invariants(tab);
			if (d->apply == names_past_strtab)
				assert_int_equal(symtab__named(tab), plt_names(tab));
		}
		if (d->apply == note_sizes_huge)
			assert_string_equal(info.build_id, "");
		symtab__free(tab);
		close(fd);
		free(copy);
	}
	free(orig);
	fixture__free(fx);
}

/* A file whose thousands of symbols are all named by its whole string table at once
 * would make the reader copy many times the file; it is refused instead. */
static void test_names_beyond_any_real_table(void **state)
{
	struct fixture *fx = fixture__new();
	const char *so = fixture__path(fx, "many.so");
	unsigned char *data;
	struct symtab *tab = NULL;
	size_t len;
	int fd;

	(void)state;
	assert_int_equal(fixture__sh(fx, "awk 'BEGIN { print \".text\"; for (i = 0; i < 4000; i++) "
				     "{ printf \".globl f%%d\\n.type f%%d,@function\\nf%%d:\\n ret\\n"
				     ".size f%%d,1\\n\", i, i, i, i } }' > many.s && as -o many.o many.s && "
				     "ld -shared --build-id -o '%s' many.o", so),
			 0);
	data = slurp(so, &len);
	fd = memfd_of(data, len);
	assert_int_equal(symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab), 0);
	assert_int_equal(tab->nsyms, 4000);
	symtab__free(tab);
	tab = NULL;
	close(fd);

	names_all_huge(data, len);
	fd = memfd_of(data, len);
	assert_int_equal(symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab), -ENOEXEC);
	assert_null(tab);
	close(fd);
	free(data);
	fixture__free(fx);
}

/* Random damage to a real file (fixed seeds, so a failure repeats): no crash, and any
 * table that comes back keeps the invariants. ASan checks the rest. */
static void test_random_damage(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -g");
	unsigned char *orig, *copy;
	unsigned seed = 12345;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(exe);
	orig = slurp(exe, &len);
	copy = malloc(len);
	assert_non_null(copy);
	fd = memfd_create("damage", MFD_CLOEXEC);
	assert_true(fd >= 0);
	for (int round = 0; round < 3000; round++) {
		struct elf_info info;
		struct symtab *tab = NULL;
		int flips = 1 + round % 8;

		memcpy(copy, orig, len);
		for (int f = 0; f < flips; f++) {
			size_t at;

			seed = seed * 1103515245u + 12345u;
			/* Mostly the headers, where damage matters most. */
			at = (seed >> 8) % (round % 2 ? len : 128);
			if (round % 3 == 0) {
				/* ... and the section header table at the end */
				at = len - 1 - (seed >> 8) % (len < 2048 ? len : 2048);
			}
			copy[at] = (unsigned char)(seed >> 20);
		}
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(pwrite(fd, copy, len, 0), (ssize_t)len);
		elf_info__read(fd, &info);
		assert_true(strlen(info.build_id) <= BUILD_ID_HEX_MAX);
		if (symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab) == 0)
			assert_invariants(tab);
		symtab__free(tab);
	}
	close(fd);
	free(copy);
	free(orig);
	fixture__free(fx);
}

/* ---- the reading's deadline ---- */

/* A reading past its deadline ends: at once on a large read, and within
 * ELF_READS_PER_CLOCK small ones (the thread's CPU clock is not looked at on each). */
static void test_deadline(void **state)
{
	struct elf_limits limits = { .max_sections = 1u << 16, .max_symbols = 1u << 24,
				     .bytes_left = 1ull << 30 };
	struct elf_reader r;
	char *buf = malloc(64u << 10);
	int fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY | O_CLOEXEC), err = 0, reads;

	(void)state;
	assert_non_null(buf);
	assert_true(fd >= 0);
	assert_int_equal(elf_reader__open_limited(&r, fd, &limits), 0);
	assert_int_equal(elf_reader__pread(&r, buf, 64u << 10, 0), 0);
	limits.deadline = (struct clock_budget){ .cpu_ns = 1, .wall_ns = 1 }; /* long past */
	assert_int_equal(elf_reader__pread(&r, buf, 64u << 10, 0), -ETIMEDOUT);
	for (reads = 0; reads < 1000 && !err; reads++)
		err = elf_reader__pread(&r, buf, 16, 0);
	assert_int_equal(err, -ETIMEDOUT);
	assert_true(reads <= 64);
	elf_reader__close(&r);
	close(fd);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated_at_every_cut),
		cmocka_unit_test(test_damaged_headers),
		cmocka_unit_test(test_names_beyond_any_real_table),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
