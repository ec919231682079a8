// SPDX-License-Identifier: MIT
/*
 * What the analysis tests share: the processes of their hand-made servers, a sample of
 * one with its labels (add_full), and finding a group or a function of an analysis by
 * its name (failing the test when it is not there). Include after <cmocka.h>.
 */
#ifndef SLIDEOPS_TESTS_ANALYSIS_FIXTURES_H
#define SLIDEOPS_TESTS_ANALYSIS_FIXTURES_H

#include <string.h>

#include "analysis/analysis.h"
#include "profile_builder.h"

static const struct pb_who gunicorn = { "Service billing", GROUP_SERVICE, 4242, "gunicorn" };
static const struct pb_who gunicorn2 = { "Service billing", GROUP_SERVICE, 4243, "gunicorn" };
static const struct pb_who worker = { "Service billing", GROUP_SERVICE, 4300, "billing-worker" };
static const struct pb_who nginx = { "Unit nginx.service", GROUP_UNIT, 800, "nginx" };
static const struct pb_who kworker = { "System", GROUP_SYSTEM, 50, "kworker/0:1" };
static const struct pb_who cron = { "Other processes", GROUP_OTHER, 900, "cron" };

/* A sample of who (thread tid) waiting in wait_leaf called from caller, in state (NULL:
 * none) on a lock of lock_kind (NULL: none). */
static inline void add_full(struct profile *p, const struct pb_who *who, int tid, const int64_t *values,
		     const char *state, const char *lock_kind, uint32_t wait_leaf, uint32_t caller)
{
	uint32_t locs[2] = { wait_leaf, caller };
	struct prof_labels l = {
		.pid = who->pid, .tid = tid,
		.comm = profile__intern(p, who->comm),
		.group = profile__intern(p, who->group), .group_kind = who->kind,
		.state = profile__intern(p, state ? state : ""),
		.lock_kind = profile__intern(p, lock_kind ? lock_kind : ""),
	};
	uint32_t stack = profile__add_stack(p, locs, 2);

	assert_int_not_equal(stack, UINT32_MAX);
	assert_int_equal(profile__add_sample(p, stack, values, &l), 0);
}

static inline const struct analysis_group *find_group(const struct analysis *a, const char *label)
{
	for (size_t i = 0; i < a->ngroups; i++)
		if (strcmp(a->groups[i].label, label) == 0)
			return &a->groups[i];
	fail_msg("no group %s", label);
	return NULL;
}

static inline const struct analysis_function *find_function(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nfunctions; i++)
		if (strcmp(a->functions[i].name, name) == 0)
			return &a->functions[i];
	fail_msg("no function %s", name);
	return NULL;
}

#endif
