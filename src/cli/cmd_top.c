// SPDX-License-Identifier: MIT
/*
 * slideops top [-n N]: the busiest processes now, as ps figures them (CPU time since
 * the process started over the time since it started), each with its owner group.
 * Reads /proc once; only the processes shown are classified.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/format.h"
#include "util/json_text.h"
#include "cli/cli.h"
#include "proc/owner.h"
#include "proc/proc.h"
#include "store/store.h"
#include "util/messages.h"
#include "views/views.h"

#define TOP_DEFAULT 10
#define TOP_MAX 100000

/* The workspace's Services, so they win over the other groups. A workspace that
 * cannot be read costs the Service groups, not the listing: said, then carried on. */
static void load_services(const struct cli_env *env, struct service **svc, size_t *n)
{
	const char *dir = env->data_dir ? env->data_dir : store__default_dir();
	const char *where = store__url() ? store__url() : dir;
	struct store *s;
	int err;

	*svc = NULL;
	*n = 0;
	s = store__open_read(dir);
	if (!s) {
		msg_error(MSG_TOP_NO_SERVICES, where, strerror(errno));
		return;
	}
	err = store__list_services(s, svc, n);
	if (err) {
		msg_error(MSG_TOP_NO_SERVICES, where, strerror(-err));
		*svc = NULL;
		*n = 0;
	}
	store__close(s);
}

static int print_rows(const struct top_row *rows, size_t n, const struct cli_env *env)
{
	if (env->json) {
		return cli_print_json(views__top(rows, n)) ? EXIT_FAIL : EXIT_OK;
	}
	msg_print(n ? MSG_TOP_HEADER : MSG_TOP_NONE);
	for (size_t i = 0; i < n; i++) {
		char pct[FORMAT_MAX];

		/* "96%", "<1%": whole percents, as the answers write them. */
		format_percent(rows[i].cpu_percent / 100, pct, sizeof(pct));
		msg_print(MSG_TOP_LINE, rows[i].pid, rows[i].comm, pct, rows[i].group);
	}
	return EXIT_OK;
}

int cmd_top(int argc, char **argv, const struct cli_env *env)
{
	struct top_row *rows;
	struct service *svc;
	size_t nrows, nsvc;
	long limit = TOP_DEFAULT;
	int err, ret;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_TOP);
		return EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0) {
			if (i + 1 >= argc) {
				msg_error(MSG_USAGE_MISSING_VALUE, "top", "-n");
				return EXIT_REFUSED;
			}
			if (cli_parse_long("top", "-n", argv[++i], 1, TOP_MAX, &limit))
				return EXIT_REFUSED;
		} else if (strncmp(argv[i], "-n", 2) == 0 && argv[i][2]) {
			if (cli_parse_long("top", "-n", argv[i] + 2, 1, TOP_MAX, &limit))
				return EXIT_REFUSED;
		} else if (argv[i][0] == '-') {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "top", argv[i], "top");
			return EXIT_REFUSED;
		} else {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "top", argv[i]);
			return EXIT_REFUSED;
		}
	}

	load_services(env, &svc, &nsvc);
	err = views__top_read(svc, nsvc, (size_t)limit, &rows, &nrows);
	services__free(svc, nsvc);
	if (err == -ENOMEM) {
		msg_error(MSG_OUT_OF_MEMORY);
		return EXIT_FAIL;
	}
	if (err) {
		msg_error(MSG_PROC_UNREADABLE, "/proc", strerror(-err));
		return EXIT_FAIL;
	}
	ret = print_rows(rows, nrows, env);
	free(rows);
	return ret;
}
