// SPDX-License-Identifier: MIT
/*
 * Names as complete as the binaries allow, on real binaries built here: PLT stubs named
 * "memcpy@plt" as objdump names them (lazy and -z now, PIE and not, IBT's .plt.sec,
 * .plt.got), and a stripped binary's addresses grouped by the function that holds them
 * (.eh_frame), so two hot unnamed functions are two rows named by their starts.
 * Hostile .eh_frame contents are read within their caps, never past them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "helpers/fixture.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"

static const char calls_libc[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"char dst[4096], src[4096];\n"
	"__attribute__((noinline)) size_t copy_rows(int n)\n"
	"{ size_t t = 0; for (int i = 0; i < n; i++) { memcpy(dst, src, (size_t)(n + i) % 4096);\n"
	"  t += strlen(dst); } return t; }\n"
	"int main(int argc, char **argv)\n"
	"{ char *p = malloc(16); (void)argv; printf(\"%zu\\n\", copy_rows(argc));\n"
	"  puts(p ? \"ok\" : \"no\"); free(p); return 0; }\n";

static struct symtab *read_table(const char *path, enum elf_symbols_from from, int *err)
{
	struct symtab *tab = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	*err = symtab__read_elf(fd, from, &tab);
	close(fd);
	return tab;
}

/*
 * Every stub objdump names "x@plt" in .plt, .plt.sec and .plt.got is named the same by
 * our table, at its first byte; memcpy's among them. Returns how many stubs were seen.
 */
static size_t assert_plt_like_objdump(struct fixture *fx, const char *path)
{
	char *out = fixture__sh_output(
		fx,
		"objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null | "
		"sed -n 's/^0*\\([0-9a-f]*\\) <\\(.*@plt\\)>:$/\\1 \\2/p'",
		path);
	struct symtab *tab;
	char *line, *save = NULL;
	bool memcpy_seen = false;
	size_t n = 0;
	int err;

	assert_non_null(out);
	tab = read_table(path, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t addr, off = 1;
		char want[256];
		const char *got;

		assert_int_equal(sscanf(line, "%" SCNx64 " %255s", &addr, want), 2);
		got = symtab__lookup(tab, addr, &off);
		if (!got || strcmp(got, want) != 0 || off != 0)
			fail_msg("%s: stub at %" PRIx64 " is %s, objdump says %s", path, addr,
				 got ? got : "(none)", want);
		/* Its last byte too: a stub is one function, whole. */
		assert_string_equal(symtab__lookup(tab, addr + 7, NULL), want);
		memcpy_seen |= strcmp(want, "memcpy@plt") == 0;
		n++;
	}
	assert_true(memcpy_seen);
	/* No address of the PLT sections is charged to _init any more. */
	free(out);
	out = fixture__sh_output(fx,
				 "readelf -SW '%s' | sed -n 's/.* \\.plt[.a-z]* *PROGBITS *"
				 "\\([0-9a-f]*\\) [0-9a-f]* \\([0-9a-f]*\\).*/\\1 \\2/p'",
				 path);
	assert_non_null(out);
	save = NULL;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t start, size;

		assert_int_equal(sscanf(line, "%" SCNx64 " %" SCNx64, &start, &size), 2);
		for (uint64_t a = start; a < start + size; a++) {
			const char *got = symtab__lookup(tab, a, NULL);

			if (got && strcmp(got, "_init") == 0)
				fail_msg("%s: %" PRIx64 " in a PLT section is _init", path, a);
		}
	}
	free(out);
	symtab__free(tab);
	return n;
}

