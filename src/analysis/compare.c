// SPDX-License-Identifier: MIT
/*
 * Two analyses side by side. The two profiles have their own string tables, so groups
 * and functions are matched by name: both sides sorted by name, then merged.
 */
#include "analysis/compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/json_text.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Changes under half a percentage point are noise in a sampled profile. */
#define CHANGE_MIN 0.005

struct named {
	const char *name;
	size_t index;
};

static int named__cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* Indexes of n items sorted by name; name(i) reads item i's. */
static struct named *by_name(size_t n, const char *(*name)(const struct analysis *, size_t),
			     const struct analysis *a)
{
	struct named *v = malloc(sizeof(*v) * (n ? n : 1));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct named){ name(a, i), i };
	qsort(v, n, sizeof(*v), named__cmp);
	return v;
}

static const char *group_label(const struct analysis *a, size_t i)
{
	return a->groups[i].label;
}

static const char *function_name(const struct analysis *a, size_t i)
{
	return a->functions[i].name;
}

static double basis(const struct analysis *a, int64_t value)
{
	return a->share_of > 0 ? (double)value / (double)a->share_of : 0.0;
}

static int group__cmp(const void *x, const void *y)
{
	const struct compare_group *a = x, *b = y;
	double ma = fmax(a->before, a->after), mb = fmax(b->before, b->after);

	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->label, b->label);
}

