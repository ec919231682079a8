// SPDX-License-Identifier: MIT
/*
 * The ELF reader against other classes, byte orders and machines (32-bit big-endian
 * Thumb), a Go binary (when go is present), very long names, many functions, and the
 * system's own libraries.
 */
#include "elf_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_32bit_big_endian_thumb),
		cmocka_unit_test(test_go_binary),
		cmocka_unit_test(test_very_long_name),
		cmocka_unit_test(test_many_functions),
		cmocka_unit_test(test_system_libraries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
