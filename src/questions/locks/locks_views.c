// SPDX-License-Identifier: MIT
/*
 * The locks question's views (questions/question.h): its fields of a group in the JSON
 * document and its line in the text report, and its own view, the locks by address,
 * in both.
 */
#include <jansson.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "locks_own.h"
#include "locks_views.h"
#include "questions/question.h"
#include "util/format.h"
#include "util/json_text.h"
#include "util/messages.h"

/* How many waits a group had, and the longest: its JSON fields and its line of text. */
void locks_views__group_json(json_t *o, const struct analysis_group *g, int *err)
{
	const struct locks_group *m = locks_group__of(g);

	question__json_set(o, "contentions", json_integer(m->contentions), err);
	question__json_set(o, "longest_ns", json_integer(m->longest), err);
}

void locks_views__group_text(const struct analysis_group *g, FILE *out)
{
	const struct locks_group *m = locks_group__of(g);
	char longest[FORMAT_MAX];

	format_seconds(m->longest, longest, sizeof(longest));
	msg_fprint(out, MSG_SHOW_GROUP_LOCKS, (long long)m->contentions, longest);
}

/* How many locks the document lists, and the text report (the longest waits first). */
#define LOCKS_JSON 100
#define LOCKS_SHOWN 5

static json_t *lock_waiters__to_json(const struct locks_waiter *w, bool processes,
				    int *err)
{
	json_t *list = json_array();

	for (int i = 0; list && i < LOCKS_WAITERS && w[i].name; i++) {
		json_t *o = json_object();

		if (o && processes) {
			question__json_set(o, "pid", json_integer(w[i].pid), err);
			question__json_set(o, "comm", json_text(w[i].name), err);
		} else if (o) {
			question__json_set(o, "name", json_text(w[i].name), err);
		}
		if (o)
			question__json_set(o, "wait_ns", json_integer(w[i].wait_ns), err);
		question__json_append(list, o, err);
	}
	if (!list)
		*err = -1;
	return list;
}

/* Who held a lock: [{"function", "ns", "process", "pid"}], the largest first. */
static json_t *lock_holders__to_json(const struct locks_holder *h, int *err)
{
	json_t *list = json_array();

	for (int i = 0; list && i < LOCKS_WAITERS && h[i].function; i++) {
		json_t *o = json_object();

		if (o) {
			question__json_set(o, "function", json_text(h[i].function), err);
			question__json_set(o, "ns", json_integer(h[i].ns), err);
			question__json_set(o, "process", json_text(h[i].process), err);
			question__json_set(o, "pid", json_integer(h[i].pid), err);
		}
		question__json_append(list, o, err);
	}
	if (!list)
		*err = -1;
	return list;
}

/* locks: the locks by address, the longest total wait first. The address is text ("0x..."):
 * a kernel address does not fit a JSON number that every reader keeps exact. */
static json_t *locks__to_json(const struct analysis *a, int *err)
{
	const struct locks_own *own = locks_own__of(a);
	json_t *list = json_array();
	char addr[24];

	for (size_t i = 0; list && i < own->nlocks && i < LOCKS_JSON; i++) {
		const struct locks_lock *l = &own->locks[i];
		json_t *o = json_object();

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->address);
		if (o) {
			question__json_set(o, "address", json_text(addr), err);
			question__json_set(o, "kind", json_text(l->kind), err);
			question__json_set(o, "pid", l->pid ? json_integer(l->pid) : json_null(), err);
			question__json_set(o, "contentions", json_integer(l->contentions), err);
			question__json_set(o, "wait_ns", json_integer(l->wait_ns), err);
			question__json_set(o, "longest_ns", json_integer(l->longest_ns), err);
			question__json_set(o, "share", json_real(l->share), err);
			question__json_set(o, "functions", lock_waiters__to_json(l->functions, false, err), err);
			question__json_set(o, "processes", lock_waiters__to_json(l->processes, true, err), err);
			question__json_set(o, "holders", lock_holders__to_json(l->holders, err), err);
			question__json_set(o, "held_ns", json_integer(l->held_ns), err);
		}
		question__json_append(list, o, err);
	}
	if (!list)
		*err = -1;
	return list;
}

/* locks: the locks by address, each with where its waits came from. */
static void print_locks(const struct analysis *a, FILE *out, size_t max)
{
	const struct locks_own *own = locks_own__of(a);
	char total[FORMAT_MAX], longest[FORMAT_MAX], wait[FORMAT_MAX];

	msg_fprint(out, MSG_SHOW_LOCKS_HEADER);
	for (size_t i = 0; i < own->nlocks && i < max; i++) {
		const struct locks_lock *l = &own->locks[i];
		char addr[24];

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->address);
		format_seconds(l->wait_ns, total, sizeof(total));
		format_seconds(l->longest_ns, longest, sizeof(longest));
		if (l->pid)
			msg_fprint(out, MSG_SHOW_LOCK_USER, addr, l->kind,
				   l->processes[0].name ? l->processes[0].name : "?", l->pid,
				   (long long)l->contentions, total, longest);
		else
			msg_fprint(out, MSG_SHOW_LOCK_KERNEL, addr, l->kind, (long long)l->contentions,
				   total, longest);
		for (int k = 0; k < LOCKS_WAITERS && l->functions[k].name; k++) {
			format_seconds(l->functions[k].wait_ns, wait, sizeof(wait));
			msg_fprint(out, MSG_SHOW_LOCK_WAITER, l->functions[k].name, wait);
		}
		for (int k = 0; k < LOCKS_WAITERS && l->holders[k].function; k++) {
			format_seconds(l->holders[k].ns, wait, sizeof(wait));
			msg_fprint(out, MSG_SHOW_LOCK_HOLDER, l->holders[k].function,
				   l->holders[k].process, l->holders[k].pid, wait);
		}
	}
	if (own->nlocks > max)
		msg_fprint(out, MSG_SHOW_LOCKS_MORE, (unsigned long long)(own->nlocks - max),
			   LOCKS_JSON);
}

void locks_views__document_json(json_t *doc, const struct analysis *a, int *err)
{
	question__json_set(doc, "locks", locks__to_json(a, err), err);
}

void locks_views__report_after_groups(const struct analysis *a, FILE *out)
{
	if (!locks_own__of(a)->nlocks)
		return;
	fputc('\n', out);
	print_locks(a, out, LOCKS_SHOWN);
}
