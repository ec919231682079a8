// SPDX-License-Identifier: MIT
/*
 * Names for a profile's locations at read time: upload before .symtab before .dynsym,
 * names known at capture kept, unnamed addresses as "app+0x4a1f20", languages refined by
 * symbol. And the promise users care about: an upload names a profile captured before
 * it, and deleting the upload takes the names away again.
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
#include <unistd.h>

#include "elf/elf_file.h"
#include "helpers/fixture.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/demangle.h"
#include "symbols/symbolize.h"
#include "symbols/symtab.h"

#define APP_ID "b65a313cbf47aa11bb22cc33dd44ee55ff667788"

static uint32_t mapping(struct profile *p, const char *path, const char *build_id,
			enum mapping_kind kind, enum language lang)
{
	struct prof_mapping m = {
		.path = profile__intern(p, path),
		.build_id = profile__intern(p, build_id),
		.kind = kind,
		.language = lang,
		.has_symtab = false,
		.build_id_recorded = true,
	};
	uint32_t id = profile__add_mapping(p, &m);

	assert_int_not_equal(id, UINT32_MAX);
	return id;
}

static uint32_t location(struct profile *p, uint32_t map, uint64_t addr, const char *function)
{
	struct prof_location l = {
		.mapping = map,
		.address = addr,
		.function = function ? profile__intern(p, function) : 0,
	};
	uint32_t id = profile__add_location(p, &l);

	assert_int_not_equal(id, UINT32_MAX);
	return id;
}

static struct symtab *table(const char *const *names, const uint64_t *addrs, size_t n)
{
	struct symtab *tab = symtab__new();

	assert_non_null(tab);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(symtab__add(tab, addrs[i], 0x100, names[i], strlen(names[i])), 0);
	assert_int_equal(symtab__finish(tab), 0);
	return tab;
}

static const char *name_of(const struct profile *p, uint32_t loc)
{
	return profile__str(p, p->locations[loc].name);
}

/* Without a store: only names known at capture; every other address reads as the
 * spec shows it, file name + ELF address. */
static void test_without_names(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t app, kern, py, noid, a, k, f, n, anon;

	(void)state;
	assert_non_null(p);
	app = mapping(p, "/usr/local/bin/billing-worker", APP_ID, MAPPING_EXE, LANGUAGE_C);
	kern = mapping(p, "[kernel]", "", MAPPING_KERNEL, LANGUAGE_KERNEL);
	py = mapping(p, "/usr/bin/python3.11", "", MAPPING_EXE, LANGUAGE_PYTHON);
	noid = mapping(p, "/opt/app", "", MAPPING_EXE, LANGUAGE_GO);
	a = location(p, app, 0x4a1f20, NULL);
	k = location(p, kern, 0xffffffff81000000ull, "do_syscall_64");
	f = location(p, py, 0x1234, "handle_request");
	n = location(p, noid, 0x401000, NULL);
	anon = location(p, mapping(p, "", "", MAPPING_ANON, LANGUAGE_OTHER), 0x7f0000001000, NULL);

	assert_int_equal(profile__symbolize(p, NULL), 0);
	assert_true(p->symbolized);
	assert_string_equal(name_of(p, a), "billing-worker+0x4a1f20");
	assert_false(p->locations[a].named);
	assert_int_equal(p->locations[a].language, LANGUAGE_C);
	assert_string_equal(name_of(p, k), "do_syscall_64");
	assert_true(p->locations[k].named);
	assert_int_equal(p->locations[k].language, LANGUAGE_KERNEL);
	assert_string_equal(name_of(p, f), "handle_request");
	assert_true(p->locations[f].named);
	assert_int_equal(p->locations[f].language, LANGUAGE_PYTHON);
	assert_string_equal(name_of(p, n), "app+0x401000");
	assert_int_equal(p->locations[n].language, LANGUAGE_GO);
	assert_string_equal(name_of(p, anon), "anon+0x7f0000001000");
	assert_false(p->locations[anon].named);
	profile__free(p);
}

