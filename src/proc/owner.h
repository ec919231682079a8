/* SPDX-License-Identifier: MIT */
/*
 * What owns a process (architecture.md), decided in order: a Service of the workspace, a
 * container, a systemd unit, a signed-in session, the System, else Other processes.
 * Labels read "Service billing", "Container redis", "Unit nginx.service",
 * "Signed-in sessions", "System", "Other processes".
 */
#ifndef SLIDEOPS_PROC_OWNER_H
#define SLIDEOPS_PROC_OWNER_H

#include <stddef.h>

#include "proc/group_kind.h"
#include "proc/proc.h"
#include "proc/service.h"

#define OWNER_NAME_MAX 256

struct owner {
	enum group_kind kind;
	char name[OWNER_NAME_MAX];       /* "billing", "nginx.service"; "" for the last three */
	char label[OWNER_NAME_MAX + 32]; /* "Service billing" */
};

struct owner_resolver;

/* proc_root: "/proc"; container_root: "/" (where /var/lib/docker etc. are read).
 * services may be NULL when n is 0; they are copied. NULL roots mean "/proc" and "/".
 * $SLIDEOPS_CONTAINER_ROOT, when set, replaces container_root (tests point it at a
 * fake runtime tree: var/lib/docker/containers/ID/config.v2.json,
 * var/lib/containers/storage/overlay-containers/containers.json, var/log/containers/). */
struct owner_resolver *owner_resolver__new(const char *proc_root, const char *container_root,
					   const struct service *services, size_t n);
void owner_resolver__free(struct owner_resolver *r);

/* Classifies p (its ancestors are read from proc_root as needed, and cached). */
void owner_resolver__classify(struct owner_resolver *r, const struct proc_info *p,
			      struct owner *out);

#endif
