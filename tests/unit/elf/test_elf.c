// SPDX-License-Identifier: MIT
/*
 * The ELF reader against real files built here with gcc: executables PIE and not,
 * shared libraries, debug files, stripped and compressed builds, symbols checked against
 * readelf's view of the same file; and what a binary is (runtimes, system libraries,
 * languages). Hostile input: test_elf_hostile.c; other classes, byte orders, machines,
 * Go and sizes: test_elf_formats.c.
 */
#include "elf_fixture.h"

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

/* The same symbols from the ELF tables (a debug file has no PLT or .eh_frame to add). */
static void assert_same_table(const struct symtab *a, const struct symtab *b)
{
	size_t i = 0, j = 0;

	for (;; i++, j++) {
		while (i < a->nsyms && !from_table(a, i))
			i++;
		while (j < b->nsyms && !from_table(b, j))
			j++;
		if (i == a->nsyms || j == b->nsyms)
			break;
		assert_int_equal(a->syms[i].addr, b->syms[j].addr);
		assert_int_equal(a->syms[i].size, b->syms[j].size);
		assert_string_equal(a->names + a->syms[i].name, b->names + b->syms[j].name);
	}
	assert_int_equal(i, a->nsyms);
	assert_int_equal(j, b->nsyms);
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
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_system_library_paths),
		cmocka_unit_test(test_binary_language),
		cmocka_unit_test(test_symbol_language),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
