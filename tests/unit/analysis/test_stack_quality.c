// SPDX-License-Identifier: MIT
/*
 * Stack quality without a kernel: which names are roots, the share of user stacks that
 * reach one (a stack cut short ends in [truncated], which is none; kernel-only stacks
 * do not count), the walker's exits kept through pprof and shown in the JSON document
 * and the text report, and a profile of an older capture (no exits) still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "views/analysis_view.h"
#include "profile/pprof.h"
#include "profile_builder.h"

static void test_roots(void **state)
{
	static const char *const roots[] = {
		"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
		"clone", "__clone", "clone3", "__clone3", "__GI___clone3", "start_thread",
		"__libc_start_main@@GLIBC_2.34",
	};
	static const char *const not_roots[] = {
		"main", "start", "_start_thread_helper", "clone4", "", "[truncated]",
		"libc.so.6+0x27249", "thread_start", "__libc_start",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		assert_true(analysis__is_stack_root(roots[i]));
	for (size_t i = 0; i < sizeof(not_roots) / sizeof(not_roots[0]); i++)
		assert_false(analysis__is_stack_root(not_roots[i]));
}

/* 3 s of whole stacks (main thread and a thread), 1 s cut short, 2 s kernel only. */
static struct profile *build(bool exits)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t exe = pb_mapping(p, "/usr/local/bin/app", "aa", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "bb", MAPPING_LIB,
				   true);
	uint32_t kernel = pb_mapping(p, "[kernel.kallsyms]", "cc", MAPPING_KERNEL, true);
	uint32_t cut_map = pb_mapping(p, PROFILE_TRUNCATED_FRAME, "", MAPPING_ANON, true);
	uint32_t start = pb_frame(p, exe, 0x1000, "_start", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, exe, 0x1100, "main", true, LANGUAGE_C);
	uint32_t work = pb_frame(p, exe, 0x1200, "work", true, LANGUAGE_C);
	uint32_t lsm = pb_frame(p, libc, 0x27200, "__libc_start_main", true, LANGUAGE_C);
	uint32_t clone3 = pb_frame(p, libc, 0x90000, "__clone3", true, LANGUAGE_C);
	uint32_t thread = pb_frame(p, libc, 0x91000, "start_thread", true, LANGUAGE_C);
	uint32_t cut = pb_frame(p, cut_map, 0, PROFILE_TRUNCATED_FRAME, true, LANGUAGE_OTHER);
	uint32_t sched = pb_frame(p, kernel, 0xffffffff81000000ull, "schedule", true,
				  LANGUAGE_KERNEL);
	struct pb_who app = { "Unit app.service", GROUP_UNIT, 10, "app", NULL };
	struct pb_who kthread = { "System", GROUP_SYSTEM, 2, "kthreadd", NULL };

	pb_sample(p, &app, 2 * SEC, 0, 4, work, main_, lsm, start);
	pb_sample(p, &app, 1 * SEC, 11, 3, work, thread, clone3);
	pb_sample(p, &app, 1 * SEC, 0, 2, work, cut);
	pb_sample(p, &kthread, 2 * SEC, 0, 1, sched);
	if (exits) {
		p->header.stack_exits_recorded = true;
		p->header.stack_exits[STACK_EXIT_READ_FAULT] = 7;
		p->header.stack_exits[STACK_EXIT_DEPTH] = 2;
		p->header.stack_exits[STACK_EXIT_NO_PROCESS_TABLES] = 40;
	}
	return p;
}

static void test_share_of_whole_stacks(void **state)
{
	struct profile *p = build(true);
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	/* 3 of the 4 seconds with a user stack. */
	assert_true(a->stacks_complete > 0.749 && a->stacks_complete < 0.751);
	analysis__free(a);
	profile__free(p);
}

static void test_json_and_text(void **state)
{
	struct profile *p = build(true);
	struct analysis *a = analysis__new(p);
	json_t *doc = analysis_view__to_json(a, "x"), *q, *exits;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(doc);
	q = json_object_get(doc, "stack_quality");
	assert_non_null(q);
	assert_true(json_real_value(json_object_get(q, "complete")) > 0.749);
	exits = json_object_get(q, "exits");
	assert_int_equal(json_object_size(exits), STACK_EXIT__COUNT);
	assert_int_equal(json_integer_value(json_object_get(exits, "read_fault")), 7);
	assert_int_equal(json_integer_value(json_object_get(exits, "depth")), 2);
	assert_int_equal(json_integer_value(json_object_get(exits, "no_table")), 0);
	assert_int_equal(json_integer_value(json_object_get(exits, "no_process_tables")), 40);
	json_decref(doc);

	f = open_memstream(&text, &len);
	analysis_view__print_report(a, f, 0);
	fclose(f);
	assert_non_null(strstr(text, "Stacks: 75% of user stacks are whole"));
	/* The reason's key, as in the JSON document, and what it means in words. */
	assert_non_null(strstr(text, "mostly at read_fault (stack memory that could not be "
				     "read, 7 times)"));
	/* Samples without tables are not an exit, but said: they explain short stacks. */
	assert_non_null(strstr(text, "40 samples were of processes whose unwind tables were "
				     "not loaded yet"));
	free(text);
	analysis__free(a);
	profile__free(p);
}

