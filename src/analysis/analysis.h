/* SPDX-License-Identifier: MIT */
/*
 * What a symbolized profile says: the owner groups and their shares, "most of it in",
 * the answer sentence (DESIGN §6), the top functions, the stripped-binary card (§7), and
 * what changed between two profiles. Never reads /proc, never touches BPF.
 */
#ifndef SLIDEOPS_ANALYSIS_H
#define SLIDEOPS_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct analysis_process {
	int32_t pid;
	const char *comm;
	int64_t value;
	double share;
};

struct analysis_group {
	const char *label;   /* "Service billing" */
	enum group_kind kind;
	const char *name;    /* "billing" */
	int64_t value;       /* in the question's main unit */
	double share;        /* cpu: of the server's CPU time; else of the profile's total */
	const char *top_function; /* "most of it in"; NULL when nothing fits */
	struct analysis_process *processes;
	size_t nprocesses;
};

struct analysis_function {
	const char *name;
	enum language language;
	double self, total;  /* shares of the profile's total */
};

struct analysis_stripped {
	const char *path;
	double share;
	const char *build_id; /* full hex; "" when the binary has none */
	bool has_build_id;
};

struct analysis {
	const struct profile *profile;
	char *answer;
	struct analysis_group *groups;   /* largest first */
	size_t ngroups;
	struct analysis_function *functions; /* largest self first */
	size_t nfunctions;
	struct analysis_stripped *stripped;  /* largest first */
	size_t nstripped;
	bool build_ids_missing;  /* captured without build ids: capture again, then upload */
};

/* p must be symbolized (profile__symbolize). NULL with errno on ENOMEM. */
struct analysis *analysis__new(const struct profile *p);
void analysis__free(struct analysis *a);

/* DESIGN §8's document (id may be NULL). */
json_t *analysis__to_json(const struct analysis *a, const char *id);

#endif
