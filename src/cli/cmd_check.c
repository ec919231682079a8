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

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static void print_line(enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	vprintf(msg_text(id), ap);
	va_end(ap);
	putchar('\n');
}

static int print_json(const struct check_result *r)
{
	json_t *doc = json_object(), *reqs = json_array(), *qs = json_object(),
	       *kernel = json_object(), *details = json_object();

	if (!doc || !reqs || !qs || !kernel || !details)
		goto out_nomem;
	for (unsigned i = 0; i < r->nrequirements; i++) {
		const struct requirement *req = &r->requirements[i];
		json_t *o = json_pack("{s:s, s:b, s:s}", "name", req->name, "ok", req->ok,
				      "detail", req->detail);

		if (!o || json_array_append_new(reqs, o))
			goto out_nomem;
	}
	for (int q = 0; q < QUESTION__COUNT; q++) {
		const char *id = question__id(q);

		if (json_object_set_new(qs, id, json_boolean(r->questions[q])) ||
		    json_object_set_new(kernel, id, json_boolean(r->kernel_supports[q])) ||
		    json_object_set_new(details, id, json_string(r->question_details[q])))
			goto out_nomem;
	}
	if (json_object_set_new(doc, "can_profile", json_boolean(r->questions[QUESTION_CPU])) ||
	    json_object_set_new(doc, "requirements", reqs) ||
	    json_object_set_new(doc, "questions", qs) ||
	    json_object_set_new(doc, "kernel_supports", kernel) ||
	    json_object_set_new(doc, "question_details", details))
		goto out_nomem_doc;
	return cli_print_json(doc);

out_nomem:
	json_decref(reqs);
	json_decref(qs);
	json_decref(kernel);
	json_decref(details);
out_nomem_doc:
	json_decref(doc);
	msg_error(MSG_OUT_OF_MEMORY);
	return -1;
}

static void print_text(const struct check_result *r)
{
	print_line(r->questions[QUESTION_CPU] ? MSG_CHECK_HEADER_OK : MSG_CHECK_HEADER_NOT_OK);
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
		if (print_json(&r))
			return EXIT_FAIL;
	} else {
		print_text(&r);
	}
	return r.questions[QUESTION_CPU] ? EXIT_OK : EXIT_FAIL;
}
