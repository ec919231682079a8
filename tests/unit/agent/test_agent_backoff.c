// SPDX-License-Identifier: MIT
/*
 * The agent's retry backoff (src/agent/backoff.c): each delay within [step/2, step] of
 * its doubling step, never past the cap, jittered (two agents do not retry in step),
 * and back to the first delay after a success.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agent/backoff.h"

static void test_delays_double_within_bounds(void **state)
{
	struct backoff b;
	uint64_t step = 2000;

	(void)state;
	backoff__init(&b, 2000, 300000, 42);
	for (int i = 0; i < 20; i++) {
		uint64_t d = backoff__next(&b);

		assert_true(d >= step - step / 2);
		assert_true(d <= step);
		step = step * 2 > 300000 ? 300000 : step * 2;
	}
}

static void test_capped(void **state)
{
	struct backoff b;

	(void)state;
	backoff__init(&b, 1000, 40000, 7);
	for (int i = 0; i < 1000; i++) {
		uint64_t d = backoff__next(&b);

		assert_true(d <= 40000);
		if (i >= 6) /* 1 s doubled six times is past the cap */
			assert_true(d >= 20000);
	}
}

static void test_jittered(void **state)
{
	struct backoff a, b;
	int same = 0, distinct = 0;
	uint64_t last = 0;

	(void)state;
	backoff__init(&a, 1000, 300000, 1);
	backoff__init(&b, 1000, 300000, 2);
	for (int i = 0; i < 100; i++) {
		uint64_t da = backoff__next(&a), db = backoff__next(&b);

		same += da == db;
		distinct += i > 10 && da != last;
		last = da;
	}
	/* Two agents seeded apart rarely wait the same; one agent's waits at the cap vary. */
	assert_true(same < 10);
	assert_true(distinct > 80);
}

static void test_reset(void **state)
{
	struct backoff b;

	(void)state;
	backoff__init(&b, 1000, 300000, 3);
	for (int i = 0; i < 30; i++)
		backoff__next(&b);
	backoff__reset(&b);
	assert_true(backoff__next(&b) <= 1000);
	assert_true(backoff__next(&b) <= 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delays_double_within_bounds),
		cmocka_unit_test(test_capped),
		cmocka_unit_test(test_jittered),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests_name("agent backoff", tests, NULL, NULL);
}
