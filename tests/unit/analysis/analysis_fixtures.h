// SPDX-License-Identifier: MIT
/*
 * What the analysis tests share: the processes of their hand-made servers, and finding
 * a group or a function of an analysis by its name (failing the test when it is not
 * there). Include after <cmocka.h>.
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
