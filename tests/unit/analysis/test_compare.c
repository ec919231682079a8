// SPDX-License-Identifier: MIT
/*
 * Comparing two profiles of the same question: groups matched by label across two string
 * tables, shares before and after, the functions that grew and shrank the most, and a
 * refusal for profiles of different questions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/compare.h"
#include "profile_builder.h"

static const struct pb_who billing = { "Service billing", GROUP_SERVICE, 4242, "gunicorn" };
static const struct pb_who nginx = { "Unit nginx.service", GROUP_UNIT, 800, "nginx" };
static const struct pb_who redis = { "Container redis", GROUP_CONTAINER, 900, "redis-server" };

/*
 * Two CPUs for 30 s (60 s of CPU time). Before: billing 32.4 s (54%: build_report 20 s,
 * parse_rows 12.4 s), nginx 8.4 s (14%). After: billing 42 s (70%: build_report 36 s,
 * parse_rows 6 s), nginx 2.4 s (4%), redis 6 s (10%), new.
 */
static struct profile *server(bool after)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t ng = pb_mapping(p, "/usr/sbin/nginx", "cc", MAPPING_EXE, true);
	uint32_t rd = pb_mapping(p, "/usr/bin/redis-server", "ee", MAPPING_EXE, true);
	/* Interned in a different order on each side: matching must go by name. */
	uint32_t rows = after ? pb_frame(p, app, 0x20, "parse_rows", true, LANGUAGE_C) : 0;
	uint32_t report = pb_frame(p, app, 0x10, "build_report", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	uint32_t ngx = pb_frame(p, ng, 0x10, "ngx_process_events", true, LANGUAGE_C);
	uint32_t cmd = pb_frame(p, rd, 0x10, "processCommand", true, LANGUAGE_C);

	if (!after)
		rows = pb_frame(p, app, 0x20, "parse_rows", true, LANGUAGE_C);
	pb_sample(p, &billing, (after ? 36 : 20) * SEC, 0, 2, report, main_);
	pb_sample(p, &billing, after ? 6 * SEC : 12400 * MS, 0, 2, rows, main_);
	pb_sample(p, &nginx, after ? 2400 * MS : 8400 * MS, 0, 1, ngx);
	if (after)
		pb_sample(p, &redis, 6 * SEC, 0, 1, cmd);
	return p;
}

/* One CPU for 1 s at 100 Hz: a few dozen ticks, split between billing's two functions
 * (before 30 and 20, after 33 and 17 ticks) or, with big, a hundred times as many. */
static struct profile *few_ticks(bool after, int64_t scale)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, scale * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t report = pb_frame(p, app, 0x10, "build_report", true, LANGUAGE_C);
	uint32_t rows = pb_frame(p, app, 0x20, "parse_rows", true, LANGUAGE_C);

	pb_sample(p, &billing, scale * (after ? 330 : 300) * MS, 0, 1, report);
	pb_sample(p, &billing, scale * (after ? 170 : 200) * MS, 0, 1, rows);
	return p;
}

/* A move of 3 points resting on 50 ticks is chance: nothing is named. The same move on
 * 5000 ticks is a change, and the sentence says so. */
static void test_changes_within_sampling_error_are_not_named(void **state)
{
	int64_t scales[] = { 1, 100 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct profile *pa = few_ticks(false, scales[i]), *pb = few_ticks(true, scales[i]);
		struct analysis *a = analysis__new(pa), *b = analysis__new(pb);
		struct comparison *c = comparison__new(a, b, 10);

		assert_non_null(c);
		assert_true(c->ngrew >= 1); /* listed, as every move over half a point is */
		if (i == 0)
			assert_null(strstr(c->summary, "build_report"));
		else
			assert_non_null(strstr(c->summary, "build_report"));
		comparison__free(c);
		analysis__free(a);
		analysis__free(b);
		profile__free(pa);
		profile__free(pb);
	}
}

static const struct compare_group *find_group(const struct comparison *c, const char *label)
{
	for (size_t i = 0; i < c->ngroups; i++)
		if (strcmp(c->groups[i].label, label) == 0)
			return &c->groups[i];
	fail_msg("no group %s", label);
	return NULL;
}

static void test_groups_before_and_after(void **state)
{
	struct profile *pa = server(false), *pb = server(true);
	struct analysis *a = analysis__new(pa), *b = analysis__new(pb);
	struct comparison *c = comparison__new(a, b, 10);
	const struct compare_group *g;

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->ngroups, 3);
	assert_string_equal(c->groups[0].label, "Service billing");
	g = &c->groups[0];
	assert_float_equal(g->before, 0.54, 1e-9);
	assert_float_equal(g->after, 0.70, 1e-9);
	assert_int_equal(g->value_before, 32400 * MS);
	assert_int_equal(g->value_after, 42 * SEC);
	g = find_group(c, "Unit nginx.service");
	assert_float_equal(g->before, 0.14, 1e-9);
	assert_float_equal(g->after, 0.04, 1e-9);
	g = find_group(c, "Container redis");
	assert_int_equal(g->kind, GROUP_CONTAINER);
	assert_float_equal(g->before, 0.0, 1e-9);
	assert_float_equal(g->after, 0.10, 1e-9);
	comparison__free(c);
	analysis__free(a);
	analysis__free(b);
	profile__free(pa);
	profile__free(pb);
}

