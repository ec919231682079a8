/* SPDX-License-Identifier: MIT */
/*
 * The locks question's views, its plug-in's view hooks (questions/question.h): a group's
 * waits and the longest (JSON fields, a line of text), and the locks by address (the
 * document's "locks", the report's list after the groups).
 */
#ifndef SLIDEOPS_QUESTIONS_LOCKS_VIEWS_H
#define SLIDEOPS_QUESTIONS_LOCKS_VIEWS_H

#include <jansson.h>
#include <stdio.h>

struct analysis;
struct analysis_group;

void locks_views__group_json(json_t *o, const struct analysis_group *g, int *err);
void locks_views__group_text(const struct analysis_group *g, FILE *out);
void locks_views__document_json(json_t *doc, const struct analysis *a, int *err);
void locks_views__report_after_groups(const struct analysis *a, FILE *out);

#endif
