/* SPDX-License-Identifier: MIT */
/*
 * An analysis (analysis/analysis.h) as the views show it: architecture.md's JSON document
 * and the text report `capture` and `show` print. Written in src/views/analysis_json.c and
 * src/views/analysis_text.c.
 */
#ifndef SLIDEOPS_VIEWS_ANALYSIS_VIEW_H
#define SLIDEOPS_VIEWS_ANALYSIS_VIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

/* How many functions analysis_view__to_json lists by self share. */
#define ANALYSIS_JSON_FUNCTIONS 100

/* architecture.md's document (id may be NULL): the top ANALYSIS_JSON_FUNCTIONS functions by self
 * share, and after them any other whose total share is 0.1% or more (callers). */
json_t *analysis_view__to_json(const struct analysis *a, const char *id);
/* The same with exactly the top max_functions functions by self share. */
json_t *analysis_view__to_json_top(const struct analysis *a, const char *id, size_t max_functions);

/*
 * The text views, as `capture` and `show` print them: the groups with their processes
 * beneath, the top functions, and the stripped-binary card (nothing when it is empty);
 * a question's own views are its plug-in's (src/questions/NAME/).
 */
/* The whole text report: answer, lost events, card, groups, top functions (top 0: none). */
void analysis_view__print_report(const struct analysis *a, FILE *out, size_t top);
void analysis_view__print_groups(const struct analysis *a, FILE *out);
void analysis_view__print_functions(const struct analysis *a, FILE *out, size_t max);
void analysis_view__print_card(const struct analysis *a, FILE *out);

#endif