struct ws {
	struct fixture *fx;
	struct store *s;
};

/* Names p from the tables the workspace keeps, as a profile's page does. */
static int name_from_store(struct store *s, struct profile *p)
{
	struct symbol_lookup names = store__symbol_lookup(s);

	return profile__symbolize(p, &names);
}

static int ws_setup(void **state)
{
	struct ws *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return -1;
	ws->fx = fixture__new();
	if (!ws->fx)
		return -1;
	ws->s = store__open(fixture__path(ws->fx, "workspace"));
	if (!ws->s) {
		fprintf(stderr, "store__open: %s\n", strerror(errno));
		return -1;
	}
	*state = ws;
	return 0;
}

static int ws_teardown(void **state)
{
	struct ws *ws = *state;

	store__close(ws->s);
	fixture__free(ws->fx);
	free(ws);
	return 0;
}

/* An upload names first, then the binary's own .symtab, then its .dynsym; a lower
 * source still names what the higher one does not. */
static void test_sources_in_order(void **state)
{
	struct ws *ws = *state;
	static const char *const dyn_names[] = { "exported_only" };
	static const char *const sym_names[] = { "from_symtab", "other_symtab" };
	static const char *const up_names[] = { "from_upload" };
	static const uint64_t dyn_addrs[] = { 0x1000 };
	static const uint64_t sym_addrs[] = { 0x1000, 0x2000 };
	static const uint64_t up_addrs[] = { 0x1000 };
	struct symtab *dyn = table(dyn_names, dyn_addrs, 1);
	struct symtab *sym = table(sym_names, sym_addrs, 2);
	struct symtab *up = table(up_names, up_addrs, 1);
	char deleted[BUILD_ID_HEX_MAX + 1];
	struct profile *p;
	uint32_t m, a, b;

	assert_int_equal(store__put_symbols(ws->s, APP_ID, SYMBOLS_DYNSYM, NULL, dyn), 0);
	p = profile__new(QUESTION_CPU);
	m = mapping(p, "/usr/local/bin/billing-worker", APP_ID, MAPPING_EXE, LANGUAGE_C);
	a = location(p, m, 0x1010, NULL);
	b = location(p, m, 0x2010, NULL);

	assert_int_equal(name_from_store(ws->s, p), 0);
	assert_string_equal(name_of(p, a), "exported_only");
	assert_true(p->locations[a].named);
	assert_string_equal(name_of(p, b), "billing-worker+0x2010");
	assert_false(p->locations[b].named);

	assert_int_equal(store__put_symbols(ws->s, APP_ID, SYMBOLS_SYMTAB, NULL, sym), 0);
	assert_int_equal(name_from_store(ws->s, p), 0);
	assert_string_equal(name_of(p, a), "from_symtab");
	assert_string_equal(name_of(p, b), "other_symtab");

	assert_int_equal(store__put_symbols(ws->s, APP_ID, SYMBOLS_UPLOAD, "app.debug", up), 0);
	assert_int_equal(name_from_store(ws->s, p), 0);
	assert_string_equal(name_of(p, a), "from_upload");
	/* What the upload does not name (a debug file has no PLT stubs, say), the binary's
	 * own table of the same build still does. */
	assert_string_equal(name_of(p, b), "other_symtab");

	assert_int_equal(store__delete_upload(ws->s, APP_ID, deleted), 0);
	assert_int_equal(name_from_store(ws->s, p), 0);
	assert_string_equal(name_of(p, a), "from_symtab");

	profile__free(p);
	symtab__free(dyn);
	symtab__free(sym);
	symtab__free(up);
}

/* A Rust function in a C-coloured binary is Rust; C++ in a Go binary is C/C++; the
 * kernel is the kernel; two mappings of one build share one table. */
