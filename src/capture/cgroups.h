/* SPDX-License-Identifier: MIT */
/*
 * Cgroup v2 ids back to paths. The kernel names a task's cgroup by id (the inode number
 * of its directory on the cgroup2 mount); the owner rules need the path, as the "0::"
 * line of /proc/PID/cgroup gives it. Used only for processes that exited before /proc
 * could be read, so the tree is walked when an id is first missed, not before.
 */
#ifndef SLIDEOPS_CAPTURE_CGROUPS_H
#define SLIDEOPS_CAPTURE_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

struct cgroups;

/* mount: the cgroup2 mount point, or NULL to find it in /proc/self/mountinfo. */
struct cgroups *cgroups__new(const char *mount);
void cgroups__free(struct cgroups *c);

/* The path of cgroup id ("/system.slice/nginx.service", "/" for the root) into buf.
 * 0, or -ENOENT when no cgroup has that id (any more). */
int cgroups__path(struct cgroups *c, uint64_t id, char *buf, size_t size);

#endif
