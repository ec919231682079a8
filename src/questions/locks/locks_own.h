/* SPDX-License-Identifier: MIT */
/*
 * The locks question's own measures of a group: what its analyse (locks.c) makes, one
 * struct locks_group a group (the group's own, all of them one block, the analysis's
 * own), and only this folder reads (its views, and tests).
 */
#ifndef SLIDEOPS_QUESTIONS_LOCKS_OWN_H
#define SLIDEOPS_QUESTIONS_LOCKS_OWN_H

#include <stdint.h>

#include "analysis/analysis.h"

struct locks_group {
	int64_t contentions; /* how many waits */
	int64_t longest;     /* the longest of them (ns) */
};

/* The measures of g, a group of a locks analysis. */
static inline const struct locks_group *locks_group__of(const struct analysis_group *g)
{
	return g->own;
}

#endif