static void test_languages_and_shared_builds(void **state)
{
	struct ws *ws = *state;
	static const char *const names[] = { "_ZN6ledger4post17h0123456789abcdefE",
					     "_ZN3cgo4callEv", "main.settleLedger" };
	static const uint64_t addrs[] = { 0x1000, 0x2000, 0x3000 };
	struct symtab *tab = table(names, addrs, 3);
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t c, c2, go, k, r, r2, x, g;

	assert_int_equal(store__put_symbols(ws->s, APP_ID, SYMBOLS_SYMTAB, NULL, tab), 0);
	c = mapping(p, "/usr/local/bin/ledger", APP_ID, MAPPING_EXE, LANGUAGE_C);
	c2 = mapping(p, "/srv/copy/ledger", APP_ID, MAPPING_EXE, LANGUAGE_C);
	go = mapping(p, "/usr/local/bin/ledger-go", APP_ID, MAPPING_EXE, LANGUAGE_GO);
	r = location(p, c, 0x1004, NULL);
	r2 = location(p, c2, 0x1008, NULL);
	x = location(p, go, 0x2004, NULL);
	g = location(p, go, 0x3004, NULL);
	k = location(p, mapping(p, "[kernel]", "", MAPPING_KERNEL, LANGUAGE_KERNEL),
		     0xffffffff81001000ull, "schedule");

	assert_int_equal(name_from_store(ws->s, p), 0);
	assert_int_equal(p->locations[r].language, LANGUAGE_RUST);
	assert_int_equal(p->locations[r2].language, LANGUAGE_RUST);
	/* Names read as people write them: demangled, Rust's hash dropped. */
	assert_string_equal(name_of(p, r), "ledger::post");
	assert_string_equal(name_of(p, r2), "ledger::post");
	assert_string_equal(name_of(p, x), "cgo::call()");
	assert_string_equal(name_of(p, g), "main.settleLedger");
	assert_int_equal(p->locations[x].language, LANGUAGE_C);
	assert_int_equal(p->locations[g].language, LANGUAGE_GO);
	assert_int_equal(p->locations[k].language, LANGUAGE_KERNEL);
	profile__free(p);
	symtab__free(tab);
}

/*
 * End to end, as a user meets it: a real program, stripped; a profile of it saved with
 * raw addresses; then its debug file uploaded. The saved profile, read again, names the
 * function; with the upload deleted it reads as an address again.
 */
