/* SPDX-License-Identifier: MIT */
/*
 * The threads question's own measures of a group: what its analyse (threads.c) makes, one
 * struct threads_group a group (the group's own, all of them one block, the analysis's
 * own), and only this folder reads (its views, and tests).
 */
#ifndef SLIDEOPS_QUESTIONS_THREADS_OWN_H
#define SLIDEOPS_QUESTIONS_THREADS_OWN_H

#include <stdint.h>

#include "analysis/analysis.h"

struct threads_group {
	int64_t running, waiting; /* how many of its threads run, and wait */
};

/* The measures of g, a group of a threads analysis. */
static inline const struct threads_group *threads_group__of(const struct analysis_group *g)
{
	return g->own;
}

#endif
