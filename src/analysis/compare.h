/* SPDX-License-Identifier: MIT */
/*
 * What changed between two profiles of the same question: each owner group's share
 * before and after, and the functions whose share grew and shrank the most. Shares are
 * on the groups' basis (cpu: of the server's CPU time; else of each profile's total), so
 * a function that burns twice the CPU on an otherwise idle server shows as grown.
 */
#ifndef SLIDEOPS_ANALYSIS_COMPARE_H
#define SLIDEOPS_ANALYSIS_COMPARE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

struct compare_group {
	const char *label;
	enum group_kind kind;
	double before, after;           /* shares; 0 when absent from one side */
	int64_t value_before, value_after;
};

struct compare_function {
	const char *name;
	enum language language;
	double before, after;           /* self shares, on the groups' basis */
	int64_t value_before, value_after;
};

struct comparison {
	const struct analysis *before, *after;
	struct compare_group *groups;   /* largest first (the larger of before and after) */
	size_t ngroups;
	struct compare_function *grew;  /* largest increase first */
	size_t ngrew;
	struct compare_function *shrank; /* largest decrease first */
	size_t nshrank;
	char *summary;                  /* one or two sentences */
};

/* The analyses must be of the same question (-EINVAL otherwise: errno set, NULL). Lists
 * at most max_functions functions each way. NULL with errno ENOMEM. */
struct comparison *comparison__new(const struct analysis *before, const struct analysis *after,
				   size_t max_functions);
void comparison__free(struct comparison *c);

json_t *comparison__to_json(const struct comparison *c, const char *id_before,
			    const char *id_after);
void comparison__print(const struct comparison *c, const char *id_before, const char *id_after,
		       FILE *out);

#endif
