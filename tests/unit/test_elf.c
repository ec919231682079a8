// SPDX-License-Identifier: MIT
/*
 * The ELF reader against real files built here with gcc (and clang, go when present):
 * executables PIE and not, shared libraries, debug files, stripped and compressed
 * builds. Symbols are checked against readelf's view of the same file; hostile input
 * (every truncation of a file, damaged headers, random damage) must be refused or read
 * sanely, never crash.
 */
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

static const char program[] =
	"#include <stdio.h>\n"
	"static int helper_square(int x) { return x * x; }\n"
	"__attribute__((noinline)) int compute_totals(int n)\n"
	"{ int s = 0; for (int i = 0; i < n; i++) s += helper_square(i) ^ s; return s; }\n"
	"__attribute__((noinline)) void report_totals(int v) { printf(\"%d\\n\", v); }\n"
	"int main(int argc, char **argv) { (void)argv; report_totals(compute_totals(argc)); return 0; }\n";

static const char library[] =
	"int lib_add(int a, int b) { return a + b; }\n"
	"static __attribute__((noinline)) int lib_hidden(int a) { return a * 7 + 1; }\n"
	"int lib_mul(int a, int b) { return lib_hidden(a) * b; }\n";

/* ---- helpers ---- */

static int open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static void *slurp(const char *path, size_t *len)
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

static int memfd_of(const void *data, size_t len)
{
	int fd = memfd_create("elf-test", MFD_CLOEXEC);

	assert_true(fd >= 0);
	if (len)
		assert_int_equal(pwrite(fd, data, len, 0), (ssize_t)len);
	return fd;
}

static int read_info(const char *path, struct elf_info *info)
{
	int fd = open_file(path), err;

	err = elf_info__read(fd, info);
	close(fd);
	return err;
}

static struct symtab *read_symbols(const char *path, enum elf_symbols_from from, int *err)
{
	struct symtab *tab = NULL;
	int fd = open_file(path);

	*err = symtab__read_elf(fd, from, &tab);
	close(fd);
	return tab;
}

/* The symbol table invariants every table keeps: sorted by address, strictly (aliases
 * folded into one), none empty, names non-empty and inside the buffer. */
static void assert_invariants(const struct symtab *tab)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		const struct symbol *s = &tab->syms[i];

		assert_true(s->size > 0);
		assert_true(s->name < tab->names_len);
		assert_true(tab->names[s->name] != '\0');
		if (i > 0)
			assert_true(tab->syms[i - 1].addr < s->addr);
	}
}

static const char *lookup(const struct symtab *tab, uint64_t addr)
{
	return symtab__lookup(tab, addr, NULL);
}

static uint64_t address_of(const struct symtab *tab, const char *name)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		if (strcmp(tab->names + tab->syms[i].name, name) == 0)
			return tab->syms[i].addr;
	}
	fail_msg("no symbol %s", name);
	return 0;
}

static bool has_name(const struct symtab *tab, const char *name)
{
	for (size_t i = 0; i < tab->nsyms; i++) {
		if (strcmp(tab->names + tab->syms[i].name, name) == 0)
			return true;
	}
	return false;
}

/*
 * Compares a table with readelf's function symbols of the same table: every address
 * readelf lists starts one of ours, and each of ours is one readelf lists, name and
 * address (aliases at one address are folded into one name).
 */
