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

#include "analysis/format.h"
#include "analysis/json_text.h"
#include "cli/cli.h"
#include "proc/owner.h"
#include "proc/proc.h"
#include "store/store.h"
#include "util/messages.h"

#define TOP_DEFAULT 10
#define TOP_MAX 100000

struct top_row {
	struct proc_info *info;
	double cpu_percent;
};

static int row_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->cpu_percent != y->cpu_percent)
		return x->cpu_percent < y->cpu_percent ? 1 : -1;
	if (x->info->cpu_ticks != y->info->cpu_ticks)
		return x->info->cpu_ticks < y->info->cpu_ticks ? 1 : -1;
	return x->info->pid - y->info->pid;
}

/* The workspace's Services, so they win over the other groups. A workspace that
 * cannot be read costs the Service groups, not the listing: said, then carried on. */
static void load_services(const struct cli_env *env, struct service **svc, size_t *n)
{
	const char *dir = env->data_dir ? env->data_dir : store__default_dir();
	struct store *s;
	int err;

	*svc = NULL;
	*n = 0;
	s = store__open_read(dir);
	if (!s) {
		msg_error(MSG_TOP_NO_SERVICES, dir, strerror(errno));
		return;
	}
	err = store__list_services(s, svc, n);
	if (err) {
		msg_error(MSG_TOP_NO_SERVICES, dir, strerror(-err));
		*svc = NULL;
		*n = 0;
	}
	store__close(s);
}

/* Reads every process; rows are sorted busiest first. */
static int read_rows(struct top_row **rows_out, size_t *nrows_out)
{
	double uptime;
	long hz = sysconf(_SC_CLK_TCK);
	struct top_row *rows = NULL;
	size_t npids, nrows = 0;
	int *pids, err;

	err = proc__uptime("/proc", &uptime);
	if (err)
		return err;
	err = proc__list_pids("/proc", &pids, &npids);
	if (err)
		return err;
	rows = calloc(npids ? npids : 1, sizeof(*rows));
	if (!rows) {
		err = -ENOMEM;
		goto out_pids;
	}
	for (size_t i = 0; i < npids; i++) {
		struct proc_info *p = malloc(sizeof(*p));

		if (!p) {
			err = -ENOMEM;
			goto out_rows;
		}
		/* Gone since the listing: not busy any more. */
		if (proc__read("/proc", pids[i], p)) {
			free(p);
			continue;
		}
		rows[nrows].info = p;
		rows[nrows].cpu_percent = proc__cpu_percent(p, uptime, hz);
		nrows++;
	}
	qsort(rows, nrows, sizeof(*rows), row_cmp);
	free(pids);
	*rows_out = rows;
	*nrows_out = nrows;
	return 0;

out_rows:
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].info);
	free(rows);
out_pids:
	free(pids);
	return err;
}

static int print_rows(const struct top_row *rows, size_t n, struct owner_resolver *owners,
		      const struct cli_env *env)
{
	json_t *doc = NULL, *list = NULL;
	struct owner owner;

	if (env->json) {
		doc = json_object();
		list = json_array();
		if (!doc || !list || json_object_set_new(doc, "processes", list)) {
			json_decref(doc);
			json_decref(list);
			msg_error(MSG_OUT_OF_MEMORY);
			return EXIT_FAIL;
		}
	} else if (n) {
		msg_print(MSG_TOP_HEADER);
	} else {
		msg_print(MSG_TOP_NONE);
	}
	for (size_t i = 0; i < n; i++) {
		const struct proc_info *p = rows[i].info;
		char pct[FORMAT_MAX];

		owner_resolver__classify(owners, p, &owner);
		if (!env->json) {
			/* "96%", "<1%": whole percents, as the answers write them. */
			format_percent(rows[i].cpu_percent / 100, pct, sizeof(pct));
			msg_print(MSG_TOP_LINE, p->pid, p->comm, pct, owner.label);
			continue;
		}
		/* One decimal, as ps prints it. */
		if (json_array_append_new(
			    list, json_pack("{s:i, s:o, s:f, s:o}", "pid", p->pid, "comm",
					    json_text(p->comm), "cpu_percent",
					    round(rows[i].cpu_percent * 10) / 10, "group",
					    json_text(owner.label)))) {
			json_decref(doc);
			msg_error(MSG_OUT_OF_MEMORY);
			return EXIT_FAIL;
		}
	}
	if (env->json && cli_print_json(doc))
		return EXIT_FAIL;
	return EXIT_OK;
}

int cmd_top(int argc, char **argv, const struct cli_env *env)
{
	struct owner_resolver *owners;
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

	err = read_rows(&rows, &nrows);
	if (err) {
		msg_error(MSG_PROC_UNREADABLE, "/proc", strerror(-err));
		return EXIT_FAIL;
	}
	load_services(env, &svc, &nsvc);
	owners = owner_resolver__new("/proc", "/", svc, nsvc);
	if (!owners) {
		msg_error(MSG_OUT_OF_MEMORY);
		ret = EXIT_FAIL;
		goto out_free;
	}
	ret = print_rows(rows, nrows < (size_t)limit ? nrows : (size_t)limit, owners, env);
	owner_resolver__free(owners);
out_free:
	services__free(svc, nsvc);
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].info);
	free(rows);
	return ret;
}
