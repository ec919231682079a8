/* SPDX-License-Identifier: MIT */
/*
 * Which waits are lock waits (the locks question answers about locks only): a futex
 * wait is a mutex's, a condition variable's, a join's, an idle pool's or a plain
 * sleep's, which only the waiting stack tells. Kernel lock contention is always a lock.
 */
#ifndef SLIDEOPS_ANALYSIS_WAITS_H
#define SLIDEOPS_ANALYSIS_WAITS_H

#include <stdbool.h>

#include "profile/profile.h"

/* s is a wait on a lock. p must be symbolized. */
bool wait__is_lock(const struct profile *p, const struct prof_sample *s);

/* s is what p's question is about, so it counts in the answer, groups, functions, flame
 * graph and folded export: as the question's sample_counts says (questions/question.h;
 * every sample when it has none). The profile and its pprof export keep every sample. */
bool sample__counts(const struct profile *p, const struct prof_sample *s);

#endif
