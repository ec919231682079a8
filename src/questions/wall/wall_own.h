/* SPDX-License-Identifier: MIT */
/*
 * The wall question's own measures: what its analyse (wall.c) makes, one struct
 * wall_group a group (the group's own) after the analysis's totals, all one block (the
 * analysis's own, struct wall_own), and only this folder reads (its answer and views,
 * and tests).
 */
#ifndef SLIDEOPS_QUESTIONS_WALL_OWN_H
#define SLIDEOPS_QUESTIONS_WALL_OWN_H

#include <stdint.h>

#include "analysis/analysis.h"
#include "profile/profile.h"

struct wall_group {
	int64_t running, waiting; /* ns */
	/* The waiting split by why (profile_wait_reasons' order, profile.h); waiting
	 * without a reason (profiles from before reasons) is in none of them. */
	int64_t waiting_by_reason[PROFILE_WAIT_REASONS];
};

struct wall_own {
	/* The waiting of every counted sample by why (as a group's). */
	int64_t waiting_by_reason[PROFILE_WAIT_REASONS];
	struct wall_group groups[]; /* as the samples met them: the groups' own */
};

/* The measures of g, a group of a wall analysis. */
static inline const struct wall_group *wall_group__of(const struct analysis_group *g)
{
	return g->own;
}

/* A wall analysis's waiting by why, all groups together. */
static inline const int64_t *wall_own__waiting_by_reason(const struct analysis *a)
{
	return ((const struct wall_own *)a->own)->waiting_by_reason;
}

#endif
