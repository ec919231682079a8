/* SPDX-License-Identifier: MIT */
/*
 * The memory question's own measures of a group: what its analyse (memory.c) makes, one
 * struct memory_group a group (the group's own, all of them one block, the analysis's
 * own), and only this folder reads (its answer and views, and tests).
 */
#ifndef SLIDEOPS_QUESTIONS_MEMORY_OWN_H
#define SLIDEOPS_QUESTIONS_MEMORY_OWN_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* A group's resident memory when the capture started and its change by the end,
 * anonymous and shared (rss) and file-backed apart, and its processes that started and
 * exited meanwhile, from its owner's in the profile's header (memory_owners.h). */
struct memory_growth {
	int64_t rss_start, rss_grown, file_start, file_grown;
	int64_t processes_started, processes_exited;
};

struct memory_group {
	/* By the stacks: the net change (freed memory counts against it) and the
	 * file-backed growth, apart from the group's value (what grew). */
	int64_t net_bytes, file_bytes;
	/* Its owner's growth; false when not read (an older capture, or an owner
	 * unchanged that no sample named). */
	bool has_growth;
	struct memory_growth growth;
};

/* The measures of g, a group of a memory analysis. */
static inline const struct memory_group *memory_group__of(const struct analysis_group *g)
{
	return g->own;
}

/* g's owner's growth; NULL when not read. */
static inline const struct memory_growth *memory_group__growth(const struct analysis_group *g)
{
	const struct memory_group *m = g->own;

	return m && m->has_growth ? &m->growth : NULL;
}

#endif
