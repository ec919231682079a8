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
	dev_t *unlisted;
	uint32_t nunlisted, cap_unlisted;
};

#endif
