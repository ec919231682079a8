// SPDX-License-Identifier: MIT
/*
 * The budget for work on untrusted files: CPU time of the thread, so that waiting (a
 * loaded server, a slow disk) does not use it up, with a wall-clock backstop that does
 * end a read that only ever waits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <time.h>

#include "util/clock.h"
#include "util/time_factor.h"

#include <stdlib.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void spin_cpu_ms(long ms)
{
	int64_t until = clock__thread_cpu_ns() + ms * 1000000LL;
	volatile uint64_t sink = 0;

	while (clock__thread_cpu_ns() < until)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
}

static void test_waiting_does_not_use_the_budget(void **state)
{
	/* 100 ms, and its backstop far beyond the sleep below even on a loaded machine. */
	struct clock_budget b = clock_budget__from_now(100000000);

	(void)state;
	sleep_ms(150); /* longer than the budget, waiting */
	assert_false(clock_budget__over(&b));
	assert_true(clock_budget__cpu_left(&b) > 0);
	spin_cpu_ms(110);
	assert_true(clock_budget__over(&b));
	assert_int_equal(clock_budget__cpu_left(&b), 0);
}

static void test_only_waiting_meets_the_backstop(void **state)
{
	struct clock_budget b = clock_budget__from_now(10000000); /* 10 ms */

	(void)state;
	sleep_ms(10 * CLOCK_BUDGET_WALL_FACTOR + 30);
	assert_true(clock_budget__over(&b));
}

static void test_min_and_none(void **state)
{
	struct clock_budget none = { 0, 0 }, whole = clock_budget__from_now(4000000000ULL);
	struct clock_budget part = clock_budget__from_now(1000000ULL), m;

	(void)state;
	assert_false(clock_budget__over(&none));
	m = clock_budget__min(part, whole);
	assert_true(m.cpu_ns == part.cpu_ns && m.wall_ns == part.wall_ns);
	m = clock_budget__min(none, whole);
	assert_true(m.cpu_ns == whole.cpu_ns && m.wall_ns == whole.wall_ns);
}

/* SLIDEOPS_READ_TIME_FACTOR, read once: the emulated guests' 8 stretches every bound on
 * reading binaries 8 times. */
static void test_read_time_factor(void **state)
{
	(void)state;
	setenv("SLIDEOPS_READ_TIME_FACTOR", "8", 1);
	assert_int_equal(time_factor__read(), 8);
	setenv("SLIDEOPS_READ_TIME_FACTOR", "3", 1);
	assert_int_equal(time_factor__read(), 8); /* read once, for the whole process */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waiting_does_not_use_the_budget),
		cmocka_unit_test(test_only_waiting_meets_the_backstop),
		cmocka_unit_test(test_min_and_none),
		cmocka_unit_test(test_read_time_factor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
