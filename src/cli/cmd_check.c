// SPDX-License-Identifier: MIT
/*
 * slideops check: can this server be profiled? Each requirement with what was found and
 * what to do, then each question. Exits 0 when the cpu question can run here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "cli/cli.h"
#include "util/messages.h"
#include "views/views.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static void print_line(enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	vprintf(msg_text(id), ap);
	va_end(ap);
	putchar('\n');
}

static void print_text(const struct check_result *r)
{
	enum question primary = question__primary();

	if (r->questions[primary])
		print_line(MSG_CHECK_HEADER_OK, question__id(primary), question__title(primary));
	else
		print_line(MSG_CHECK_HEADER_NOT_OK);
	putchar('\n');
	for (unsigned i = 0; i < r->nrequirements; i++) {
		const struct requirement *req = &r->requirements[i];

		print_line(MSG_CHECK_REQUIREMENT_ROW,
			   msg_text(req->ok ? MSG_CHECK_WORD_OK : MSG_CHECK_WORD_MISSING), req->name,
			   req->detail);
	}
	putchar('\n');
	print_line(MSG_CHECK_QUESTIONS_HEADER);
	for (int q = 0; q < QUESTION__COUNT; q++)
		print_line(MSG_CHECK_QUESTION_ROW,
			   msg_text(r->questions[q] ? MSG_CHECK_WORD_YES : MSG_CHECK_WORD_NO),
			   question__id(q), question__title(q), r->question_details[q]);
}

int cmd_check(int argc, char **argv, const struct cli_env *env)
{
	struct check_result r;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_CHECK);
		return EXIT_OK;
	}
	if (argc > 1) {
		if (argv[1][0] == '-')
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "check", argv[1], "check");
		else
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "check", argv[1]);
		return EXIT_REFUSED;
	}
	capture__check(&r);
	if (env->json) {
		if (cli_print_json(views__check(&r)))
			return EXIT_FAIL;
	} else {
		print_text(&r);
	}
	/* A server can be profiled when its primary question (the table's) can run on it. */
	return r.questions[question__primary()] ? EXIT_OK : EXIT_FAIL;
}
