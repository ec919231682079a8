// SPDX-License-Identifier: MIT
/*
 * The `capture --json` / `show --json` document (architecture.md). Fields may be added, never
 * renamed: scripts and tests read these keys.
 */
#include "analysis/analysis.h"
#include "views/analysis_view.h"

#include <stdio.h>
#include <string.h>

#include "util/format.h"
#include "util/json_text.h"
#include "util/messages.h"

/* json_object_set_new that remembers a failure instead of leaking or crashing. */
static void set(json_t *obj, const char *key, json_t *value, int *err)
{
	if (!value || json_object_set_new(obj, key, value))
		*err = -1;
}

static void append(json_t *arr, json_t *value, int *err)
{
	if (!value || json_array_append_new(arr, value))
		*err = -1;
}

/* A group, with its question's own fields after the common ones (architecture.md). */
static json_t *group__to_json(const struct analysis_group *g, const char *unit,
			      const struct question_plugin *q, int *err)
{
	json_t *o = json_object(), *procs = json_array();

	if (!o || !procs) {
		json_decref(o);
		json_decref(procs);
		*err = -1;
		return NULL;
	}
	set(o, "label", json_text(g->label), err);
	set(o, "kind", json_text(group_kind__name(g->kind)), err);
	set(o, "name", json_text(g->name), err);
	set(o, "share", json_real(g->share), err);
	set(o, "value", json_integer(g->value), err);
	set(o, "unit", json_text(unit), err);
	set(o, "top_function", g->top_function ? json_text(g->top_function) : json_null(), err);
	if (q && q->group_json)
		q->group_json(o, g, err);
	for (size_t i = 0; i < g->nprocesses; i++) {
		const struct analysis_process *pr = &g->processes[i];
		json_t *po = json_object();

		if (po) {
			set(po, "pid", json_integer(pr->pid), err);
			set(po, "comm", json_text(pr->comm), err);
			set(po, "share", json_real(pr->share), err);
			set(po, "value", json_integer(pr->value), err);
		}
		append(procs, po, err);
	}
	set(o, "processes", procs, err);
	return o;
}

/* A function's total share that earns it a place in the default document even with
 * little self time of its own (main, a request handler): callers are what people look
 * for in a script too. */
#define JSON_TOTAL_MIN 0.001

/* The binaries the capture did not read, and why. */
static json_t *not_read__to_json(const struct profile *p, int *err)
{
	json_t *list = json_array();

	for (uint32_t i = 0; list && i < p->header.nnot_read; i++) {
		const struct prof_not_read *nr = &p->header.not_read[i];
		json_t *o = json_object();

		if (o) {
			set(o, "path", json_text(profile__str(p, nr->path)), err);
			set(o, "build_id", json_text(profile__str(p, nr->build_id)), err);
			set(o, "reason", json_text(profile__str(p, nr->reason)), err);
		}
		append(list, o, err);
	}
	return list;
}

/* {"mappings", "processes", "limit", "sentence"}: executable mappings left to frame
 * pointers because their process had more than limit with unwind tables (mappings 0: none,
 * or not counted; sentence "" then). */
static json_t *mappings_past_limit__to_json(const struct profile *p, int *err)
{
	const struct prof_header *h = &p->header;
	json_t *o = json_object();
	char sentence[256] = "";

	if (h->mappings_past_limit)
		msg_format(sentence, sizeof(sentence), MSG_REPORT_MAPPINGS_PAST_LIMIT,
			   (unsigned long long)h->mappings_past_limit, h->processes_past_limit,
			   h->mappings_limit);
	if (o) {
		set(o, "mappings", json_integer(h->mappings_past_limit), err);
		set(o, "processes", json_integer(h->processes_past_limit), err);
		set(o, "limit", json_integer(h->mappings_limit), err);
		set(o, "sentence", json_text(sentence), err);
	}
	return o;
}

/* {"complete": share or null, "exits": {"no_table": N, ...}} (exits: {} when the capture
 * did not count them). */
