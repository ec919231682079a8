// SPDX-License-Identifier: MIT
/*
 * The busiest processes now, as ps figures them (CPU time since the process started over
 * the time since it started), each with its owner group. Reads /proc once; only the
 * processes shown are classified.
 */
#include "views/views.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/json_text.h"
#include "proc/owner.h"
#include "proc/proc.h"

struct top_proc {
	struct proc_info *info;
	double cpu_percent;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct top_proc *x = a, *y = b;

	if (x->cpu_percent != y->cpu_percent)
		return x->cpu_percent < y->cpu_percent ? 1 : -1;
	if (x->info->cpu_ticks != y->info->cpu_ticks)
		return x->info->cpu_ticks < y->info->cpu_ticks ? 1 : -1;
	return x->info->pid - y->info->pid;
}

/* Every process, busiest first. */
static int read_procs(struct top_proc **out, size_t *nout)
{
	double uptime;
	long hz = sysconf(_SC_CLK_TCK);
	struct top_proc *procs;
	size_t npids, n = 0;
	int *pids, err;

	err = proc__uptime("/proc", &uptime);
	if (err)
		return err;
	err = proc__list_pids("/proc", &pids, &npids);
	if (err)
		return err;
	procs = calloc(npids ? npids : 1, sizeof(*procs));
	if (!procs) {
		free(pids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < npids; i++) {
		struct proc_info *p = malloc(sizeof(*p));

		if (!p) {
			for (size_t k = 0; k < n; k++)
				free(procs[k].info);
			free(procs);
			free(pids);
			return -ENOMEM;
		}
		/* Gone since the listing: not busy any more. */
		if (proc__read("/proc", pids[i], p)) {
			free(p);
			continue;
		}
		procs[n].info = p;
		procs[n].cpu_percent = proc__cpu_percent(p, uptime, hz);
		n++;
	}
	free(pids);
	qsort(procs, n, sizeof(*procs), proc_cmp);
	*out = procs;
	*nout = n;
	return 0;
}

int views__top_read(const struct service *svc, size_t nsvc, size_t limit,
		    struct top_row **rows_out, size_t *n_out)
{
	struct owner_resolver *owners;
	struct top_proc *procs;
	struct top_row *rows;
	size_t nprocs, n;
	int err;

	err = read_procs(&procs, &nprocs);
	if (err)
		return err;
	n = nprocs < limit ? nprocs : limit;
	rows = calloc(n ? n : 1, sizeof(*rows));
	owners = owner_resolver__new("/proc", "/", svc, nsvc);
	if (!rows || !owners) {
		err = -ENOMEM;
		free(rows);
		goto out_free;
	}
	for (size_t i = 0; i < n; i++) {
		struct owner owner;

		owner_resolver__classify(owners, procs[i].info, &owner);
		rows[i].pid = procs[i].info->pid;
		snprintf(rows[i].comm, sizeof(rows[i].comm), "%s", procs[i].info->comm);
		rows[i].cpu_percent = procs[i].cpu_percent;
		snprintf(rows[i].group, sizeof(rows[i].group), "%s", owner.label);
	}
	*rows_out = rows;
	*n_out = n;
out_free:
	owner_resolver__free(owners);
	for (size_t i = 0; i < nprocs; i++)
		free(procs[i].info);
	free(procs);
	return err;
}

json_t *views__top(const struct top_row *rows, size_t n)
{
	json_t *list = json_array();

	for (size_t i = 0; list && i < n; i++) {
		/* One decimal, as ps prints it. */
		json_t *o = json_pack("{s:i, s:o, s:f, s:o}", "pid", rows[i].pid, "comm",
				      json_text(rows[i].comm), "cpu_percent",
				      round(rows[i].cpu_percent * 10) / 10, "group",
				      json_text(rows[i].group));

		if (!o || json_array_append_new(list, o)) {
			json_decref(list);
			list = NULL;
		}
	}
	return list ? json_pack("{s:o}", "processes", list) : NULL;
}