static void test_plt_lazy_and_now(void **state)
{
	struct fixture *fx = fixture__new();
	const char *lazy = fixture__compile(fx, "lazy", calls_libc,
					    "-O1 -fno-builtin -pie -Wl,-z,lazy");
	const char *now = fixture__compile(fx, "now", calls_libc,
					   "-O1 -fno-builtin -pie -Wl,-z,now");
	const char *nopie = fixture__compile(fx, "nopie", calls_libc,
					     "-O1 -fno-builtin -no-pie -Wl,-z,lazy");

	(void)state;
	assert_non_null(lazy);
	assert_non_null(now);
	assert_non_null(nopie);
	/* memcpy, strlen, printf, puts, malloc, free (+ __cxa_finalize in .plt.got). */
	assert_true(assert_plt_like_objdump(fx, lazy) >= 6);
	assert_true(assert_plt_like_objdump(fx, now) >= 6);
	assert_true(assert_plt_like_objdump(fx, nopie) >= 6);
	fixture__free(fx);
}

/* IBT: the stubs that run are in .plt.sec (endbr64; bnd jmp), .plt keeps the lazy half. */
static void test_plt_sec(void **state)
{
	struct fixture *fx = fixture__new();
	const char *ibt = fixture__compile(fx, "ibt", calls_libc,
					   "-O1 -fno-builtin -fcf-protection=full -Wl,-z,ibtplt");
	char *has_sec;

	(void)state;
	assert_non_null(ibt);
	has_sec = fixture__sh_output(fx, "readelf -SW '%s' | grep -c '\\.plt\\.sec'", ibt);
	if (!has_sec || strcmp(has_sec, "1") != 0) {
		free(has_sec);
		fixture__free(fx);
		skip();
	}
	free(has_sec);
	assert_true(assert_plt_like_objdump(fx, ibt) >= 6);
	fixture__free(fx);
}

/* A stripped library keeps its PLT names too (they come from .dynsym, which stays). */
static void test_plt_stripped_library(void **state)
{
	struct fixture *fx = fixture__new();
	const char *lib = fixture__compile(
		fx, "libcopy.so",
		"#include <string.h>\n"
		"char d[64], s[64];\n"
		"void copy_it(int n) { memcpy(d, s, (size_t)n); }\n",
		"-O1 -shared -fPIC");
	const char *stripped = fixture__strip(fx, lib, "libcopy-stripped.so");
	struct symtab *tab;
	int err;

	(void)state;
	assert_non_null(stripped);
	tab = read_table(stripped, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	assert_non_null(tab);
	assert_true(symtab__named(tab) >= 2);
	{
		bool found = false;

		for (size_t i = 0; i < tab->nsyms; i++)
			found |= strcmp(tab->names + tab->syms[i].name, "memcpy@plt") == 0;
		assert_true(found);
	}
	symtab__free(tab);
	fixture__free(fx);
}

/*
 * Hostile PLTs: relocations naming symbols past .dynsym, relocations and stubs of
 * random bytes. The table is read within its caps, keeps its invariants, and names no
 * stub from a relocation that names nothing.
 */
static void test_hostile_plt(void **state)
{
	static const char *const damage[] = {
		/* every JUMP_SLOT pointing at dynamic symbol 0xfffffff0 */
		"--update-section .rela.plt=bad.bin",
		/* relocations of random bytes */
		"--update-section .rela.plt=random.bin",
		/* stubs of random bytes (as many as there were: the layout stays) */
		"--update-section .plt=plt.bin",
	};
	struct fixture *fx = fixture__new();
	const char *full = fixture__compile(fx, "app", calls_libc, "-O1 -fno-builtin");

	(void)state;
	assert_non_null(full);
	assert_int_equal(fixture__sh(fx,
		"python3 -c 'import struct,sys; sys.stdout.buffer.write(b\"\".join("
		"struct.pack(\"<QQq\", o, (0xfffffff0 << 32) | 7, 0) for o in "
		"[int(x, 16) for x in sys.argv[1:]]))' "
		"$(readelf -rW app | awk '/JUMP_SLOT/ { print $1 }') > bad.bin && "
		"head -c 4096 /dev/urandom > random.bin && "
		"head -c $((0x$(objdump -h app | awk '$2 == \".plt\" { print $3 }'))) "
		"/dev/urandom > plt.bin"), 0);
	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		char name[16];
		const char *bad;
		struct symtab *tab;
		int err;

		snprintf(name, sizeof(name), "bad%zu", i);
		bad = fixture__objcopy(fx, damage[i], full, name);
		assert_non_null(bad);
		tab = read_table(bad, ELF_SYMBOLS_SYMTAB, &err);
		assert_int_equal(err, 0);
		for (size_t k = 0; k < tab->nsyms; k++) {
			assert_true(tab->syms[k].size > 0);
			if (k > 0)
				assert_true(tab->syms[k - 1].addr < tab->syms[k].addr);
			if (i == 0)
				assert_string_not_equal(tab->names + tab->syms[k].name,
							"memcpy@plt");
		}
		symtab__free(tab);
	}
	fixture__free(fx);
}