static void test_functions_that_grew_and_shrank(void **state)
{
	struct profile *pa = server(false), *pb = server(true);
	struct analysis *a = analysis__new(pa), *b = analysis__new(pb);
	struct comparison *c = comparison__new(a, b, 10);

	(void)state;
	assert_non_null(c);
	/* build_report 20/60 -> 36/60; processCommand 0 -> 6/60 (new). */
	assert_int_equal(c->ngrew, 2);
	assert_string_equal(c->grew[0].name, "build_report");
	assert_float_equal(c->grew[0].before, 20.0 / 60, 1e-9);
	assert_float_equal(c->grew[0].after, 36.0 / 60, 1e-9);
	assert_string_equal(c->grew[1].name, "processCommand");
	assert_float_equal(c->grew[1].before, 0.0, 1e-9);
	/* ngx_process_events 8.4 -> 2.4 s, parse_rows 12.4 -> 6 s: the larger drop first. */
	assert_int_equal(c->nshrank, 2);
	assert_string_equal(c->shrank[0].name, "parse_rows");
	assert_string_equal(c->shrank[1].name, "ngx_process_events");
	/* main has no self time on either side: it neither grew nor shrank. */
	for (size_t i = 0; i < c->ngrew; i++)
		assert_string_not_equal(c->grew[i].name, "main");
	assert_string_equal(c->summary, "Service billing went from 54% to 70% of the server's CPU "
					"time. build_report grew the most, from 33% to 60%.");
	comparison__free(c);

	/* At most N each way. */
	c = comparison__new(a, b, 1);
	assert_non_null(c);
	assert_int_equal(c->ngrew, 1);
	assert_int_equal(c->nshrank, 1);
	comparison__free(c);
	analysis__free(a);
	analysis__free(b);
	profile__free(pa);
	profile__free(pb);
}

static void test_same_profile_nothing_changed(void **state)
{
	struct profile *pa = server(false), *pb = server(false);
	struct analysis *a = analysis__new(pa), *b = analysis__new(pb);
	struct comparison *c = comparison__new(a, b, 10);

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->ngrew, 0);
	assert_int_equal(c->nshrank, 0);
	assert_string_equal(c->summary, "No group and no function changed by half a percentage "
					"point or more.");
	comparison__free(c);
	analysis__free(a);
	analysis__free(b);
	profile__free(pa);
	profile__free(pb);
}

static void test_different_questions_are_refused(void **state)
{
	struct profile *pa = server(false), *pb = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	struct analysis *a = analysis__new(pa), *b = analysis__new(pb);

	(void)state;
	errno = 0;
	assert_null(comparison__new(a, b, 10));
	assert_int_equal(errno, EINVAL);
	analysis__free(a);
	analysis__free(b);
	profile__free(pa);
	profile__free(pb);
}

static void test_json_and_text(void **state)
{
	struct profile *pa = server(false), *pb = server(true);
	struct analysis *a = analysis__new(pa), *b = analysis__new(pb);
	struct comparison *c = comparison__new(a, b, 10);
	json_t *doc = comparison__to_json(c, "id-a", "id-b"), *g, *f;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "question")), "cpu");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "before"),
								"id")),
			    "id-a");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "after"),
								"answer")),
			    b->answer);
	assert_string_equal(json_string_value(json_object_get(doc, "summary")), c->summary);
	g = json_array_get(json_object_get(doc, "groups"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "label")), "Service billing");
	assert_float_equal(json_real_value(json_object_get(g, "before")), 0.54, 1e-9);
	assert_float_equal(json_real_value(json_object_get(g, "after")), 0.70, 1e-9);
	assert_float_equal(json_real_value(json_object_get(g, "change")), 0.16, 1e-9);
	f = json_array_get(json_object_get(doc, "grew"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "name")), "build_report");
	assert_string_equal(json_string_value(json_object_get(f, "language")), "C/C++");
	f = json_array_get(json_object_get(doc, "shrank"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "name")), "parse_rows");
	json_decref(doc);

	out = open_memstream(&text, &len);
	comparison__print(c, "id-a", "id-b", out);
	fclose(out);
	assert_non_null(strstr(text, "Before: id-a, on web-1 at 2026-12-02T15:04:05Z. Over 30 "
				     "seconds, Service billing used 54% of the CPU time"));
	assert_non_null(strstr(text, "Service billing"));
	assert_non_null(strstr(text, "54%    70%     +16"));
	assert_non_null(strstr(text, "build_report"));
	free(text);
	comparison__free(c);
	analysis__free(a);
	analysis__free(b);
	profile__free(pa);
	profile__free(pb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_before_and_after),
		cmocka_unit_test(test_changes_within_sampling_error_are_not_named),
		cmocka_unit_test(test_functions_that_grew_and_shrank),
		cmocka_unit_test(test_same_profile_nothing_changed),
		cmocka_unit_test(test_different_questions_are_refused),
		cmocka_unit_test(test_json_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
