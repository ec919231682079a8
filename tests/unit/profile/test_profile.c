// SPDX-License-Identifier: MIT
/* The profile model: interning keeps one mapping per binary, one location per address,
 * one stack per sequence, and adds values of equal samples together. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"

static uint32_t add_mapping(struct profile *p, const char *path, const char *build_id)
{
	struct prof_mapping m = {
		.path = profile__intern(p, path),
		.build_id = profile__intern(p, build_id),
		.kind = MAPPING_EXE,
		.language = LANGUAGE_C,
		.build_id_recorded = true,
	};

	return profile__add_mapping(p, &m);
}

static void test_value_types_follow_the_question(void **state)
{
	struct profile *cpu = profile__new(QUESTION_CPU);
	struct profile *mem = profile__new(QUESTION_MEMORY);

	(void)state;
	assert_non_null(cpu);
	assert_non_null(mem);
	assert_int_equal(cpu->nvalues, 2);
	assert_string_equal(profile__str(cpu, cpu->value_types[0].type), "samples");
	assert_string_equal(profile__str(cpu, cpu->value_types[1].unit), "nanoseconds");
	assert_int_equal(profile__main_value(cpu), 1);
	assert_int_equal(mem->nvalues, 3);
	assert_string_equal(profile__str(mem, mem->value_types[0].type), "grown");
	assert_string_equal(profile__str(mem, mem->value_types[2].unit), "bytes");
	assert_int_equal(profile__main_value(mem), 0);
	assert_null(profile__new((enum question)99));
	profile__free(cpu);
	profile__free(mem);
}

static void test_same_binary_in_many_processes_is_one_mapping(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t a, b, c;

	(void)state;
	a = add_mapping(p, "/usr/local/bin/app", "b65a313cbf47");
	b = add_mapping(p, "/usr/local/bin/app", "b65a313cbf47");
	c = add_mapping(p, "/usr/local/bin/app", "0123456789ab");
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_equal(p->nmappings, 2);
	profile__free(p);
}

static void test_samples_with_equal_stack_and_labels_add_up(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t m, l1, l2, stack, other, locs[2];
	struct prof_labels labels = { .pid = 42, .tid = 42 };
	int64_t v[PROFILE_MAX_VALUES] = { 1, 10101010 };

	(void)state;
	m = add_mapping(p, "/usr/local/bin/app", "b65a313cbf47");
	l1 = profile__add_location(p, &(struct prof_location){ .mapping = m, .address = 0x1000 });
	l2 = profile__add_location(p, &(struct prof_location){ .mapping = m, .address = 0x2000 });
	assert_int_equal(profile__add_location(p, &(struct prof_location){ .mapping = m,
									  .address = 0x1000 }),
			 l1);
	assert_int_equal(profile__add_location(p, &(struct prof_location){ .mapping = 7 }),
			 UINT32_MAX);
	locs[0] = l1;
	locs[1] = l2;
	stack = profile__add_stack(p, locs, 2);
	assert_int_equal(profile__add_stack(p, locs, 2), stack);
	other = profile__add_stack(p, locs, 1);
	assert_int_not_equal(stack, other);

	labels.comm = profile__intern(p, "app");
	labels.group = profile__intern(p, "Service billing");
	assert_int_equal(profile__add_sample(p, stack, v, &labels), 0);
	assert_int_equal(profile__add_sample(p, stack, v, &labels), 0);
	labels.tid = 43;
	assert_int_equal(profile__add_sample(p, stack, v, &labels), 0);
	assert_int_equal(p->nsamples, 2);
	assert_int_equal(p->samples[0].values[0], 2);
	assert_int_equal(profile__total(p, 0), 3);
	assert_int_equal(profile__total(p, 1), 3 * 10101010);
	assert_int_equal(profile__add_sample(p, 99, v, &labels), -EINVAL);
	profile__free(p);
}

static void test_names_round_trip(void **state)
{
	(void)state;
	for (int q = 0; q < QUESTION__COUNT; q++)
		assert_int_equal(question__parse(question__id(q)), q);
	for (int l = 0; l < LANGUAGE__COUNT; l++) {
		assert_int_equal(language__parse(language__name(l)), l);
		assert_int_equal(strlen(language__colour(l)), 7);
	}
	for (int k = 0; k < GROUP_KIND__COUNT; k++)
		assert_int_equal(group_kind__parse(group_kind__name(k)), k);
	for (int k = 0; k < MAPPING_KIND__COUNT; k++)
		assert_int_equal(mapping_kind__parse(mapping_kind__name(k)), k);
	assert_int_equal(question__parse("heap"), -1);
	assert_string_equal(language__name(LANGUAGE_C), "C/C++");
}

static void test_many_strings_stay_valid(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	char buf[64];
	const char *first;

	(void)state;
	first = profile__str(p, profile__intern(p, "build_report"));
	for (int i = 0; i < 100000; i++) {
		snprintf(buf, sizeof(buf), "function_%d", i);
		assert_int_not_equal(profile__intern(p, buf), UINT32_MAX);
	}
	assert_string_equal(first, "build_report");
	assert_string_equal(profile__str(p, profile__intern(p, "function_99999")), "function_99999");
	assert_string_equal(profile__str(p, 0), "");
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_types_follow_the_question),
		cmocka_unit_test(test_same_binary_in_many_processes_is_one_mapping),
		cmocka_unit_test(test_samples_with_equal_stack_and_labels_add_up),
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_many_strings_stay_valid),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