static void test_upload_names_earlier_profile(void **state)
{
	struct ws *ws = *state;
	struct fixture *fx = ws->fx;
	const char *exe = fixture__compile(fx, "worker",
					   "__attribute__((noinline)) int compute_invoice_totals(int n)"
					   "{ int s = 0; for (int i = 0; i < n; i++) s ^= i * i;"
					   " return s; }\n"
					   "int main(int c, char **v) { (void)v;"
					   " return compute_invoice_totals(c); }\n",
					   "-O1 -g -Wl,--build-id");
	const char *dbg = fixture__only_keep_debug(fx, exe, "worker.debug");
	const char *bin = fixture__strip(fx, exe, "billing-worker");
	char id[STORE_ID_MAX], deleted[BUILD_ID_HEX_MAX + 1];
	struct elf_info info;
	struct symtab *full, *upload;
	struct profile *p, *loaded;
	uint64_t fn_addr = 0;
	uint32_t m, loc, stack;
	int64_t values[PROFILE_MAX_VALUES] = { 1, 10000000 };
	struct prof_labels labels = { .pid = 42, .tid = 42 };
	int fd;

	assert_non_null(dbg);
	assert_non_null(bin);
	fd = open(bin, O_RDONLY);
	assert_int_equal(elf_info__read(fd, &info), 0);
	close(fd);
	assert_false(info.has_symtab);

	/* Where the function is, from the unstripped build. */
	fd = open(exe, O_RDONLY);
	assert_int_equal(symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &full), 0);
	close(fd);
	for (size_t i = 0; i < full->nsyms; i++) {
		if (strcmp(full->names + full->syms[i].name, "compute_invoice_totals") == 0)
			fn_addr = full->syms[i].addr;
	}
	symtab__free(full);
	assert_true(fn_addr != 0);

	/* The profile, captured before any upload: raw addresses and the build id. */
	p = profile__new(QUESTION_CPU);
	m = mapping(p, bin, info.build_id, MAPPING_EXE, binary__language(bin, &info));
	loc = location(p, m, fn_addr + 4, NULL);
	stack = profile__add_stack(p, &loc, 1);
	labels.comm = profile__intern(p, "billing-worker");
	assert_int_equal(profile__add_sample(p, stack, values, &labels), 0);
	p->header.ncpus = 2;
	p->header.duration_ns = 1000000000;
	assert_int_equal(store__save_profile(ws->s, p, "", id), 0);
	profile__free(p);

	assert_int_equal(store__load_profile(ws->s, id, &loaded), 0);
	assert_int_equal(name_from_store(ws->s, loaded), 0);
	assert_false(loaded->locations[0].named);
	{
		char want[64];

		snprintf(want, sizeof(want), "billing-worker+0x%llx",
			 (unsigned long long)(fn_addr + 4));
		assert_string_equal(name_of(loaded, 0), want);
	}
	profile__free(loaded);

	/* Upload the debug file (what `slideops symbols upload` does). */
	fd = open(dbg, O_RDONLY);
	assert_int_equal(elf_info__read(fd, &info), 0);
	assert_int_equal(symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &upload), 0);
	close(fd);
	assert_int_equal(store__put_symbols(ws->s, info.build_id, SYMBOLS_UPLOAD, "worker.debug",
					    upload), 0);
	symtab__free(upload);

	assert_int_equal(store__load_profile(ws->s, id, &loaded), 0);
	assert_int_equal(name_from_store(ws->s, loaded), 0);
	assert_true(loaded->locations[0].named);
	assert_string_equal(name_of(loaded, 0), "compute_invoice_totals");
	assert_int_equal(loaded->locations[0].language, LANGUAGE_C);
	profile__free(loaded);

	assert_int_equal(store__delete_upload(ws->s, info.build_id, deleted), 0);
	assert_int_equal(store__load_profile(ws->s, id, &loaded), 0);
	assert_int_equal(name_from_store(ws->s, loaded), 0);
	assert_false(loaded->locations[0].named);
	profile__free(loaded);
}

static void assert_demangles(const char *mangled, const char *want)
{
	char *got = symbol__demangle(mangled);

	if (!want) {
		if (got)
			fail_msg("%s: want it kept as it is, got %s", mangled ? mangled : "NULL", got);
		return;
	}
	if (!got || strcmp(got, want) != 0)
		fail_msg("%s: want %s, got %s", mangled, want, got ? got : "(nothing)");
	free(got);
}