/* ---- stripped binaries: one row per function ---- */



static const char two_hot[] =
	"#include <stdint.h>\n"
	"volatile uint64_t sink;\n"
	"__attribute__((noinline)) uint64_t price_orders(uint64_t n)\n"
	"{ uint64_t a = 0; for (uint64_t i = 0; i < n; i++) { a += i * i ^ (a >> 3); sink = a; }\n"
	"  return a; }\n"
	"__attribute__((noinline)) uint64_t ship_orders(uint64_t n)\n"
	"{ uint64_t a = 1; for (uint64_t i = 0; i < n; i++) { a = a * 31 + i; sink = a; }\n"
	"  return a; }\n"
	"int main(int argc, char **argv)\n"
	"{ (void)argv;\n"
	"  return (int)(price_orders((uint64_t)argc) + ship_orders((uint64_t)argc)); }\n";

/* The address and size of a function in the unstripped build, by nm. */
static void function_bounds(struct fixture *fx, const char *path, const char *name,
			    uint64_t *addr, uint64_t *size)
{
	char *out = fixture__sh_output(fx, "nm -S '%s' | awk '$4 == \"%s\" { print $1, $2 }'",
				       path, name);

	assert_non_null(out);
	assert_int_equal(sscanf(out, "%" SCNx64 " %" SCNx64, addr, size), 2);
	free(out);
}

static uint32_t add_location(struct profile *p, uint32_t mapping, uint64_t addr)
{
	struct prof_location l = { .mapping = mapping, .address = addr };
	uint32_t id = profile__add_location(p, &l);

	assert_int_not_equal(id, UINT32_MAX);
	return id;
}

/* A symbol_lookup that hands out copies of one table, as the store would. */
static int one_table(void *ctx, const char *build_id, struct symtab **out)
{
	void *blob;
	size_t len;
	int err;

	(void)build_id;
	err = symtab__serialize(ctx, &blob, &len);
	if (err)
		return err;
	*out = symtab__deserialize(blob, len);
	free(blob);
	return *out ? 0 : -errno;
}

