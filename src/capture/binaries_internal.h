/* SPDX-License-Identifier: MIT */
/* The set of a capture's binaries, shared by binaries.c (finding them) and
 * binaries_read.c (reading them after sampling). Private to those two. */
#ifndef SLIDEOPS_CAPTURE_BINARIES_INTERNAL_H
#define SLIDEOPS_CAPTURE_BINARIES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

struct binary;
struct hashmap;

struct binaries {
	struct binary **items;
	uint32_t n, cap;
	struct hashmap *index; /* (dev, ino) -> item */
	struct binary *vdso;
	bool vdso_tried;
};

#endif
