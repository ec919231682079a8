// SPDX-License-Identifier: MIT
/*
 * The agent's installed profiler (installed.h): the resident profiler of this machine
 * (capture/profiler.h), kept for the agent's whole life, its files in DATA/profiler.
 */
#include "agent/installed.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/profiler.h"
#include "pipeline/pipeline.h"
#include "util/json_text.h"
#include "util/remove_tree.h"

struct agent_profiler {
	char data[PATH_MAX];
	struct profiler *profiler;
};

struct agent_profiler *agent_profiler__open(const char *data)
{
	struct agent_profiler *ap = calloc(1, sizeof(*ap));
	char dir[PATH_MAX];

	if (!ap)
		return NULL;
	if ((size_t)snprintf(ap->data, sizeof(ap->data), "%s", data) >= sizeof(ap->data) ||
	    (size_t)snprintf(dir, sizeof(dir), "%s/profiler", data) >= sizeof(dir)) {
		free(ap);
		errno = ENAMETOOLONG;
		return NULL;
	}
	ap->profiler = profiler__new(dir);
	if (!ap->profiler) {
		int err = errno;

		free(ap);
		errno = err;
		return NULL;
	}
	return ap;
}

void agent_profiler__close(struct agent_profiler *ap)
{
	if (!ap)
		return;
	profiler__free(ap->profiler);
	free(ap);
}

void agent_profiler__options(struct agent_profiler *ap, struct pipeline_options *opts)
{
	opts->profiler = ap->profiler;
}

bool agent_profiler__installed(struct agent_profiler *ap)
{
	return profiler__installed(ap->profiler);
}

bool agent_profiler__will_install(struct agent_profiler *ap, enum question q)
{
	return profiler__will_install(ap->profiler, q);
}

void agent_profiler__used(struct agent_profiler *ap)
{
	(void)ap; /* the profiler knows what it loaded */
}

int agent_profiler__remove(struct agent_profiler *ap, json_t **doc)
{
	struct remove_report rep = { 0 };
	int err = profiler__remove(ap->profiler, &rep);

	*doc = NULL;
	if (rep.removed && rep.failed)
		*doc = json_pack("{s:O, s:O, s:o}", "removed", rep.removed, "failed", rep.failed,
				 "kept", json_text(ap->data));
	remove_report__release(&rep);
	if (!*doc && !err)
		err = -ENOMEM;
	return err;
}
