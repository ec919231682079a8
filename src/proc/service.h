/* SPDX-License-Identifier: MIT */
/*
 * A Service of the workspace, as declared (`slideops services add`): the workspace store
 * keeps it, the owner rules (owner.h) group the processes it matches as "Service NAME".
 * Plain data, below both.
 */
#ifndef SLIDEOPS_PROC_SERVICE_H
#define SLIDEOPS_PROC_SERVICE_H

#include <stddef.h>

enum service_match {
	SERVICE_BY_UNIT,
	SERVICE_BY_CONTAINER,
	SERVICE_BY_EXE,
};

struct service {
	char *name;
	enum service_match match;
	char *value; /* unit name, container name, or executable path */
};

void services__free(struct service *svc, size_t n);

#endif
