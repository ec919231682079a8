/* SPDX-License-Identifier: MIT */
/*
 * The threads question's own measures: what its analyse (threads.c) makes, its sets of
 * threads and one struct threads_group a group (the group's own), all one block (the
 * analysis's own, struct threads_own), and only this folder reads (its views, and
 * tests).
 */
#ifndef SLIDEOPS_QUESTIONS_THREADS_OWN_H
#define SLIDEOPS_QUESTIONS_THREADS_OWN_H

#include <stdint.h>

#include "analysis/analysis.h"

struct threads_group {
	int64_t running, waiting; /* how many of its threads run, and wait */
};

/* Threads of one group in the same state and place, with the same stack. */
struct threads_set {
	int64_t threads;
	const char *state;  /* "running", "waiting" */
	const char *wait;   /* what they wait in; "" when not known */
	const char *group;  /* the group's label */
	uint32_t stack;     /* index into the profile's stacks */
};

struct threads_own {
	struct threads_set *sets; /* largest first; in this block, after the groups */
	size_t nsets;
	struct threads_group groups[]; /* as the samples met them: the groups' own */
};

/* A threads analysis's own. */
static inline const struct threads_own *threads_own__of(const struct analysis *a)
{
	return a->own;
}

/* The measures of g, a group of a threads analysis. */
static inline const struct threads_group *threads_group__of(const struct analysis_group *g)
{
	return g->own;
}

#endif