static json_t *stack_quality__to_json(const struct analysis *a, int *err)
{
	const struct prof_header *h = &a->profile->header;
	json_t *o = json_object(), *exits = json_object();

	if (!o || !exits) {
		json_decref(o);
		json_decref(exits);
		*err = -1;
		return NULL;
	}
	json_t *unnamed = json_array();
	char sentence[512], pct[16];

	set(o, "complete", a->stacks_complete >= 0 ? json_real(a->stacks_complete) : json_null(),
	    err);
	if (a->stacks_complete >= 0) {
		format_percent(a->stacks_complete, pct, sizeof(pct));
		msg_format(sentence, sizeof(sentence), MSG_STACKS_WHOLE, pct);
		set(o, "sentence", json_text(sentence), err);
	} else {
		set(o, "sentence", json_null(), err);
	}
	for (size_t i = 0; unnamed && i < a->nunnamed_starts; i++) {
		json_t *u = json_object();

		analysis__unnamed_start_sentence(&a->unnamed_starts[i], sentence, sizeof(sentence));
		if (u) {
			set(u, "path", json_text(a->unnamed_starts[i].path), err);
			set(u, "share", json_real(a->unnamed_starts[i].share), err);
			set(u, "sentence", json_text(sentence), err);
		}
		append(unnamed, u, err);
	}
	if (!unnamed)
		*err = -1;
	set(o, "unnamed_starts", unnamed, err);
	for (int i = 0; h->stack_exits_recorded && i < STACK_EXIT__COUNT; i++)
		set(exits, stack_exit__name(i), json_integer((json_int_t)h->stack_exits[i]), err);
	set(o, "exits", exits, err);
	return o;
}

static json_t *analysis_view__json(const struct analysis *a, const char *id, size_t max_functions,
			      bool with_callers)
{
	const struct profile *p = a->profile;
	const struct question_plugin *question;
	json_t *doc = json_object(), *groups = json_array(), *functions = json_array(),
	       *stripped = json_array();
	char started[32];
	int err = 0;

	if (!doc || !groups || !functions || !stripped)
		goto out_free;
	profile__format_started_at(p, started, sizeof(started));
	set(doc, "id", id ? json_text(id) : json_null(), &err);
	set(doc, "question", json_text(question__id(p->header.question)), &err);
	set(doc, "server", json_text(profile__str(p, p->header.hostname)), &err);
	set(doc, "started_at", json_text(started), &err);
	set(doc, "seconds", json_integer(format_whole_seconds(p->header.duration_ns)), &err);
	set(doc, "answer", json_text(a->answer), &err);
	set(doc, "lost", json_integer((json_int_t)p->header.lost), &err);
	set(doc, "unit", json_text(a->unit), &err);
	set(doc, "total", json_integer(a->total), &err);

	for (size_t i = 0; i < a->ngroups; i++)
		append(groups, group__to_json(&a->groups[i], a->unit, question__get(p->header.question),
					      &err),
		       &err);
	for (size_t i = 0; i < a->nfunctions; i++) {
		const struct analysis_function *f = &a->functions[i];
		json_t *o;

		if (i >= max_functions && !(with_callers && f->total >= JSON_TOTAL_MIN))
			continue;
		o = json_object();
		if (o) {
			set(o, "name", json_text(f->name), &err);
			set(o, "language", json_text(language__name(f->language)), &err);
			set(o, "self", json_real(f->self), &err);
			set(o, "total", json_real(f->total), &err);
		}
		append(functions, o, &err);
	}
	for (size_t i = 0; i < a->nstripped; i++) {
		const struct analysis_stripped *s = &a->stripped[i];
		json_t *o = json_object();

		if (o) {
			set(o, "path", json_text(s->path), &err);
			set(o, "share", json_real(s->share), &err);
			set(o, "build_id", json_text(s->build_id), &err);
			set(o, "has_build_id", json_boolean(s->has_build_id), &err);
		}
		append(stripped, o, &err);
	}
	/* The document's part of the question's own views. */
	question = question__get(p->header.question);
	if (question && question->document_json)
		question->document_json(doc, a, &err);
	set(doc, "groups", groups, &err);
	set(doc, "functions", functions, &err);
	set(doc, "stripped", stripped, &err);
	set(doc, "not_read", not_read__to_json(p, &err), &err);
	set(doc, "stack_quality", stack_quality__to_json(a, &err), &err);
	set(doc, "mappings_left_to_frame_pointers", mappings_past_limit__to_json(p, &err), &err);
	set(doc, "build_ids_missing", json_boolean(a->build_ids_missing), &err);
	if (err) {
		json_decref(doc);
		return NULL;
	}
	return doc;

out_free:
	json_decref(doc);
	json_decref(groups);
	json_decref(functions);
	json_decref(stripped);
	return NULL;
}

json_t *analysis_view__to_json_top(const struct analysis *a, const char *id, size_t max_functions)
{
	return analysis_view__json(a, id, max_functions, false);
}

json_t *analysis_view__to_json(const struct analysis *a, const char *id)
{
	return analysis_view__json(a, id, ANALYSIS_JSON_FUNCTIONS, true);
}