static void test_demangle(void **state)
{
	(void)state;
	assert_demangles("_ZN6ledger4postEi", "ledger::post(int)");
	assert_demangles("_ZN7billing6Ledger6settleERKSt6vectorIiSaIiEE",
			 "billing::Ledger::settle(std::vector<int, std::allocator<int> > const&)");
	assert_demangles("_Z3fooi.constprop.0", "foo(int) [clone .constprop.0]");
	assert_demangles("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	/* Not mangled, or not validly: kept as they are. */
	assert_demangles("compute_totals", NULL);
	assert_demangles("main.settleLedger", NULL);
	assert_demangles("_Znotreally!", NULL);
	/* Rust v0. */
	assert_demangles("_RNvCs15kBYyAo9fc_7mycrate4main", "mycrate::main");
	assert_demangles("_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar");
	assert_demangles(NULL, NULL);
}

static void assert_readable(const char *name, const char *want)
{
	char *got = symbol__readable(name);

	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

/* Names as a person writes them: no symbol version; a PLT stub keeps "@plt". */
static void test_readable_without_versions(void **state)
{
	(void)state;
	assert_readable("pthread_mutex_lock@@GLIBC_2.2.5", "pthread_mutex_lock");
	assert_readable("clock_nanosleep@@GLIBC_2.17", "clock_nanosleep");
	assert_readable("realpath@GLIBC_2.2.5", "realpath");
	assert_readable("_ZN6ledger4postEi@@LEDGER_1.0", "ledger::post(int)");
	assert_readable("memcpy@plt", NULL);
	assert_readable("compute_totals", NULL);
	assert_readable("_ZN6ledger4postEi", "ledger::post(int)");
	/* Not a version: left as they are. */
	assert_readable("@@GLIBC_2.2.5", NULL);
	assert_readable("odd@", NULL);
	assert_readable("odd@@", NULL);
	assert_readable("mail@host name", NULL);
	assert_readable(NULL, NULL);
}

/* Names captured with the profile (binaries named from their own file at capture) are
 * shown demangled too; kernel names as they are. */
static void test_capture_names_demangled(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t m, a;

	(void)state;
	m = mapping(p, "/usr/local/bin/ledger", "", MAPPING_EXE, LANGUAGE_C);
	a = location(p, m, 0x1000, "_ZN6ledger4postEi");
	assert_int_equal(profile__symbolize(p, NULL), 0);
	assert_string_equal(name_of(p, a), "ledger::post(int)");
	assert_int_equal(p->locations[a].language, LANGUAGE_C);
	profile__free(p);
}

/* node's JIT code (one [JavaScript] frame from the capture) and its Builtins_* functions
 * alternate: each run of them is one [JavaScript] frame, in JavaScript; node's own C++
 * keeps its name. */
static void test_node_runs_are_one_frame(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t node, jit, js, b1, b2, start, stack, depth;
	const uint32_t *locs;

	(void)state;
	node = mapping(p, "/usr/bin/node", "", MAPPING_EXE, LANGUAGE_C);
	jit = mapping(p, "[JavaScript]", "", MAPPING_JIT, LANGUAGE_JAVASCRIPT);
	js = location(p, jit, 0, "[JavaScript]");
	b1 = location(p, node, 0x1000, "Builtins_InterpreterEntryTrampoline");
	b2 = location(p, node, 0x2000, "Builtins_JSEntryTrampoline");
	start = location(p, node, 0x3000, "_ZN4node5StartEiPPc");
	{
		uint32_t l[] = { js, b1, js, b2, start };

		stack = profile__add_stack(p, l, 5);
	}
	assert_int_not_equal(stack, UINT32_MAX);
	assert_int_equal(profile__symbolize(p, NULL), 0);
	assert_string_equal(name_of(p, b1), "[JavaScript]");
	assert_int_equal(p->locations[b1].language, LANGUAGE_JAVASCRIPT);
	assert_int_equal(p->locations[js].language, LANGUAGE_JAVASCRIPT);
	assert_string_equal(name_of(p, start), "node::Start(int, char**)");
	assert_int_equal(p->locations[start].language, LANGUAGE_C);
	locs = profile__stack(p, stack, &depth);
	assert_int_equal(depth, 2);
	assert_string_equal(name_of(p, locs[0]), "[JavaScript]");
	assert_int_equal(locs[1], start);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_names),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_readable_without_versions),
		cmocka_unit_test(test_capture_names_demangled),
		cmocka_unit_test(test_node_runs_are_one_frame),
		cmocka_unit_test_setup_teardown(test_sources_in_order, ws_setup, ws_teardown),
		cmocka_unit_test_setup_teardown(test_languages_and_shared_builds, ws_setup,
						ws_teardown),
		cmocka_unit_test_setup_teardown(test_upload_names_earlier_profile, ws_setup,
						ws_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
