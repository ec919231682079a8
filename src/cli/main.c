// SPDX-License-Identifier: MIT
/*
 * slideops: one binary, subcommands as perf and git have them. This file takes the
 * global options out of argv and hands the rest to the subcommand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/guarded_read.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/messages.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct cli_env *env);
};

static const struct command commands[] = {
#define X(name, NAME) { #name, cmd_##name },
	CLI_COMMANDS(X)
#undef X
};

int main(int argc, char **argv)
{
	struct cli_env env = { .tty = isatty(STDERR_FILENO) };
	int n = 0;

	/* A capture's reader of one file on a mount that may not answer (capture/guarded_read.h),
	 * before anything else: it touches nothing of ours. */
	if (argc == 2 && strcmp(argv[1], GUARDED_READ_ARG) == 0)
		guarded_read__main();

	/* Global options may stand anywhere; what is left is the command and its own. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			env.json = true;
		} else if (strcmp(argv[i], "--data") == 0) {
			if (i + 1 >= argc) {
				msg_error(MSG_USAGE_MISSING_DATA);
				return EXIT_REFUSED;
			}
			env.data_dir = argv[++i];
		} else if (strncmp(argv[i], "--data=", 7) == 0) {
			env.data_dir = argv[i] + 7;
		} else if (strcmp(argv[i], "--store") == 0) {
			if (i + 1 >= argc) {
				msg_error(MSG_USAGE_MISSING_STORE);
				return EXIT_REFUSED;
			}
			env.store_url = argv[++i];
		} else if (strncmp(argv[i], "--store=", 8) == 0) {
			env.store_url = argv[i] + 8;
		} else {
			argv[n++] = argv[i];
		}
	}
	argv[n] = NULL;
	msg_set_json(env.json);
	if (env.data_dir && !*env.data_dir) {
		msg_error(MSG_USAGE_EMPTY_DATA);
		cli_print_json_error();
		return EXIT_REFUSED;
	}
	if (!env.store_url)
		env.store_url = getenv("SLIDEOPS_STORE");
	if (cli_use_store_url(env.store_url)) {
		cli_print_json_error();
		return EXIT_REFUSED;
	}

	if (n == 0 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0 ||
	    strcmp(argv[0], "help") == 0) {
		msg_print(MSG_HELP_MAIN);
		return n == 0 ? EXIT_REFUSED : EXIT_OK;
	}
	if (strcmp(argv[0], "--version") == 0) {
		msg_print(MSG_VERSION, SLIDEOPS_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[0], commands[i].name) == 0) {
			int rc = commands[i].run(n, argv, &env);

			if (rc != EXIT_OK)
				cli_print_json_error();
			return rc;
		}
	}
	msg_error(MSG_USAGE_UNKNOWN_COMMAND, argv[0]);
	cli_print_json_error();
	return EXIT_REFUSED;
}
