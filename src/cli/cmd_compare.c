// SPDX-License-Identifier: MIT
/*
 * slideops compare ID_A ID_B: what changed between two profiles of the same question,
 * both read with the names known now. Profiles of different questions weigh different
 * things (CPU time against bytes grown) and are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "cli/cli.h"
#include "cli/cmd_show.h"
#include "profile/profile.h"
#include "store/store.h"
#include "util/messages.h"

#define TOP_DEFAULT 10
#define TOP_MAX 100000

static int compare__parse(int argc, char **argv, const char *ids[2], long *top)
{
	int nids = 0;

	*top = TOP_DEFAULT;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--top") == 0 || strncmp(argv[i], "--top=", 6) == 0) {
			const char *v = argv[i][5] == '=' ? argv[i] + 6 : NULL;

			if (!v && i + 1 >= argc) {
				msg_error(MSG_USAGE_MISSING_VALUE, argv[0], "--top");
				return -1;
			}
			if (cli_parse_long(argv[0], "--top", v ? v : argv[++i], 0, TOP_MAX, top))
				return -1;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, argv[0], argv[i], argv[0]);
			return -1;
		} else if (nids < 2) {
			ids[nids++] = argv[i];
		} else {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, argv[0], argv[i]);
			return -1;
		}
	}
	if (nids == 1) {
		msg_error(MSG_COMPARE_ONE_ID, argv[0], ids[0]);
		return -1;
	}
	if (nids < 2) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, argv[0], msg_text(MSG_COMPARE_ARGUMENT_IDS),
			  argv[0]);
		return -1;
	}
	return 0;
}

int cmd_compare(int argc, char **argv, const struct cli_env *env)
{
	struct profile *p[2] = { NULL, NULL };
	struct analysis *a[2] = { NULL, NULL };
	struct comparison *c = NULL;
	const char *ids[2];
	struct store *s;
	long top;
	int rc = EXIT_FAIL;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_COMPARE_HELP);
		return EXIT_OK;
	}
	if (compare__parse(argc, argv, ids, &top))
		return EXIT_REFUSED;
	s = cli_open_store_read(env);
	if (!s)
		return EXIT_FAIL;
	for (int i = 0; i < 2; i++)
		if (show__load(s, ids[i], &p[i], &a[i]))
			goto out_free;
	if (p[0]->header.question != p[1]->header.question) {
		msg_error(MSG_COMPARE_DIFFERENT_QUESTIONS, ids[0],
			  question__id(p[0]->header.question), ids[1],
			  question__id(p[1]->header.question));
		rc = EXIT_REFUSED;
		goto out_free;
	}
	c = comparison__new(a[0], a[1], (size_t)top);
	if (!c) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_free;
	}
	if (env->json) {
		json_t *doc = comparison__to_json(c, ids[0], ids[1]);

		rc = cli_print_json(doc) ? EXIT_FAIL : EXIT_OK;
	} else {
		comparison__print(c, ids[0], ids[1], stdout);
		rc = EXIT_OK;
	}

out_free:
	comparison__free(c);
	for (int i = 0; i < 2; i++) {
		analysis__free(a[i]);
		profile__free(p[i]);
	}
	store__close(s);
	return rc;
}
