/* SPDX-License-Identifier: MIT */
/*
 * A question the product answers ("What is using the CPU"), as one plug-in: everything
 * that differs from one question to another, in one description. The layers below
 * (profile, capture, analysis, views) know no particular question: they look a question
 * up in the one table (questions.c) and call through its description. Each question is
 * one folder of this directory (cpu/, wall/, ...): its BPF program NAME.bpf.c and its
 * records, its plug-in NAME.c, and what else is its own alone: its data in a profile's
 * header (the header hooks below) and its measures in an analysis (NAME_own.h: a struct
 * a group, each group's and the analysis's own of analysis.h, made by analyse below).
 * Nothing outside its folder reads them: its answer and views do.
 *
 * Adding a question: its folder, with a C file defining a struct question_plugin, and one
 * row in questions.def (docs/architecture.md, "Adding a question").
 */
#ifndef SLIDEOPS_QUESTIONS_QUESTION_H
#define SLIDEOPS_QUESTIONS_QUESTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The questions' ids: indexes into the table, kept in profiles' headers in memory (the
 * store and pprof keep the id string), one of each row of questions.def (QUESTION_CPU,
 * ...). Only src/questions/ names a particular one. */
enum question {
#define QUESTION(name, NAME) QUESTION_##NAME,
#include "questions/questions.def"
#undef QUESTION
	QUESTION__COUNT,
};

#define QUESTION_MAX_VALUES 3
#define QUESTION_MAX_VIEWS 4

struct profile;
struct prof_sample;
struct analysis;
struct analysis_group;
struct analysis_pass;
struct capture_question;
struct json_t;
struct pprof_header_out;
struct pprof_header_in;

/* A pprof's sample types, as a profile from another tool has them: which question it
 * answers is told from these. */
/* What a value of a profile can add up to, against the capture's length: how the workspace
 * server tells an agent's impossible numbers from real ones (src/server/ingest.c). */
enum question_value_bound {
	VALUE_BOUND_NONE,          /* nothing beyond being 0 or more */
	VALUE_BOUND_TICKS,         /* all samples: at most CPUs x rate x seconds */
	VALUE_BOUND_CPU_TIME,      /* all of it: at most CPUs x the capture's length */
	VALUE_BOUND_THREAD_TIME,   /* one thread's: at most the capture's length */
	VALUE_BOUND_SAMPLE_TIME,   /* one sample's: at most the capture's length */
};

struct question_pprof_types {
	size_t n;
	const char *const *type;
	const char *const *unit;
	const bool *is_default; /* the profile's default_sample_type */
};

struct question_plugin {
	const char *id;    /* "cpu": in pprof, the store, the API, the command line */
	const char *title; /* the product's words: "What is using the CPU" */
	/* What `check` says a server can be profiled by: this one can run here. */
	bool primary;
	/* No duration: one moment (threads). */
	bool snapshot;
	/* Shares are of the server's CPU time (ncpus x seconds), not of the profile's total. */
	bool share_of_server;
	/* Each sample stands for one period of a sampling clock (pprof's period). */
	bool clock_sampled;

	/* ---- the profile ---- */

	/* Its values' pprof type and unit, in order; NULL type past the last. */
	const char *value_types[QUESTION_MAX_VALUES][2];
	uint32_t main_value;   /* the value the answer, groups and functions weigh by */
	uint32_t folded_value; /* the value a folded export counts */
	int32_t max_value;     /* a value that merges by its maximum; -1: every value adds up */
	/* What each value can add up to in a capture of its length (0: no bound). */
	enum question_value_bound value_bounds[QUESTION_MAX_VALUES];
	/* What a profile's page shows, in order: every question's groups, flame graph and
	 * functions (with their sandwich), and the question's own view. NULL-ended. */
	const char *views[QUESTION_MAX_VIEWS + 1];
	/* A pprof from another tool: how specifically its sample types are this question's
	 * (-1: not at all; the highest wins, then the table's order), and which of its
	 * columns holds each of this question's values (cols come as -1: reads as 0). */
	int (*pprof_match)(const struct question_pprof_types *t, int cols[QUESTION_MAX_VALUES]);

	/* ---- its own data in the profile's header (src/profile/pprof_internal.h) ---- */

