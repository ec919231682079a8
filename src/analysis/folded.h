/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks, the FlameGraph convention (`--export folded FILE`): one line per distinct
 * stack, root first, `GROUP;COMM;FRAME;...;LEAF VALUE`. GROUP is the owner label
 * ("Unit nginx.service"); VALUE is samples for cpu, the question's main unit otherwise.
 */
#ifndef SLIDEOPS_ANALYSIS_FOLDED_H
#define SLIDEOPS_ANALYSIS_FOLDED_H

#include <stdio.h>

struct profile;

/* p must be symbolized. 0 or -errno. */
int folded__write(const struct profile *p, FILE *out);
/* Written beside path and renamed into place: a reader never sees half a file.
 * "-" is standard output. */
int folded__write_file(const struct profile *p, const char *path);

#endif
