/* SPDX-License-Identifier: MIT */
/*
 * What owns a process, by kind: the first row of every profile (docs/architecture.md,
 * "Owners"). The owner rules (owner.c) decide it; the profile keeps it per sample and
 * group. Below both, as elf/language.h is for languages.
 */
#ifndef SLIDEOPS_PROC_GROUP_KIND_H
#define SLIDEOPS_PROC_GROUP_KIND_H

enum group_kind {
	GROUP_SERVICE,
	GROUP_CONTAINER,
	GROUP_UNIT,
	GROUP_SESSION,
	GROUP_SYSTEM,
	GROUP_OTHER,
	GROUP_KIND__COUNT,
};

const char *group_kind__name(enum group_kind k); /* "service", "container", ... */
int group_kind__parse(const char *name);         /* -1 for an unknown name */

#endif