	/* Its data kept in a profile's header.own (memory: each owner group's resident
	 * memory at the start and end), as its own fields of profile.proto's SlideopsHeader.
	 * All NULL: it keeps none. Frees header.own (not NULL). */
	void (*header_free)(void *own);
	/* Writes p's header.own (not NULL) into the SlideOps header of the pprof being
	 * encoded. 0 or -ENOMEM. */
	int (*header_encode)(const struct profile *p, struct pprof_header_out *out);
	/* Reads its fields of a decoded SlideOps header into p's header.own (none: leaves it
	 * NULL); a damaged entry is left out. 0 or -ENOMEM. */
	int (*header_decode)(struct profile *p, const struct pprof_header_in *in);
	/* Clamps the counters of p's header.own (not NULL) to at most most: what an agent's
	 * profile says of the capture, clamped not refused (src/server/ingest.c). */
	void (*header_clamp)(struct profile *p, uint64_t most);

	/* ---- the capture: its row of the engine (src/capture/capture_internal.h) ---- */

	const struct capture_question *capture;

	/* ---- the analysis (src/analysis/analysis_internal.h) ---- */

	/* Whether a sample is what the question is about: it counts in the answer, groups,
	 * functions, flame graph and folded export (the profile keeps every sample). p is
	 * symbolized. NULL: every sample counts. */
	bool (*sample_counts)(const struct profile *p, const struct prof_sample *s);
	/* Its own measures over the groups as the samples met them (unsorted, c->group
	 * giving each counted sample's, NONE for the others): its views' data, and the
	 * answer when it ranks groups its own way (then answer is NULL). An analysis and
	 * its groups carry only what every question has (analysis.h): what the question
	 * measures beyond that (wall's running and waiting, locks' waits and locks by
	 * address, threads' sets, memory's net change) is declared in its folder
	 * (NAME_own.h), a struct a group as the group's own, all in one block, the
	 * analysis's own; only its folder reads them. 0 or -ENOMEM. NULL: nothing. */
	int (*analyse)(struct analysis_pass *c, struct analysis *a);
	/* The answer sentence from the groups, largest first. malloc'd; NULL: ENOMEM. */
	char *(*answer)(const struct analysis *a);

	/* ---- the views ---- */

	/* Its fields of a group in the JSON document, after the common ones. NULL: none. */
	void (*group_json)(struct json_t *o, const struct analysis_group *g, int *err);
	/* Its line beneath a group's row in the text report. NULL: none. */
	void (*group_text)(const struct analysis_group *g, FILE *out);
	/* Its own views' keys of the JSON document ("thread_sets", "locks", ...), set in doc
	 * before the groups, in its views' order. NULL: none. */
	void (*document_json)(struct json_t *doc, const struct analysis *a, int *err);
	/* Its own views in the text report, each after a blank line when it prints:
	 * before the groups (a thread dump) and after them (locks by address). NULL: none. */
	void (*report_before_groups)(const struct analysis *a, FILE *out);
	void (*report_after_groups)(const struct analysis *a, FILE *out);
};

/* The question of id q; NULL when q is none. */
const struct question_plugin *question__get(enum question q);
/* The question of the id "cpu", ...; -1 when unknown. */
int question__parse(const char *id);
/* The question `check` asks about first: the server can be profiled when it can run. */
enum question question__primary(void);
/* Which question a pprof from another tool answers, and which of its columns hold the
 * question's values (-1: none). */
enum question question__match_pprof(const struct question_pprof_types *t,
				    int cols[QUESTION_MAX_VALUES]);

/* The ids in the table's order, as a sentence lists them: "cpu, wall, ... or memory". */
#define QUESTION_LIST_MAX 256
void question__list_ids(char *out, size_t size);

/* The fields of q's description, "" / false / 0 when q is none. */
const char *question__id(enum question q);
const char *question__title(enum question q);
const char *const *question__views(enum question q);
bool question__share_of_server(enum question q);
bool question__clock_sampled(enum question q);
bool question__is_snapshot(enum question q);
uint32_t question__folded_value(enum question q);
/* What q's value col can add up to (VALUE_BOUND_NONE past its values). */
enum question_value_bound question__value_bound(enum question q, uint32_t col);

/* For pprof_match: the first column of this unit (prefer_default: the last one that is
 * the default sample type, when one is); -1 when none has it. */
int question_pprof__column(const struct question_pprof_types *t, const char *unit,
			   bool prefer_default);
/* For group_json: sets key, remembering a failure in *err instead of leaking. */
void question__json_set(struct json_t *o, const char *key, struct json_t *value, int *err);
/* For document_json: appends value to the array list, the same way. */
void question__json_append(struct json_t *list, struct json_t *value, int *err);

#endif