static int grew__cmp(const void *x, const void *y)
{
	const struct compare_function *a = x, *b = y;
	double da = a->after - a->before, db = b->after - b->before;

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int shrank__cmp(const void *x, const void *y)
{
	return grew__cmp(y, x);
}

static int comparison__groups(struct comparison *c)
{
	const struct analysis *a = c->before, *b = c->after;
	struct named *na = by_name(a->ngroups, group_label, a);
	struct named *nb = by_name(b->ngroups, group_label, b);
	size_t i = 0, j = 0;

	c->groups = calloc(a->ngroups + b->ngroups + 1, sizeof(*c->groups));
	if (!na || !nb || !c->groups) {
		free(na);
		free(nb);
		return -ENOMEM;
	}
	while (i < a->ngroups || j < b->ngroups) {
		int cmp = i >= a->ngroups ? 1 :
			  j >= b->ngroups ? -1 :
					    strcmp(na[i].name, nb[j].name);
		struct compare_group *g = &c->groups[c->ngroups++];
		const struct analysis_group *ga = cmp <= 0 ? &a->groups[na[i++].index] : NULL;
		const struct analysis_group *gb = cmp >= 0 ? &b->groups[nb[j++].index] : NULL;

		g->label = ga ? ga->label : gb->label;
		g->kind = ga ? ga->kind : gb->kind;
		g->before = ga ? ga->share : 0;
		g->after = gb ? gb->share : 0;
		g->value_before = ga ? ga->value : 0;
		g->value_after = gb ? gb->value : 0;
	}
	qsort(c->groups, c->ngroups, sizeof(*c->groups), group__cmp);
	free(na);
	free(nb);
	return 0;
}

static int comparison__functions(struct comparison *c, size_t max)
{
	const struct analysis *a = c->before, *b = c->after;
	struct named *na = by_name(a->nfunctions, function_name, a);
	struct named *nb = by_name(b->nfunctions, function_name, b);
	struct compare_function *all = calloc(a->nfunctions + b->nfunctions + 1, sizeof(*all));
	size_t i = 0, j = 0, n = 0;
	int err = -ENOMEM;

	if (!na || !nb || !all)
		goto out_free;
	while (i < a->nfunctions || j < b->nfunctions) {
		int cmp = i >= a->nfunctions ? 1 :
			  j >= b->nfunctions ? -1 :
					       strcmp(na[i].name, nb[j].name);
		const struct analysis_function *fa = cmp <= 0 ? &a->functions[na[i++].index] : NULL;
		const struct analysis_function *fb = cmp >= 0 ? &b->functions[nb[j++].index] : NULL;
		struct compare_function *f = &all[n++];

		f->name = fa ? fa->name : fb->name;
		f->language = fb ? fb->language : fa->language;
		f->value_before = fa ? fa->self_value : 0;
		f->value_after = fb ? fb->self_value : 0;
		f->before = basis(a, f->value_before);
		f->after = basis(b, f->value_after);
	}

	c->grew = calloc(max + 1, sizeof(*c->grew));
	c->shrank = calloc(max + 1, sizeof(*c->shrank));
	if (!c->grew || !c->shrank)
		goto out_free;
	qsort(all, n, sizeof(*all), grew__cmp);
	for (size_t k = 0; k < n && c->ngrew < max && all[k].after - all[k].before >= CHANGE_MIN;
	     k++)
		c->grew[c->ngrew++] = all[k];
	qsort(all, n, sizeof(*all), shrank__cmp);
	for (size_t k = 0; k < n && c->nshrank < max && all[k].before - all[k].after >= CHANGE_MIN;
	     k++)
		c->shrank[c->nshrank++] = all[k];
	err = 0;

out_free:
	free(na);
	free(nb);
	free(all);
	return err;
}

static char *append(char *s, enum msg_id id, ...)
{
	char *piece, *out;
	va_list ap;
	int n;

	if (!s)
		return NULL;
	va_start(ap, id);
	n = vasprintf(&piece, msg_text(id), ap);
	va_end(ap);
	if (n < 0) {
		free(s);
		return NULL;
	}
	if (asprintf(&out, "%s%s%s", s, *s ? " " : "", piece) < 0)
		out = NULL;
	free(s);
	free(piece);
	return out;
}

/* How many events the shares of a rest on: a sampling clock's ticks, else its samples. */
static double events(const struct analysis *a)
{
	const struct profile *p = a->profile;
	double n = question__clock_sampled(p->header.question) ? (double)profile__total(p, 0) :
								  (double)p->nsamples;

	return n > 1 ? n : 1;
}

/*
 * Whether a move from before to after (shares on the groups' basis, from values vb, va)
 * is within sampling error: each share is a binomial fraction of its profile's events,
 * and two standard errors of the difference are the line between a change and chance.
 * The flame graph of Compare greys the same (web/ui/flame.js); neither is ever named.
 */
static bool within_error(const struct comparison *c, int64_t vb, int64_t va, double before,
			 double after)
{
	const struct analysis *a = c->before, *b = c->after;
	double tb = a->total > 0 ? (double)a->total : 1, ta = b->total > 0 ? (double)b->total : 1;
	double ob = a->share_of > 0 ? (double)a->share_of : tb;
	double oa = b->share_of > 0 ? (double)b->share_of : ta;
	double fb = vb / tb, fa = va / ta;
	double var = (tb / ob) * (tb / ob) * fb * (1 - fb) / events(a) +
		     (ta / oa) * (ta / oa) * fa * (1 - fa) / events(b);

	return fabs(after - before) <= 2 * sqrt(var);
}

/* The group that moved most, then the function that grew (or else shrank) most; changes
 * within sampling error are never named. */
static char *comparison__summary(const struct comparison *c)
{
	const struct compare_group *moved = NULL;
	const struct compare_function *grew = NULL, *shrank = NULL;
	char from[FORMAT_MAX], to[FORMAT_MAX], *s = strdup("");
	bool cpu = question__share_of_server(c->before->profile->header.question);

	for (size_t i = 0; i < c->ngroups; i++) {
		const struct compare_group *g = &c->groups[i];

		if (fabs(g->after - g->before) >= CHANGE_MIN &&
		    !within_error(c, g->value_before, g->value_after, g->before, g->after) &&
		    (!moved || fabs(g->after - g->before) > fabs(moved->after - moved->before)))
			moved = g;
	}
	for (size_t i = 0; i < c->ngrew && !grew; i++)
		if (!within_error(c, c->grew[i].value_before, c->grew[i].value_after,
				  c->grew[i].before, c->grew[i].after))
			grew = &c->grew[i];
	for (size_t i = 0; i < c->nshrank && !shrank; i++)
		if (!within_error(c, c->shrank[i].value_before, c->shrank[i].value_after,
				  c->shrank[i].before, c->shrank[i].after))
			shrank = &c->shrank[i];
	if (!moved && !grew && !shrank)
		return append(s, MSG_COMPARE_NOTHING_CHANGED);
	if (moved) {
		format_percent(moved->before, from, sizeof(from));
		format_percent(moved->after, to, sizeof(to));
		s = append(s, cpu ? MSG_COMPARE_GROUP_MOVED_CPU : MSG_COMPARE_GROUP_MOVED,
			   moved->label, from, to);
	}
	if (grew) {
		format_percent(grew->before, from, sizeof(from));
		format_percent(grew->after, to, sizeof(to));
		s = append(s, MSG_COMPARE_FUNCTION_GREW, grew->name, from, to);
	} else if (shrank) {
		format_percent(shrank->before, from, sizeof(from));
		format_percent(shrank->after, to, sizeof(to));
		s = append(s, MSG_COMPARE_FUNCTION_SHRANK, shrank->name, from, to);
	}
	return s;
}

struct comparison *comparison__new(const struct analysis *before, const struct analysis *after,
				   size_t max_functions)
{
	struct comparison *c;

	if (before->profile->header.question != after->profile->header.question) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->before = before;
	c->after = after;
	if (comparison__groups(c) || comparison__functions(c, max_functions))
		goto out_free;
	c->summary = comparison__summary(c);
	if (!c->summary)
		goto out_free;
	return c;

out_free:
	comparison__free(c);
	errno = ENOMEM;
	return NULL;
}

void comparison__free(struct comparison *c)
{
	if (!c)
		return;
	free(c->groups);
	free(c->grew);
	free(c->shrank);
	free(c->summary);
	free(c);
}

/* ---- JSON ---- */

static void set(json_t *obj, const char *key, json_t *value, int *err)
{
	if (!value || json_object_set_new(obj, key, value))
		*err = -1;
}

static json_t *side__to_json(const struct analysis *a, const char *id, int *err)
{
	const struct profile *p = a->profile;
	json_t *o = json_object();
	char started[32];

	if (!o) {
		*err = -1;
		return NULL;
	}
	profile__format_started_at(p, started, sizeof(started));
	set(o, "id", id ? json_text(id) : json_null(), err);
	set(o, "server", json_text(profile__str(p, p->header.hostname)), err);
	set(o, "started_at", json_text(started), err);
	set(o, "seconds", json_integer(format_whole_seconds(p->header.duration_ns)), err);
	set(o, "answer", json_text(a->answer), err);
	set(o, "total", json_integer(a->total), err);
	return o;
}

static json_t *functions__to_json(const struct compare_function *f, size_t n, int *err)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++) {
		json_t *o = json_object();

		if (!o || json_array_append_new(arr, o)) {
			*err = -1;
			break;
		}
		set(o, "name", json_text(f[i].name), err);
		set(o, "language", json_text(language__name(f[i].language)), err);
		set(o, "before", json_real(f[i].before), err);
		set(o, "after", json_real(f[i].after), err);
		set(o, "change", json_real(f[i].after - f[i].before), err);
		set(o, "value_before", json_integer(f[i].value_before), err);
		set(o, "value_after", json_integer(f[i].value_after), err);
	}
	if (!arr)
		*err = -1;
	return arr;
}

