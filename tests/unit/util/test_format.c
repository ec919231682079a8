// SPDX-License-Identifier: MIT
/*
 * Numbers for people (src/util/format.c) against tests/format_cases.tsv, the one table
 * of cases the web UI's twin (web/ui/format.js) is checked against too
 * (tests/web/format.test.mjs): the CLI, the answers and the pages write a number alike.
 * Run from the top of the tree (tests/run.sh does); $SLIDEOPS_FORMAT_CASES names
 * another table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/format.h"

#define CASES_DEFAULT "tests/format_cases.tsv"

static const char *cases_path(void)
{
	const char *env = getenv("SLIDEOPS_FORMAT_CASES");

	return env && *env ? env : CASES_DEFAULT;
}

/* What the function named by the table's first column writes for input; -1 when no
 * function has that name. */
static int format_case(const char *fn, const char *input, char *buf, size_t size)
{
	double share = strtod(input, NULL);
	long long n = strtoll(input, NULL, 10);

	if (strcmp(fn, "percent") == 0)
		format_percent(share, buf, size);
	else if (strcmp(fn, "percent_tenths") == 0)
		format_percent_tenths(share, buf, size);
	else if (strcmp(fn, "points") == 0)
		format_points(share, buf, size);
	else if (strcmp(fn, "duration") == 0)
		format_duration((uint64_t)n, buf, size);
	else if (strcmp(fn, "seconds") == 0)
		format_seconds(n, buf, size);
	else if (strcmp(fn, "bytes") == 0)
		format_bytes(n, buf, size);
	else if (strncmp(fn, "value:", 6) == 0)
		format_value(n, fn + 6, buf, size);
	else
		return -1;
	return 0;
}

static void test_every_case_of_the_shared_table(void **state)
{
	char line[512], buf[FORMAT_MAX];
	int lineno = 0, cases = 0, wrong = 0;
	FILE *f = fopen(cases_path(), "r");

	(void)state;
	if (!f)
		fail_msg("cannot open %s: %s (run from the top of the tree)", cases_path(),
			 strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *fn, *input, *want, *save = NULL;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		fn = strtok_r(line, "\t", &save);
		input = strtok_r(NULL, "\t", &save);
		want = strtok_r(NULL, "\t", &save);
		if (!fn || !input || !want || strtok_r(NULL, "\t", &save)) {
			print_error("%s:%d: not three columns (function, input, written)\n",
				    cases_path(), lineno);
			wrong++;
			continue;
		}
		if (format_case(fn, input, buf, sizeof(buf)) < 0) {
			print_error("%s:%d: no function %s\n", cases_path(), lineno, fn);
			wrong++;
			continue;
		}
		cases++;
		if (strcmp(buf, want) != 0) {
			print_error("%s:%d: %s(%s) wrote \"%s\", the table says \"%s\"\n",
				    cases_path(), lineno, fn, input, buf, want);
			wrong++;
		}
	}
	fclose(f);
	assert_int_equal(wrong, 0);
	/* A table cut short would pass with nothing checked. */
	assert_true(cases >= 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_case_of_the_shared_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