static void assert_matches_readelf(struct fixture *fx, const char *path, const char *table,
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
	assert_true(n >= tab->nsyms);
	assert_true(tab->nsyms > 0);
	for (size_t i = 0; i < tab->nsyms; i++) {
		bool found = false;

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

static char *readelf_build_id(struct fixture *fx, const char *path)
{
	return fixture__sh_output(fx, "readelf -n '%s' | awk '/Build ID/ { print $3; exit }'",
				  path);
}

/* ---- executables ---- */

static void test_executable_not_pie(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -g -no-pie -Wl,--build-id");
	struct elf_info info;
	struct symtab *tab;
	char *want_id;
	int err;

	(void)state;
	assert_non_null(exe);
	assert_int_equal(read_info(exe, &info), 0);
	want_id = readelf_build_id(fx, exe);
	assert_non_null(want_id);
	assert_string_equal(info.build_id, want_id);
	assert_int_equal(strlen(info.build_id), 40);
	assert_int_equal(info.type, ET_EXEC);
	assert_true(info.has_symtab);
	assert_false(info.debug_only);
	assert_false(info.is_go);
	assert_int_equal(info.language, LANGUAGE_C);
	assert_true(info.nsegments >= 2);

	tab = read_symbols(exe, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_invariants(tab);
	assert_true(has_name(tab, "compute_totals"));
	assert_true(has_name(tab, "report_totals"));
	assert_true(has_name(tab, "main"));
	/* Non-PIE: linked at 0x400000 and up. */
	assert_true(address_of(tab, "main") >= 0x400000);
	/* An address inside a function names it; its offset is from the start. */
	{
		uint64_t a = address_of(tab, "compute_totals"), off;

		assert_string_equal(symtab__lookup(tab, a + 3, &off), "compute_totals");
		assert_int_equal(off, 3);
	}
	assert_matches_readelf(fx, exe, ".symtab", tab);
	symtab__free(tab);
	free(want_id);
	fixture__free(fx);
}

static void test_executable_pie_offsets(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -pie -fPIE");
	struct elf_info info;
	struct symtab *tab;
	uint64_t seg_off, seg_vaddr, vaddr, main_addr;
	char *line;
	int err;

	(void)state;
	assert_non_null(exe);
	assert_int_equal(read_info(exe, &info), 0);
	assert_int_equal(info.type, ET_DYN);
	assert_true(info.has_symtab);
	assert_true(info.build_id[0]);

	tab = read_symbols(exe, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_invariants(tab);
	assert_matches_readelf(fx, exe, ".symtab", tab);
	main_addr = address_of(tab, "main");
	assert_true(main_addr < 0x100000); /* PIE: linked near 0 */

	/* The executable segment as readelf has it: a file offset inside it turns into
	 * the ELF address at the same distance from the segment's start. */
	line = fixture__sh_output(fx, "readelf -lW '%s' | awk '$1 == \"LOAD\" && / R E / "
				  "{ print $2, $3; exit }'", exe);
	assert_non_null(line);
	assert_int_equal(sscanf(line, "%" SCNx64 " %" SCNx64, &seg_off, &seg_vaddr), 2);
	free(line);
	assert_true(elf_info__offset_to_vaddr(&info, main_addr - seg_vaddr + seg_off, &vaddr));
	assert_int_equal(vaddr, main_addr);
	assert_string_equal(lookup(tab, vaddr), "main");
	/* Far past the end of the file: no segment. */
	assert_false(elf_info__offset_to_vaddr(&info, 1ull << 40, &vaddr));
	symtab__free(tab);
	fixture__free(fx);
}

static void test_offset_to_vaddr_rules(void **state)
{
	struct elf_info info = { 0 };
	uint64_t v = 0;

	(void)state;
	info.nsegments = 2;
	info.segments[0] = (struct elf_segment){ .offset = 0, .vaddr = 0x400000, .filesz = 0x800,
						 .memsz = 0x800, .flags = 4 };
	info.segments[1] = (struct elf_segment){ .offset = 0x1040, .vaddr = 0x401040,
						 .filesz = 0x2000, .memsz = 0x2000, .flags = 5 };
	assert_true(elf_info__offset_to_vaddr(&info, 0x10, &v));
	assert_int_equal(v, 0x400010);
	assert_true(elf_info__offset_to_vaddr(&info, 0x1050, &v));
	assert_int_equal(v, 0x401050);
	/* Before the segment but in the page it starts in: mapped at the same distance. */
	assert_true(elf_info__offset_to_vaddr(&info, 0x1000, &v));
	assert_int_equal(v, 0x401000);
	assert_false(elf_info__offset_to_vaddr(&info, 0x900, &v));
	assert_false(elf_info__offset_to_vaddr(&info, 0x3040, &v));
}

/* ---- shared libraries ---- */

static void test_shared_library(void **state)
{
	struct fixture *fx = fixture__new();
	const char *so = fixture__compile(fx, "libledger.so", library, "-O1 -shared -fPIC");
	const char *stripped;
	struct elf_info info;
	struct symtab *tab;
	int err;

	(void)state;
	assert_non_null(so);
	assert_int_equal(read_info(so, &info), 0);
	assert_int_equal(info.type, ET_DYN);
	assert_true(info.has_symtab);
	assert_true(info.has_dynsym);

	tab = read_symbols(so, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_true(has_name(tab, "lib_add"));
	assert_true(has_name(tab, "lib_hidden"));
	assert_matches_readelf(fx, so, ".symtab", tab);
	symtab__free(tab);

	/* .dynsym: the exports only. */
	tab = read_symbols(so, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	assert_invariants(tab);
	assert_true(has_name(tab, "lib_add"));
	assert_true(has_name(tab, "lib_mul"));
	assert_false(has_name(tab, "lib_hidden"));
	assert_matches_readelf(fx, so, ".dynsym", tab);
	symtab__free(tab);

	/* Stripped, the library keeps its exports and nothing else. */
	stripped = fixture__strip(fx, so, "libledger-stripped.so");
	assert_non_null(stripped);
	assert_int_equal(read_info(stripped, &info), 0);
	assert_false(info.has_symtab);
	assert_true(info.has_dynsym);
	tab = read_symbols(stripped, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, -ENOENT);
	assert_null(tab);
	tab = read_symbols(stripped, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	assert_true(has_name(tab, "lib_add"));
	symtab__free(tab);
	fixture__free(fx);
}

/* ---- debug files, stripped and compressed builds ---- */

static void assert_same_table(const struct symtab *a, const struct symtab *b)
{
	assert_int_equal(a->nsyms, b->nsyms);
	for (size_t i = 0; i < a->nsyms; i++) {
		assert_int_equal(a->syms[i].addr, b->syms[i].addr);
		assert_int_equal(a->syms[i].size, b->syms[i].size);
		assert_string_equal(a->names + a->syms[i].name, b->names + b->syms[i].name);
	}
}

static void test_debug_file_and_stripped(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O2 -g");
	const char *dbg = fixture__only_keep_debug(fx, exe, "app.debug");
	const char *bin = fixture__strip(fx, exe, "app.stripped");
	struct elf_info full, debug, stripped;
	struct symtab *a, *b;
	int err;

	(void)state;
	assert_non_null(exe);
	assert_non_null(dbg);
	assert_non_null(bin);
	assert_int_equal(read_info(exe, &full), 0);
	assert_int_equal(read_info(dbg, &debug), 0);
	assert_int_equal(read_info(bin, &stripped), 0);

	/* All three are one build. */
	assert_string_equal(debug.build_id, full.build_id);
	assert_string_equal(stripped.build_id, full.build_id);
	assert_true(debug.debug_only);
	assert_false(full.debug_only);
	assert_false(stripped.debug_only);
	assert_true(debug.has_symtab);
	assert_false(stripped.has_symtab);
	/* The stripped executable's .dynsym holds only imports: no function of its own. */
	assert_false(stripped.has_dynsym);

	a = read_symbols(exe, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	b = read_symbols(dbg, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_same_table(a, b);
	symtab__free(b);
	assert_null(read_symbols(bin, ELF_SYMBOLS_SYMTAB, &err));
	assert_int_equal(err, -ENOENT);

	/* The debug file's names, looked up at the stripped binary's addresses: the
	 * segments are the same, so a sampled offset lands on the same function. */
	{
		uint64_t main_addr = address_of(a, "main"), v;
		struct elf_segment *x = NULL;

		for (unsigned i = 0; i < stripped.nsegments; i++) {
			struct elf_segment *s = &stripped.segments[i];

			if (main_addr >= s->vaddr && main_addr < s->vaddr + s->filesz)
				x = s;
		}
		assert_non_null(x);
		assert_true(elf_info__offset_to_vaddr(&stripped, main_addr - x->vaddr + x->offset,
						      &v));
		assert_int_equal(v, main_addr);
	}
	symtab__free(a);
	fixture__free(fx);
}

static void test_compressed_debug_sections(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -g");
	const char *gz = fixture__compile(fx, "app-gz", program, "-O1 -g -gz=zlib");
	const char *zgnu = fixture__objcopy(fx, "--compress-debug-sections=zlib-gnu", exe,
					    "app-zgnu");
	const char *zdbg = fixture__objcopy(fx, "--only-keep-debug --compress-debug-sections=zlib",
					    exe, "app-z.debug");
	const char *files[] = { gz, zgnu, zdbg };
	struct symtab *ref;
	struct elf_info info;
	int err;

	(void)state;
	assert_non_null(exe);
	ref = read_symbols(exe, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	for (size_t i = 0; i < 3; i++) {
		struct symtab *tab;

		assert_non_null(files[i]);
		/* The files really have compressed sections. */
		assert_int_equal(fixture__sh(fx, "readelf -SW '%s' 2>/dev/null | grep -q -e ' C ' -e '\\.zdebug' "
					     "-e 'C ' ", files[i]), 0);
		assert_int_equal(read_info(files[i], &info), 0);
		assert_true(info.has_symtab);
		assert_true(info.build_id[0]);
		tab = read_symbols(files[i], ELF_SYMBOLS_SYMTAB, &err);
		assert_int_equal(err, 0);
		assert_true(has_name(tab, "compute_totals"));
		assert_invariants(tab);
		if (files[i] != gz)
			assert_same_table(ref, tab);
		symtab__free(tab);
	}
	assert_int_equal(read_info(zdbg, &info), 0);
	assert_true(info.debug_only);
	symtab__free(ref);
	fixture__free(fx);
}

static void test_no_build_id(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -Wl,--build-id=none");
	struct elf_info info;

	(void)state;
	assert_non_null(exe);
	assert_int_equal(read_info(exe, &info), 0);
	assert_string_equal(info.build_id, "");
	assert_true(info.has_symtab);
	fixture__free(fx);
}

/* A build id of another length (--build-id=md5: 16 bytes) is read as it is. */
static void test_md5_build_id(void **state)
{
	struct fixture *fx = fixture__new();
	const char *exe = fixture__compile(fx, "app", program, "-O1 -Wl,--build-id=md5");
	struct elf_info info;
	char *want;

	(void)state;
	assert_non_null(exe);
	assert_int_equal(read_info(exe, &info), 0);
	want = readelf_build_id(fx, exe);
	assert_string_equal(info.build_id, want);
	assert_int_equal(strlen(info.build_id), 32);
	free(want);
	fixture__free(fx);
}

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
				assert_int_equal(tab->nsyms, 0);
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

/* ---- other classes, byte orders, machines ---- */

static const char bare[] = "int bare_func(int x) { return x + 2; }\n"
			   "void _start(void) { for (;;) bare_func(1); }\n";

static void test_32bit_big_endian_thumb(void **state)
{
	static const struct {
		const char *name, *cc, *flags;
		bool thumb;
	} builds[] = {
		{ "x86-32", "gcc", "-m32 -O1 -nostdlib -static -Wl,--build-id", false },
		{ "ppc64-be", "clang", "--target=powerpc64-linux-gnu -O1 -nostdlib -static "
		  "-fuse-ld=lld -Wl,--build-id", false },
		{ "arm-thumb", "clang", "--target=armv7-linux-gnueabihf -mthumb -O1 -nostdlib "
		  "-static -fuse-ld=lld -Wl,--build-id", true },
	};
	struct fixture *fx = fixture__new();
	int built = 0;

	(void)state;
	assert_non_null(fixture__write(fx, "bare.c", bare));
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		const char *path = fixture__path(fx, builds[i].name);
		struct elf_info info;
		struct symtab *tab;
		uint64_t want;
		char *out;
		int err;

		if (fixture__sh(fx, "%s %s -o '%s' bare.c 2>/dev/null", builds[i].cc,
				builds[i].flags, path) != 0) {
			fprintf(stderr, "(no toolchain for %s; not checked)\n", builds[i].name);
			continue;
		}
		built++;
		assert_int_equal(read_info(path, &info), 0);
		out = readelf_build_id(fx, path);
		assert_string_equal(info.build_id, out);
		free(out);
		assert_true(info.has_symtab);
		tab = read_symbols(path, ELF_SYMBOLS_SYMTAB, &err);
		assert_int_equal(err, 0);
		assert_invariants(tab);
		out = fixture__sh_output(fx, "readelf -sW '%s' | awk '$8 == \"bare_func\" "
					 "{ print $2 }'", path);
		assert_non_null(out);
		want = strtoull(out, NULL, 16);
		free(out);
		/* Thumb: the symbol's value has bit 0 set; the code starts one byte lower. */
		if (builds[i].thumb) {
			assert_true(want & 1);
			want &= ~1ull;
		}
		assert_int_equal(address_of(tab, "bare_func"), want);
		symtab__free(tab);
	}
	fixture__free(fx);
	if (!built)
		skip();
}

static void test_go_binary(void **state)
{
	struct fixture *fx = fixture__new();
	const char *stripped = fixture__path(fx, "go-stripped");
	const char *full = fixture__path(fx, "go-full");
	struct elf_info info;
	struct symtab *tab;
	int err;

	(void)state;
	if (fixture__sh(fx, "command -v go >/dev/null") != 0) {
		fixture__free(fx);
		skip();
	}
	assert_non_null(fixture__write(fx, "main.go",
				       "package main\n//go:noinline\nfunc settleLedger(n int) int "
				       "{ a := 0; for i := 0; i < n; i++ { a += i ^ a }; return a }\n"
				       "func main() { println(settleLedger(10)) }\n"));
	assert_int_equal(fixture__sh(fx, "export GO111MODULE=off GOCACHE=\"${GOCACHE:-/tmp/slideops-"
				     "test-gocache}\" GOPATH=\"${GOPATH:-/tmp/slideops-test-gopath}\"; go build -ldflags=-s -o '%s' main.go && "
				     "{ go build -ldflags=-B=gobuildid -o '%s' main.go 2>/dev/null || "
				     /* Go before 1.20 takes only an explicit id */
				     "go build -ldflags=-B=0x5eed0123456789abcdef0123456789abcdef0123 "
				     "-o '%s' main.go; }",
				     stripped, full, full),
			 0);

	assert_int_equal(read_info(stripped, &info), 0);
	assert_true(info.is_go);
	assert_int_equal(info.language, LANGUAGE_GO);
	assert_int_equal(binary__language("/srv/ledger", &info), LANGUAGE_GO);
	assert_false(info.has_symtab);
	assert_string_equal(info.build_id, ""); /* Go links without one by default */

	assert_int_equal(read_info(full, &info), 0);
	assert_true(info.is_go);
	assert_true(info.has_symtab);
	assert_true(strlen(info.build_id) > 0);
	tab = read_symbols(full, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_invariants(tab);
	assert_true(has_name(tab, "main.settleLedger"));
	assert_true(has_name(tab, "runtime.main"));
	symtab__free(tab);
	fixture__free(fx);
}

/* A name longer than the reader's window is cut, not refused, and the rest reads. */
static void test_very_long_name(void **state)
{
	size_t n = 70000;
	char *src = malloc(n + 256), *p;
	struct fixture *fx = fixture__new();
	const char *exe;
	struct symtab *tab;
	int err;

	(void)state;
	assert_non_null(src);
	p = src + sprintf(src, "int long_one(void) __asm__(\"");
	memset(p, 'x', n);
	p += n;
	sprintf(p, "\");\nint long_one(void) { return 3; }\nint main(void) { return long_one(); }\n");
	exe = fixture__compile(fx, "app", src, "-O1");
	free(src);
	assert_non_null(exe);
	tab = read_symbols(exe, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_invariants(tab);
	assert_true(has_name(tab, "main"));
	for (size_t i = 0; i < tab->nsyms; i++) {
		const char *name = tab->names + tab->syms[i].name;

		if (name[0] == 'x')
			assert_int_equal(strlen(name), 65536);
	}
	symtab__free(tab);
	fixture__free(fx);
}

/* A table in the hundreds of thousands of entries: the windows slide, nothing is lost. */
static void test_many_functions(void **state)
{
	struct fixture *fx = fixture__new();
	const char *obj, *exe;
	struct symtab *tab;
	char *count;
	int err;

	(void)state;
	/* An assembler file is quick to build however many functions it has. */
	assert_int_equal(fixture__sh(fx, "awk 'BEGIN { print \".text\"; for (i = 0; i < 200000; i++) "
				     "{ printf \".globl fn_%%d_with_a_longer_name\\n.type fn_%%d_with_a_"
				     "longer_name,@function\\nfn_%%d_with_a_longer_name:\\n ret\\n.size "
				     "fn_%%d_with_a_longer_name,1\\n\", i, i, i, i } }' > many.s"),
			 0);
	obj = fixture__path(fx, "many.o");
	assert_int_equal(fixture__sh(fx, "as -o '%s' many.s", obj), 0);
	exe = fixture__path(fx, "many.so");
	assert_int_equal(fixture__sh(fx, "ld -shared --build-id -o '%s' '%s'", exe, obj), 0);
	tab = read_symbols(exe, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_invariants(tab);
	count = fixture__sh_output(fx, "readelf -sW '%s' | awk '$4 == \"FUNC\" && $7 != \"UND\"' | "
				   "awk '{ print $2 }' | sort -u | wc -l", exe);
	assert_non_null(count);
	assert_int_equal(tab->nsyms, strtoull(count, NULL, 10));
	assert_int_equal(tab->nsyms, 200000);
	assert_true(has_name(tab, "fn_0_with_a_longer_name"));
	assert_true(has_name(tab, "fn_199999_with_a_longer_name"));
	free(count);
	symtab__free(tab);
	fixture__free(fx);
}

/* Real system libraries, as capture reads them: invariants hold (perf's own check). */
static void test_system_libraries(void **state)
{
	static const char *const libs[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libz.so.1",
		"/usr/lib/x86_64-linux-gnu/libelf.so.1", "/usr/bin/gcc",
	};
	int checked = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		struct elf_info info;
		struct symtab *tab;
		int err;

		if (access(libs[i], R_OK) != 0)
			continue;
		assert_int_equal(read_info(libs[i], &info), 0);
		assert_true(info.build_id[0]);
		for (int from = ELF_SYMBOLS_SYMTAB; from <= ELF_SYMBOLS_DYNSYM; from++) {
			tab = read_symbols(libs[i], from, &err);
			assert_true(err == 0 || err == -ENOENT);
			if (tab)
				assert_invariants(tab);
			symtab__free(tab);
		}
		checked++;
	}
	if (!checked)
		skip();
}

/* ---- what a binary is ---- */

static void test_runtimes(void **state)
{
	static const char *const yes[] = {
		"/usr/bin/python3", "/usr/bin/python3.11", "/usr/local/bin/python3.12d",
		"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "/usr/bin/java",
		"/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", "/usr/bin/node",
		"/usr/bin/nodejs", "/usr/lib/libnode.so.108", "/usr/bin/ruby3.1",
		"/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1", "/usr/bin/php8.2",
		"/usr/sbin/php-fpm8.2", "/usr/bin/perl", "/usr/bin/perl5.36.0",
		"/usr/lib/x86_64-linux-gnu/libperl.so.5.36", "/usr/bin/dotnet",
		"/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/libcoreclr.so", "python",
	};
	static const char *const no[] = {
		"/usr/local/bin/billing-worker", "/usr/bin/pythonista", "/usr/bin/nodemon",
		"/opt/app/javascript-tool", "/usr/bin/rubocop", "/usr/lib/libpythonic.so",
		"/srv/perlish", "", "/usr/bin/python-config",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!binary__is_runtime(yes[i]))
			fail_msg("%s is a runtime", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (binary__is_runtime(no[i]))
			fail_msg("%s is not a runtime", no[i]);
	}
	assert_false(binary__is_runtime(NULL));
}

static void test_system_library_paths(void **state)
{
	(void)state;
	assert_true(binary__is_system_library("/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(binary__is_system_library("/usr/lib/x86_64-linux-gnu/libssl.so.3"));
	assert_true(binary__is_system_library("/lib64/ld-linux-x86-64.so.2"));
	assert_true(binary__is_system_library("/usr/lib64/libstdc++.so.6"));
	assert_true(binary__is_system_library("/usr/libexec/some-helper"));
	assert_true(binary__is_system_library("[vdso]"));
	assert_false(binary__is_system_library("/usr/local/lib/libledger.so"));
	assert_false(binary__is_system_library("/usr/local/bin/billing-worker"));
	assert_false(binary__is_system_library("/opt/app/lib/libapp.so"));
	assert_false(binary__is_system_library("/usr/bin/python3"));
	assert_false(binary__is_system_library("/lib"));
	assert_false(binary__is_system_library(NULL));
}

static void test_binary_language(void **state)
{
	struct elf_info go = { .is_go = true, .language = LANGUAGE_GO };

	(void)state;
	assert_int_equal(binary__language("[kernel]", NULL), LANGUAGE_KERNEL);
	assert_int_equal(binary__language("[kernel.kallsyms]", NULL), LANGUAGE_KERNEL);
	assert_int_equal(binary__language("/boot/vmlinux-6.18", NULL), LANGUAGE_KERNEL);
	/* A runtime's own functions are C/C++; what it runs has the runtime's language. */
	assert_int_equal(binary__language("/usr/bin/python3.11", NULL), LANGUAGE_C);
	assert_int_equal(binary__language("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", NULL),
			 LANGUAGE_C);
	assert_int_equal(binary__language("/usr/lib/jvm/x/lib/server/libjvm.so", NULL), LANGUAGE_C);
	assert_int_equal(binary__language("/usr/bin/node", NULL), LANGUAGE_C);
	assert_int_equal(binary__runtime_language("/usr/bin/python3.11"), LANGUAGE_PYTHON);
	assert_int_equal(binary__runtime_language("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"),
			 LANGUAGE_PYTHON);
	assert_int_equal(binary__runtime_language("/usr/lib/jvm/x/lib/server/libjvm.so"),
			 LANGUAGE_JAVA);
	assert_int_equal(binary__runtime_language("/usr/bin/java"), LANGUAGE_JAVA);
	assert_int_equal(binary__runtime_language("/usr/bin/node"), LANGUAGE_JAVASCRIPT);
	assert_int_equal(binary__runtime_language("/usr/bin/ruby"), LANGUAGE_RUBY);
	assert_int_equal(binary__runtime_language("/usr/lib/libruby.so.3.1"), LANGUAGE_RUBY);
	assert_int_equal(binary__runtime_language("/usr/bin/php"), LANGUAGE_PHP);
	assert_int_equal(binary__runtime_language("/usr/bin/perl"), LANGUAGE_PERL);
	assert_int_equal(binary__runtime_language("/usr/bin/dotnet"), LANGUAGE_DOTNET);
	assert_int_equal(binary__runtime_language("/x/libcoreclr.so"), LANGUAGE_DOTNET);
	assert_int_equal(binary__runtime_language("/usr/local/bin/ledger"), LANGUAGE_OTHER);
	assert_int_equal(binary__runtime_language(NULL), LANGUAGE_OTHER);
	assert_int_equal(binary__language("/usr/local/bin/ledger", &go), LANGUAGE_GO);
	assert_int_equal(binary__language("/usr/local/bin/ledger", NULL), LANGUAGE_C);
	assert_int_equal(binary__language(NULL, NULL), LANGUAGE_C);
	/* A runtime is C/C++ even when Go-built contents say otherwise. */
	assert_int_equal(binary__language("/usr/bin/python3", &go), LANGUAGE_C);
}

static void test_symbol_language(void **state)
{
	(void)state;
	/* Rust, legacy and v0 manglings, with and without LLVM's suffix. */
	assert_int_equal(symbol__language("_ZN4core3fmt5write17h0123456789abcdefE", LANGUAGE_C),
			 LANGUAGE_RUST);
	assert_int_equal(symbol__language("_ZN6ledger4post17hfedcba9876543210E.llvm.12345",
					  LANGUAGE_C),
			 LANGUAGE_RUST);
	assert_int_equal(symbol__language("_RNvCs1234_7mycrate4main", LANGUAGE_C), LANGUAGE_RUST);
	assert_int_equal(symbol__language("_RINvNtCs1234_4core3ptr13drop_in_placeE", LANGUAGE_C),
			 LANGUAGE_RUST);
	/* Not Rust: C++ (hash-like but not 17h<16 hex>E), plain C. */
	assert_int_equal(symbol__language("_ZN6ledger4postEv", LANGUAGE_C), LANGUAGE_C);
	assert_int_equal(symbol__language("_ZN3foo17hxyzxyzxyzxyzxyzxE", LANGUAGE_C), LANGUAGE_C);
	assert_int_equal(symbol__language("_Rfoo", LANGUAGE_C), LANGUAGE_C);
	assert_int_equal(symbol__language("compute_totals", LANGUAGE_C), LANGUAGE_C);
	assert_int_equal(symbol__language("main.settleLedger", LANGUAGE_GO), LANGUAGE_GO);
	/* C++ inside a Go binary (cgo) is C/C++. */
	assert_int_equal(symbol__language("_ZN6ledger4postEv", LANGUAGE_GO), LANGUAGE_C);
	/* Runtimes and the kernel keep their language whatever the symbol. */
	assert_int_equal(symbol__language("_ZN2os4Linux4initEv", LANGUAGE_JAVA), LANGUAGE_JAVA);
	assert_int_equal(symbol__language("_ZN4core3fmt5write17h0123456789abcdefE",
					  LANGUAGE_KERNEL),
			 LANGUAGE_KERNEL);
	assert_int_equal(symbol__language(NULL, LANGUAGE_PYTHON), LANGUAGE_PYTHON);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_executable_not_pie),
		cmocka_unit_test(test_executable_pie_offsets),
		cmocka_unit_test(test_offset_to_vaddr_rules),
		cmocka_unit_test(test_shared_library),
		cmocka_unit_test(test_debug_file_and_stripped),
		cmocka_unit_test(test_compressed_debug_sections),
		cmocka_unit_test(test_no_build_id),
		cmocka_unit_test(test_md5_build_id),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated_at_every_cut),
		cmocka_unit_test(test_damaged_headers),
		cmocka_unit_test(test_names_beyond_any_real_table),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_32bit_big_endian_thumb),
		cmocka_unit_test(test_go_binary),
		cmocka_unit_test(test_very_long_name),
		cmocka_unit_test(test_many_functions),
		cmocka_unit_test(test_system_libraries),
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_system_library_paths),
		cmocka_unit_test(test_binary_language),
		cmocka_unit_test(test_symbol_language),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