json_t *comparison__to_json(const struct comparison *c, const char *id_before,
			    const char *id_after)
{
	json_t *doc = json_object(), *groups = json_array();
	int err = 0;

	if (!doc || !groups) {
		json_decref(doc);
		json_decref(groups);
		return NULL;
	}
	set(doc, "question", json_text(question__id(c->before->profile->header.question)),
	    &err);
	set(doc, "before", side__to_json(c->before, id_before, &err), &err);
	set(doc, "after", side__to_json(c->after, id_after, &err), &err);
	set(doc, "summary", json_text(c->summary), &err);
	set(doc, "unit", json_text(c->before->unit), &err);
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct compare_group *g = &c->groups[i];
		json_t *o = json_object();

		if (!o || json_array_append_new(groups, o)) {
			err = -1;
			break;
		}
		set(o, "label", json_text(g->label), &err);
		set(o, "kind", json_text(group_kind__name(g->kind)), &err);
		set(o, "before", json_real(g->before), &err);
		set(o, "after", json_real(g->after), &err);
		set(o, "change", json_real(g->after - g->before), &err);
		set(o, "value_before", json_integer(g->value_before), &err);
		set(o, "value_after", json_integer(g->value_after), &err);
	}
	set(doc, "groups", groups, &err);
	set(doc, "grew", functions__to_json(c->grew, c->ngrew, &err), &err);
	set(doc, "shrank", functions__to_json(c->shrank, c->nshrank, &err), &err);
	if (err) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* ---- text ---- */

