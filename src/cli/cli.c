// SPDX-License-Identifier: MIT
/* Helpers every subcommand shares: numbers, JSON output, the store, --help. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/messages.h"
#include "views/views.h"

int cli_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
		   long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text ? text : "", &end, 10);
	if (!text || !*text || *end || errno || v < min || v > max) {
		msg_error(MSG_USAGE_BAD_NUMBER, cmd, text ? text : "", min, max, opt);
		return -1;
	}
	*out = v;
	return 0;
}

void cli_print_json(json_t *doc)
{
	if (!doc) {
		msg_error(MSG_OUT_OF_MEMORY);
		return;
	}
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	json_decref(doc);
}

struct store *cli_open_store(const struct cli_env *env)
{
	const char *dir = env->data_dir ? env->data_dir : store__default_dir();
	struct store *s = store__open(dir);

	if (!s && errno == EPROTO)
		msg_error(MSG_STORE_NEWER_WORKSPACE, dir);
	else if (!s)
		msg_error(MSG_DATA_DIR_UNUSABLE, dir, strerror(errno));
	return s;
}

const char *cli_option_value(int argc, char **argv, int *i, const char *short_opt,
			     const char *long_opt, bool *bad)
{
	size_t len = strlen(long_opt);
	const char *arg = argv[*i];

	if (strncmp(arg, long_opt, len) == 0 && arg[len] == '=')
		return arg + len + 1;
	if (strcmp(arg, long_opt) != 0 && !(short_opt && strcmp(arg, short_opt) == 0))
		return NULL;
	if (*i + 1 >= argc) {
		msg_error(MSG_USAGE_MISSING_VALUE, argv[0], arg);
		*bad = true;
		return NULL;
	}
	return argv[++*i];
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

int cli_print_view_error(const struct view_error *e)
{
	fprintf(stderr, "slideops: %s\n", e->text);
	return e->status == 400 || e->status == 413 ? EXIT_REFUSED : EXIT_FAIL;
}