static void test_pprof_keeps_exits(void **state)
{
	struct profile *p = build(true), *back = NULL;
	void *blob = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(pprof__encode(p, false, &blob, &len), 0);
	assert_int_equal(pprof__decode(blob, len, &back), 0);
	assert_true(back->header.stack_exits_recorded);
	for (int i = 0; i < STACK_EXIT__COUNT; i++)
		assert_int_equal(back->header.stack_exits[i], p->header.stack_exits[i]);
	free(blob);
	profile__free(back);
	profile__free(p);
}

/* A capture made before exits were counted: read, and its document says so ({}). */
static void test_older_profile(void **state)
{
	struct profile *p = build(false), *back = NULL;
	struct analysis *a;
	void *blob = NULL;
	size_t len = 0;
	json_t *doc;

	(void)state;
	assert_int_equal(pprof__encode(p, false, &blob, &len), 0);
	assert_int_equal(pprof__decode(blob, len, &back), 0);
	assert_false(back->header.stack_exits_recorded);
	back->symbolized = true;
	for (uint32_t i = 0; i < back->nlocations; i++)
		back->locations[i].name = p->locations[i].name ?
			profile__intern(back, profile__str(p, p->locations[i].name)) : 0;
	a = analysis__new(back);
	assert_non_null(a);
	doc = analysis_view__to_json(a, NULL);
	assert_int_equal(json_object_size(json_object_get(json_object_get(doc, "stack_quality"),
							  "exits")), 0);
	json_decref(doc);
	analysis__free(a);
	free(blob);
	profile__free(back);
	profile__free(p);
}

/*
 * A stripped binary of the user's: its main thread's stacks begin in its unnamed _start,
 * which calls __libc_start_main; its threads' in libc's clone3, unnamed here too (a
 * system library: not the user's to upload). Whole stacks, all of them: the report says
 * which binary's debug symbols would name where they begin, and nothing about stacks
 * that stop short. One stack begins in unnamed code that calls no root: not judged.
 */
static void test_stripped_start(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t exe = pb_mapping(p, "/srv/billing/billing-worker", "aa", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "bb", MAPPING_LIB,
				   true);
	uint32_t start = pb_frame(p, exe, 0x1000, "billing-worker+0x1000", false, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, exe, 0x1100, "billing-worker+0x1100", false, LANGUAGE_C);
	uint32_t work = pb_frame(p, exe, 0x1200, "billing-worker+0x1200", false, LANGUAGE_C);
	uint32_t lsm = pb_frame(p, libc, 0x27200, "__libc_start_main", true, LANGUAGE_C);
	uint32_t clone3 = pb_frame(p, libc, 0x90000, "libc.so.6+0x90000", false, LANGUAGE_C);
	uint32_t thread = pb_frame(p, libc, 0x91000, "start_thread", true, LANGUAGE_C);
	struct pb_who app = { "Unit billing.service", GROUP_UNIT, 10, "billing-worker", NULL };
	struct analysis *a;
	json_t *doc, *u;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	pb_sample(p, &app, 2 * SEC, 0, 4, work, main_, lsm, start);
	pb_sample(p, &app, 1 * SEC, 11, 3, work, thread, clone3);
	pb_sample(p, &app, 1 * SEC, 0, 2, work, main_);
	a = analysis__new(p);
	assert_non_null(a);
	/* Of the 3 s judged, all whole; the last second cannot be told before an upload. */
	assert_true(a->stacks_complete > 0.999 && a->stacks_complete < 1.001);
	assert_int_equal(a->nunnamed_starts, 1);
	assert_string_equal(a->unnamed_starts[0].path, "/srv/billing/billing-worker");
	assert_true(a->unnamed_starts[0].share > 0.749 && a->unnamed_starts[0].share < 0.751);

	doc = analysis_view__to_json(a, "x");
	assert_non_null(doc);
	u = json_array_get(json_object_get(json_object_get(doc, "stack_quality"),
					   "unnamed_starts"), 0);
	assert_non_null(u);
	assert_string_equal(json_string_value(json_object_get(u, "path")),
			    "/srv/billing/billing-worker");
	assert_non_null(strstr(json_string_value(json_object_get(u, "sentence")),
			       "The stacks of billing-worker start in unnamed code: upload its "
			       "debug symbols"));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(doc,
				"stack_quality"), "sentence")), "100% of the stacks are whole"));
	assert_null(json_array_get(json_object_get(json_object_get(doc, "stack_quality"),
						   "unnamed_starts"), 1));
	json_decref(doc);

	f = open_memstream(&text, &len);
	analysis_view__print_report(a, f, 0);
	fclose(f);
	assert_non_null(strstr(text, "The stacks of billing-worker start in unnamed code: "
				     "upload its debug symbols"));
	assert_non_null(strstr(text, "Stacks: 100% of user stacks are whole"));
	assert_null(strstr(text, "libc.so.6 start"));
	assert_null(strstr(text, "known root"));
	free(text);
	analysis__free(a);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_share_of_whole_stacks),
		cmocka_unit_test(test_json_and_text),
		cmocka_unit_test(test_pprof_keeps_exits),
		cmocka_unit_test(test_older_profile),
		cmocka_unit_test(test_stripped_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
