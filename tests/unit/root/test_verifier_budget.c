// SPDX-License-Identifier: MIT
/*
 * The verifier's budget (docs/kernel.md): every program of every question, the full
 * walker's build and the smaller one the loader falls back to, verifies on this kernel
 * within VERIFIER_BUDGET processed instructions. The count is exact for a kernel and an
 * object, so this is a test, not a timing: a change to bpf/ that spends more fails here
 * before a user's kernel, whose verifier may track more, refuses it (a later 6.18 build
 * took the walker of the time from 337,000 to past its 1,000,000 limit). Also run in
 * each kernel of the matrix (tests/integration/verifier_budget.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture_internal.h"
#include "profile/profile.h"

/* The test's line; the rule for a change is 150,000 (bench/kernels flags past it). */
#define VERIFIER_BUDGET 250000L

struct seen {
	const char *question;
	int programs;
	long largest;
	char largest_name[64];
};

static void check_program(const char *prog, long insns, long usec, const char *refusal,
			  void *arg)
{
	struct seen *s = arg;

	printf("  %-8s %-22s %8ld insns (%4.1f%% of the limit) %8.1f ms\n", s->question, prog,
	       insns, insns / 10000.0, usec / 1000.0);
	if (refusal)
		fail_msg("%s: %s", s->question, refusal);
	assert_true(insns > 0);
	if (insns > VERIFIER_BUDGET)
		fail_msg("%s's %s took %ld instructions to verify, past the budget of %ld "
			 "(docs/kernel.md)", s->question, prog, insns, VERIFIER_BUDGET);
	s->programs++;
	if (insns > s->largest) {
		s->largest = insns;
		snprintf(s->largest_name, sizeof(s->largest_name), "%s", prog);
	}
}

static void every_question(bool reduced)
{
	capture__quiet_libbpf();
	for (int q = 0; q < QUESTION__COUNT; q++) {
		const struct capture_question *row = capture_question__get(q);
		struct seen s = { question__id(q) };
		char missing[256];

		if (!row)
			continue;
		capture__kernel_missing(q, missing, sizeof(missing));
		if (missing[0]) {
			printf("  %-8s not on this kernel: it lacks %s\n", s.question, missing);
			continue;
		}
		assert_int_equal(capture__verifier_stats(row, reduced, check_program, &s), 0);
		/* Every question has its sampling program and the exec and exit ones. */
		assert_true(s.programs >= 3);
	}
}

static void test_full_walker_within_budget(void **state)
{
	(void)state;
	every_question(false);
}

static void test_smaller_walker_within_budget(void **state)
{
	(void)state;
	every_question(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_walker_within_budget),
		cmocka_unit_test(test_smaller_walker_within_budget),
	};

	if (geteuid() != 0) {
		printf("test_verifier_budget: skipped, not root (it loads BPF programs)\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