static void print_side(FILE *out, enum msg_id msg, const char *id, const struct analysis *a)
{
	const struct profile *p = a->profile;
	char started[32];

	profile__format_started_at(p, started, sizeof(started));
	msg_fprint(out, msg, id ? id : "", profile__str(p, p->header.hostname), started, a->answer);
}

static void print_functions(FILE *out, enum msg_id title, const struct compare_function *f,
			    size_t n)
{
	char from[FORMAT_MAX], to[FORMAT_MAX], pts[FORMAT_MAX];

	if (!n)
		return;
	fputc('\n', out);
	msg_fprint(out, title);
	for (size_t i = 0; i < n; i++) {
		format_percent(f[i].before, from, sizeof(from));
		format_percent(f[i].after, to, sizeof(to));
		format_points(f[i].after - f[i].before, pts, sizeof(pts));
		msg_fprint(out, MSG_COMPARE_FUNCTION_ROW, from, to, pts, language__name(f[i].language),
		      f[i].name);
	}
}

void comparison__print(const struct comparison *c, const char *id_before, const char *id_after,
		       FILE *out)
{
	char from[FORMAT_MAX], to[FORMAT_MAX], pts[FORMAT_MAX];

	print_side(out, MSG_COMPARE_BEFORE, id_before, c->before);
	print_side(out, MSG_COMPARE_AFTER, id_after, c->after);
	fputc('\n', out);
	msg_fprint(out, MSG_COMPARE_SUMMARY, c->summary);
	if (c->ngroups) {
		fputc('\n', out);
		msg_fprint(out, question__share_of_server(c->before->profile->header.question) ?
				   MSG_COMPARE_GROUPS_CPU :
				   MSG_COMPARE_GROUPS);
		for (size_t i = 0; i < c->ngroups; i++) {
			const struct compare_group *g = &c->groups[i];

			format_percent(g->before, from, sizeof(from));
			format_percent(g->after, to, sizeof(to));
			format_points(g->after - g->before, pts, sizeof(pts));
			msg_fprint(out, MSG_COMPARE_GROUP_ROW, g->label, from, to, pts);
		}
	}
	/* Where shares are of the server's CPU time, as the groups' are: said so. */
	if (question__share_of_server(c->before->profile->header.question)) {
		print_functions(out, MSG_COMPARE_GREW_TITLE_CPU, c->grew, c->ngrew);
		print_functions(out, MSG_COMPARE_SHRANK_TITLE_CPU, c->shrank, c->nshrank);
	} else {
		print_functions(out, MSG_COMPARE_GREW_TITLE, c->grew, c->ngrew);
		print_functions(out, MSG_COMPARE_SHRANK_TITLE, c->shrank, c->nshrank);
	}
}