static void assert_two_rows(const char *flags)
{
	struct fixture *fx = fixture__new();
	const char *full = fixture__compile(fx, "app", two_hot, flags);
	const char *bin = fixture__strip(fx, full, "billing-worker");
	uint64_t price, price_size, ship, ship_size;
	struct symbol_lookup src = { 0 };
	struct profile *p;
	struct symtab *tab;
	uint32_t m, a1, a2, b1, b2;
	char want[64];
	int err;

	assert_non_null(bin);
	function_bounds(fx, full, "price_orders", &price, &price_size);
	function_bounds(fx, full, "ship_orders", &ship, &ship_size);
	assert_true(price_size > 8 && ship_size > 8);

	/* What the capture keeps for a stripped binary: its .dynsym table, the last resort. */
	tab = read_table(bin, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	assert_non_null(tab);

	p = profile__new(QUESTION_CPU);
	assert_non_null(p);
	{
		struct prof_mapping pm = {
			.path = profile__intern(p, bin),
			.build_id = profile__intern(p, "b65a313cbf47aa11bb22cc33dd44ee55ff667788"),
			.kind = MAPPING_EXE,
			.language = LANGUAGE_C,
			.build_id_recorded = true,
		};

		m = profile__add_mapping(p, &pm);
	}
	/* Two sampled addresses in each function, neither at its start. */
	a1 = add_location(p, m, price + 4);
	a2 = add_location(p, m, price + price_size - 2);
	b1 = add_location(p, m, ship + 5);
	b2 = add_location(p, m, ship + ship_size - 1);
	src.get = one_table;
	src.ctx = tab;
	assert_int_equal(profile__symbolize(p, &src), 0);

	snprintf(want, sizeof(want), "billing-worker+0x%" PRIx64, price);
	assert_string_equal(profile__str(p, p->locations[a1].name), want);
	assert_string_equal(profile__str(p, p->locations[a2].name), want);
	snprintf(want, sizeof(want), "billing-worker+0x%" PRIx64, ship);
	assert_string_equal(profile__str(p, p->locations[b1].name), want);
	assert_string_equal(profile__str(p, p->locations[b2].name), want);
	/* Two rows, still unnamed: the card lists the binary. */
	assert_int_equal(p->locations[a1].name, p->locations[a2].name);
	assert_int_not_equal(p->locations[a1].name, p->locations[b1].name);
	assert_false(p->locations[a1].named);
	assert_false(p->locations[b1].named);

	profile__free(p);
	symtab__free(tab);
	fixture__free(fx);
}

static void test_stripped_two_functions_pie(void **state)
{
	(void)state;
	assert_two_rows("-O2 -fomit-frame-pointer -pie");
}

static void test_stripped_two_functions_static(void **state)
{
	(void)state;
	/* No .dynsym at all: the table still groups by function. */
	assert_two_rows("-O2 -static");
}

/* An exported function of unknown size (assembly without .size) ends where the next
 * function begins, not at the next exported one: the static function after it is its
 * own (unnamed) row. */
static void test_unsized_export_does_not_swallow(void **state)
{
	struct fixture *fx = fixture__new();
	const char *lib = fixture__compile(
		fx, "libasm.so",
		"__asm__(\".text\\n.globl asm_export\\n.type asm_export,@function\\n"
		"asm_export:\\n.cfi_startproc\\nret\\n.cfi_endproc\\n\");\n"
		"static __attribute__((noinline, used)) int hidden_work(int x)\n"
		"{ int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }\n"
		"int lib_entry(int x) { return hidden_work(x) + 1; }\n",
		"-O1 -shared -fPIC -fno-toplevel-reorder");
	const char *stripped = fixture__strip(fx, lib, "libasm-stripped.so");
	uint64_t hidden, size, off = 0;
	struct symtab *tab;
	int err;

	(void)state;
	assert_non_null(stripped);
	function_bounds(fx, lib, "hidden_work", &hidden, &size);
	tab = read_table(stripped, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	assert_string_equal(symtab__lookup(tab, hidden + 2, &off), "");
	assert_int_equal(off, 2);
	symtab__free(tab);
	fixture__free(fx);
}

/* A function that declares its size keeps all of it, however many .eh_frame entries lie
 * within it (libc's clone3: one symbol, three FDEs): its second part is not an unnamed
 * function of its own. */
static void test_declared_size_spans_its_fdes(void **state)
{
	struct fixture *fx = fixture__new();
	const char *lib = fixture__compile(
		fx, "libsplit.so",
		"__asm__(\".text\\n.globl split_export\\n.type split_export,@function\\n"
		"split_export:\\n.cfi_startproc\\nnop\\nnop\\nnop\\nnop\\n.cfi_endproc\\n"
		"split_child:\\n.cfi_startproc\\n.cfi_undefined rip\\nnop\\nnop\\nnop\\nret\\n"
		".cfi_endproc\\n.size split_export, .-split_export\\n\");\n"
		"int lib_entry(int x) { return x + 1; }\n",
		"-O1 -shared -fPIC -fno-toplevel-reorder");
	const char *stripped = fixture__strip(fx, lib, "libsplit-stripped.so");
	uint64_t start, size, off = 0;
	struct symtab *tab;
	int err;

	(void)state;
	assert_non_null(stripped);
	function_bounds(fx, lib, "split_export", &start, &size);
	assert_int_equal(size, 8);
	tab = read_table(stripped, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	/* In its second FDE: still split_export, at its offset into it. */
	assert_string_equal(symtab__lookup(tab, start + 5, &off), "split_export");
	assert_int_equal(off, 5);
	symtab__free(tab);
	fixture__free(fx);
}

/* An upload still takes precedence, and a named table is not shadowed by its FDEs. */
static void test_named_functions_win(void **state)
{
	struct fixture *fx = fixture__new();
	const char *full = fixture__compile(fx, "app", two_hot, "-O2");
	uint64_t price, size, off = 1;
	struct symtab *tab;
	int err;

	(void)state;
	assert_non_null(full);
	function_bounds(fx, full, "price_orders", &price, &size);
	tab = read_table(full, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	assert_string_equal(symtab__lookup(tab, price + 3, &off), "price_orders");
	assert_int_equal(off, 3);
	/* The round trip through the stored form keeps unnamed entries unnamed. */
	{
		struct symtab *back;
		void *blob;
		size_t len;

		assert_int_equal(symtab__serialize(tab, &blob, &len), 0);
		back = symtab__deserialize(blob, len);
		assert_non_null(back);
		assert_int_equal(back->nsyms, tab->nsyms);
		assert_int_equal(symtab__named(back), symtab__named(tab));
		symtab__free(back);
		free(blob);
	}
	symtab__free(tab);
	fixture__free(fx);
}

/* ---- debug files installed on the server ---- */

static char *build_id_of(struct fixture *fx, const char *path)
{
	char *id = fixture__sh_output(fx, "readelf -n '%s' | awk '/Build ID/ { print $3; exit }'",
				      path);

	assert_non_null(id);
	assert_true(strlen(id) >= 4);
	return id;
}

/* The stripped app's debug file filed under ROOT/.build-id as packages install it. */
static const char *install_debug(struct fixture *fx, const char *dbg, const char *id)
{
	assert_int_equal(fixture__sh(fx, "mkdir -p root/.build-id/%.2s && cp '%s' "
				     "root/.build-id/%.2s/%s.debug && "
				     "chmod 644 root/.build-id/%.2s/%s.debug",
				     id, dbg, id, id + 2, id, id + 2),
			 0);
	return fixture__path(fx, "root");
}

static void test_installed_debug_file(void **state)
{
	struct fixture *fx = fixture__new();
	const char *full = fixture__compile(fx, "app", two_hot, "-O2 -g -fno-builtin");
	const char *dbg = fixture__only_keep_debug(fx, full, "app.debug");
	const char *bin = fixture__strip(fx, full, "app.stripped");
	char *id = build_id_of(fx, full);
	const char *root = install_debug(fx, dbg, id);
	uint64_t price, size;
	enum elf_symbols_from from;
	struct symtab *tab;
	int fd;

	(void)state;
	assert_non_null(bin);
	function_bounds(fx, full, "price_orders", &price, &size);
	assert_int_equal(symtab__read_installed_debug(root, id, NULL, &tab), 0);
	assert_string_equal(symtab__lookup(tab, price + 2, NULL), "price_orders");
	symtab__free(tab);

	/* The capture's entry point: the installed file names the stripped binary. */
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(symtab__read_binary(fd, id, root, NULL, &tab, &from), 0);
	assert_int_equal(from, ELF_SYMBOLS_SYMTAB);
	assert_string_equal(symtab__lookup(tab, price + 2, NULL), "price_orders");
	symtab__free(tab);
	/* Without it, the binary's own (unnamed) functions. */
	assert_int_equal(symtab__read_binary(fd, id, NULL, NULL, &tab, &from), 0);
	assert_int_equal(from, ELF_SYMBOLS_DYNSYM);
	assert_string_equal(symtab__lookup(tab, price + 2, NULL), "");
	symtab__free(tab);
	close(fd);

	/* Refusals: a build id that is not one, a file writable by others, a file filed
	 * under another build's id, a directory, a symlink leaving the tree. */
	assert_int_equal(symtab__read_installed_debug(root, "../../etc/passwd", NULL, &tab),
			 -ENOENT);
	assert_int_equal(symtab__read_installed_debug(root, "", NULL, &tab), -ENOENT);
	assert_int_equal(fixture__sh(fx, "chmod 666 root/.build-id/%.2s/%s.debug", id, id + 2), 0);
	assert_int_equal(symtab__read_installed_debug(root, id, NULL, &tab), -EPERM);
	assert_null(tab);
	assert_int_equal(fixture__sh(fx, "chmod 644 root/.build-id/%.2s/%s.debug", id, id + 2), 0);
	{
		char other[BUILD_ID_HEX_MAX + 1];

		snprintf(other, sizeof(other), "%s", id);
		other[2] = other[2] == '0' ? '1' : '0';
		assert_int_equal(fixture__sh(fx, "mkdir -p root/.build-id/%.2s && cp '%s' "
					     "root/.build-id/%.2s/%s.debug",
					     other, dbg, other, other + 2),
				 0);
		assert_int_equal(symtab__read_installed_debug(root, other, NULL, &tab), -ENOENT);
		assert_int_equal(fixture__sh(fx, "rm root/.build-id/%.2s/%s.debug && mkdir "
					     "root/.build-id/%.2s/%s.debug", other, other + 2,
					     other, other + 2), 0);
		assert_int_equal(symtab__read_installed_debug(root, other, NULL, &tab), -ENOENT);
		/* A symlink out of the tree, to the very same (good) file. */
		assert_int_equal(fixture__sh(fx, "mv root/.build-id/%.2s/%s.debug outside.debug "
					     "&& ln -s '%s/outside.debug' "
					     "root/.build-id/%.2s/%s.debug",
					     id, id + 2, fixture__dir(fx), id, id + 2), 0);
		assert_int_equal(symtab__read_installed_debug(root, id, NULL, &tab), -ENOENT);
		/* A symlink that stays inside it is how some distributions file them. */
		assert_int_equal(fixture__sh(fx, "mkdir -p root/files && mv outside.debug "
					     "root/files/app.debug && ln -sf ../../files/app.debug "
					     "root/.build-id/%.2s/%s.debug", id, id + 2), 0);
		assert_int_equal(symtab__read_installed_debug(root, id, NULL, &tab), 0);
		symtab__free(tab);
	}
	free(id);
	fixture__free(fx);
}

/* An upload names first; the PLT stubs a debug file cannot name still come from the
 * binary's own table kept at capture. */
static void test_upload_keeps_plt_names(void **state)
{
	struct fixture *fx = fixture__new();
	const char *full = fixture__compile(fx, "app", calls_libc, "-O1 -g -fno-builtin");
	const char *dbg = fixture__only_keep_debug(fx, full, "app.debug");
	const char *bin = fixture__strip(fx, full, "app.stripped");
	char *id = build_id_of(fx, full);
	char *stub = fixture__sh_output(fx, "objdump -d -j .plt -j .plt.sec '%s' | "
					"sed -n 's/^0*\\([0-9a-f]*\\) <memcpy@plt>:$/\\1/p'", full);
	uint64_t copy, size, at;
	struct symtab *up, *own, *got;
	struct store *s;
	int err;

	(void)state;
	assert_non_null(bin);
	assert_non_null(stub);
	assert_int_equal(sscanf(stub, "%" SCNx64, &at), 1);
	function_bounds(fx, full, "copy_rows", &copy, &size);
	s = store__open(fixture__path(fx, "workspace"));
	assert_non_null(s);
	up = read_table(dbg, ELF_SYMBOLS_SYMTAB, &err);
	assert_int_equal(err, 0);
	own = read_table(bin, ELF_SYMBOLS_DYNSYM, &err);
	assert_int_equal(err, 0);
	assert_int_equal(store__put_symbols(s, id, SYMBOLS_DYNSYM, NULL, own), 0);
	assert_int_equal(store__put_symbols(s, id, SYMBOLS_UPLOAD, "app.debug", up), 0);
	assert_int_equal(store__symbols_get(s, id, &got), 0);
	assert_string_equal(symtab__lookup(got, copy + 1, NULL), "copy_rows");
	assert_string_equal(symtab__lookup(got, at, NULL), "memcpy@plt");
	/* The upload alone would not have named the stub. */
	assert_null(symtab__lookup(up, at, NULL));
	symtab__free(got);
	symtab__free(up);
	symtab__free(own);
	store__close(s);
	free(stub);
	free(id);
	fixture__free(fx);
}

/* Where libc6-dbg is installed, libc's internal functions are named from it. */
static void test_libc6_dbg(void **state)
{
	struct fixture *fx = fixture__new();
	char *libc = fixture__sh_output(fx, "awk '$6 ~ /\\/libc\\.so\\.6$/ { print $6; exit }' "
					"/proc/%d/maps", (int)getpid());
	char *id, *addr;
	enum elf_symbols_from from;
	struct symtab *tab;
	uint64_t at;
	int fd;

	(void)state;
	assert_non_null(libc);
	id = build_id_of(fx, libc);
	addr = fixture__sh_output(fx, "readelf -sW %s/.build-id/%.2s/%s.debug 2>/dev/null | "
				  "awk '$8 == \"_int_malloc\" { print $2; exit }'",
				  DEBUG_FILES_ROOT, id, id + 2);
	if (!addr || !*addr) {
		free(addr);
		free(id);
		free(libc);
		fixture__free(fx);
		skip(); /* libc6-dbg is not installed (make deps installs it) */
	}
	assert_int_equal(sscanf(addr, "%" SCNx64, &at), 1);
	fd = open(libc, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(symtab__read_binary(fd, id, DEBUG_FILES_ROOT, NULL, &tab, &from), 0);
	assert_int_equal(from, ELF_SYMBOLS_SYMTAB);
	/* Not exported, so .dynsym alone never named it. */
	assert_string_equal(symtab__lookup(tab, at + 16, NULL), "_int_malloc");
	symtab__free(tab);
	assert_int_equal(symtab__read_binary(fd, id, NULL, NULL, &tab, &from), 0);
	assert_int_equal(from, ELF_SYMBOLS_DYNSYM);
	assert_string_not_equal(symtab__lookup(tab, at + 16, NULL), "_int_malloc");
	symtab__free(tab);
	close(fd);
	free(addr);
	free(id);
	free(libc);
	fixture__free(fx);
}

/* ---- hostile .eh_frame ---- */

struct ranges {
	size_t n;
	uint64_t lo, hi;
};

static int count_range(void *ctx, uint64_t start, uint64_t size)
{
	struct ranges *r = ctx;

	r->n++;
	assert_true(size > 0);
	assert_true(start <= UINT64_MAX - size);
	return 0;
}

static int ranges_of(const char *path, struct ranges *r)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	assert_true(fd >= 0);
	memset(r, 0, sizeof(*r));
	err = elf__each_function_range(fd, count_range, r);
	close(fd);
	return err;
}

/*
 * .eh_frame replaced by garbage of every kind (random bytes, lengths past the end, a CIE
 * pointer to itself, an FDE before any CIE, an endless run of empty CIEs): the walk ends
 * without reading outside the section (ASan watches) and reports only sane ranges.
 */
static void test_hostile_eh_frame(void **state)
{
	static const char *const contents[] = {
		/* random bytes */
		"head -c 4096 /dev/urandom",
		/* a length far past the section */
		"printf '\\xf0\\xff\\xff\\x7f\\x00\\x00\\x00\\x00'",
		/* 64-bit length escape with a huge length */
		"printf '\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x7f'",
		/* an FDE whose CIE pointer points at itself */
		"printf '\\x0c\\x00\\x00\\x00\\x04\\x00\\x00\\x00"
		"\\x00\\x10\\x00\\x00\\x10\\x00\\x00\\x00'",
		/* an FDE pointing before the section */
		"printf '\\x0c\\x00\\x00\\x00\\xff\\xff\\x00\\x00"
		"\\x00\\x10\\x00\\x00\\x10\\x00\\x00\\x00'",
		/* a CIE with an unterminated augmentation, then an FDE using it */
		"printf '\\x08\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01zRz"
		"\\x0c\\x00\\x00\\x00\\x10\\x00\\x00\\x00"
		"\\x00\\x10\\x00\\x00\\x10\\x00\\x00\\x00'",
		/* a CIE whose augmentation data length runs past it */
		"printf '\\x0c\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01zR\\x00\\x01\\x78\\x10\\x7f'",
		/* thousands of minimal CIEs */
		"for i in $(seq 1 4000); do "
		"printf '\\x04\\x00\\x00\\x00\\x00\\x00\\x00\\x00'; done",
	};
	struct fixture *fx = fixture__new();
	const char *full = fixture__compile(fx, "app", two_hot, "-O2");
	struct ranges r;

	(void)state;
	assert_non_null(full);
	assert_int_equal(ranges_of(full, &r), 0);
	assert_true(r.n >= 3);
	for (size_t i = 0; i < sizeof(contents) / sizeof(contents[0]); i++) {
		char name[32];
		const char *bad;

		snprintf(name, sizeof(name), "bad%zu", i);
		assert_int_equal(fixture__sh(fx, "{ %s; } > eh%zu.bin", contents[i], i), 0);
		assert_int_equal(fixture__sh(fx, "objcopy --update-section .eh_frame=eh%zu.bin "
					     "'%s' %s 2>/dev/null", i, full, name), 0);
		bad = fixture__path(fx, name);
		assert_int_equal(ranges_of(bad, &r), 0);
		/* And a whole table from it still keeps its invariants. */
		{
			int err;
			struct symtab *tab = read_table(bad, ELF_SYMBOLS_SYMTAB, &err);

			assert_int_equal(err, 0);
			for (size_t k = 1; k < tab->nsyms; k++)
				assert_true(tab->syms[k - 1].addr < tab->syms[k].addr);
			symtab__free(tab);
		}
	}
	fixture__free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plt_lazy_and_now),
		cmocka_unit_test(test_plt_sec),
		cmocka_unit_test(test_plt_stripped_library),
		cmocka_unit_test(test_hostile_plt),
		cmocka_unit_test(test_stripped_two_functions_pie),
		cmocka_unit_test(test_stripped_two_functions_static),
		cmocka_unit_test(test_unsized_export_does_not_swallow),
		cmocka_unit_test(test_declared_size_spans_its_fdes),
		cmocka_unit_test(test_named_functions_win),
		cmocka_unit_test(test_installed_debug_file),
		cmocka_unit_test(test_libc6_dbg),
		cmocka_unit_test(test_upload_keeps_plt_names),
		cmocka_unit_test(test_hostile_eh_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
