// SPDX-License-Identifier: MIT
/*
 * A finished capture as one Batch (src/agent/batch.c): with the workspace out of reach
 * for /agent/symbols-wanted, the batch carries every table the capture read (it stands
 * alone), and every build whose table it carries, .symtab as .dynsym, is one the next
 * capture does not read again (pipeline_options.has_symbols says the workspace keeps
 * it), as `serve` does not read again what its store keeps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "agent/agent_state.h"
#include "agent/batch.h"
#include "agent/transport.h"
#include "pipeline/pipeline.h"
#include "profile/pprof.h"
#include "symbols/symtab.h"

#define SYMTAB_BUILD "5e1f0000000000000000000000000000000000aa"
#define DYNSYM_BUILD "d1a50000000000000000000000000000000000bb"
#define OTHER_BUILD "07e40000000000000000000000000000000000cc"
/* Nothing listens on port 1 of loopback: the ask is refused at once. */
#define NO_WORKSPACE "http://127.0.0.1:1"

static struct symtab *table(const char *name)
{
	struct symtab *t = symtab__new();

	assert_non_null(t);
	assert_int_equal(symtab__add(t, 0x1000, 0x40, name, strlen(name)), 0);
	assert_int_equal(symtab__finish(t), 0);
	return t;
}

static void test_sent_tables_are_not_read_again(void **state)
{
	struct agent_options opts = { .workspace = NO_WORKSPACE };
	struct agent a = { .opts = &opts };
	struct pipeline_symbols syms[2] = { 0 };
	struct pipeline_result r = { 0 };
	struct batch_counts counts;
	Slideops__Agent__Batch *b;
	struct transport *t;
	void *out = NULL;
	size_t len = 0;

	(void)state;
	strcpy(a.identity.boot_id, "0b5e7a3c-1111-4222-8333-944455556666");
	strcpy(syms[0].build_id, SYMTAB_BUILD);
	syms[0].from_symtab = true;
	syms[0].tab = table("parse_request");
	strcpy(syms[1].build_id, DYNSYM_BUILD);
	syms[1].tab = table("malloc");
	r.profile = profile__new(QUESTION_CPU);
	assert_non_null(r.profile);
	r.symbols = syms;
	r.nsymbols = 2;
	t = transport__new(NO_WORKSPACE, NULL);
	assert_non_null(t);

	assert_int_equal(agent__workspace_keeps(&a, SYMTAB_BUILD), 0);
	assert_int_equal(batch__build(t, &a, &r, "k1", 1, 0, &out, &len, &counts), 0);

	b = slideops__agent__batch__unpack(NULL, len, out);
	assert_non_null(b);
	assert_int_equal(b->sequence, 1);
	assert_int_equal(b->n_symbols, 2);
	assert_string_equal(b->symbols[0]->build_id, SYMTAB_BUILD);
	assert_true(b->symbols[0]->from_symtab);
	assert_string_equal(b->symbols[0]->symbols[0]->name, "parse_request");
	assert_int_equal(counts.symbol_tables, 2);
	/* Both go once: the next capture reads neither again; a build not sent is read. */
	assert_int_equal(agent__workspace_keeps(&a, SYMTAB_BUILD), 1);
	assert_int_equal(agent__workspace_keeps(&a, DYNSYM_BUILD), 1);
	assert_int_equal(agent__workspace_keeps(&a, OTHER_BUILD), 0);

	slideops__agent__batch__free_unpacked(b, NULL);
	free(out);
	transport__free(t);
	profile__free(r.profile);
	symtab__free(syms[0].tab);
	symtab__free(syms[1].tab);
	for (size_t i = 0; i < a.nworkspace_builds; i++)
		free(a.workspace_builds[i]);
	free(a.workspace_builds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sent_tables_are_not_read_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
