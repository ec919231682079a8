/* SPDX-License-Identifier: MIT */
/* The set of a capture's binaries, shared by binaries.c (finding them) and
 * binaries_read.c (reading them after sampling). Private to those two. */
#ifndef SLIDEOPS_CAPTURE_BINARIES_INTERNAL_H
#define SLIDEOPS_CAPTURE_BINARIES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/mounts.h"

struct binary;
struct hashmap;

struct binaries {
	struct binary **items;
	uint32_t n, cap;
	struct hashmap *index; /* (dev, ino) -> item */
	struct binary *vdso;
	bool vdso_tried;
	/* The mounts of the devices met (ours, then those of the processes' namespaces),
	 * read when the first binary is met; devices no mount table names. */
	struct mounts mounts;
	bool mounts_read;
	/* The type of a mount that may hang on the way to DEBUG_FILES_ROOT (in our own
	 * table), "" when none is: the debug files installed there are not read then
	 * (binaries__debug_root). */
	char debug_root_hang[64];
	dev_t *unlisted;
	uint32_t nunlisted, cap_unlisted;
};

/* Where the installed debug files are read from: DEBUG_FILES_ROOT, or NULL when a mount
 * that may hang is on the way to it (a lookup there is not guarded: it is not made). */
const char *binaries__debug_root(struct binaries *b);

#endif
