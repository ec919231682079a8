// SPDX-License-Identifier: MIT
/*
 * A pprof decode's first passes (pprof_decode.c runs them in order): the string table
 * interned and which question the profile answers (its SlideOps header's, or guessed
 * from another tool's sample types), then the SlideOps header itself, every index in it
 * checked; the question's own fields of it are read by its plug-in (header_decode).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_decoder.h"
#include "profile/pprof_internal.h"
#include "profile/profile.h"

/* Which question a pprof from another tool answers, from its sample types (each
 * question's pprof_match), and which columns hold the model's values. Go's profiles land
 * where one expects: cpu as cpu, mutex as locks, heap as memory, goroutine as threads.
 * The question's id, or -errno. */
static int dec__guess_question(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	size_t n = pb->n_sample_type;
	const char **type = calloc_n(n, sizeof(*type)), **unit = calloc_n(n, sizeof(*unit));
	bool *is_default = calloc_n(n, sizeof(*is_default));
	struct question_pprof_types t = { n, type, unit, is_default };
	enum question q;

	if (!type || !unit || !is_default) {
		free(type);
		free(unit);
		free(is_default);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		type[i] = pb_str(d, pb->sample_type[i]->type);
		unit[i] = pb_str(d, pb->sample_type[i]->unit);
		is_default[i] = pb->sample_type[i]->type == pb->default_sample_type;
	}
	/* A value of ours the other tool has no column for reads as 0. */
	q = question__match_pprof(&t, d->value_cols);
	free(type);
	free(unit);
	free(is_default);
	return question__get(q) ? (int)q : -EBADMSG;
}

int dec__strings_and_question(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	const PbHeader *h = pb->slideops;
	enum question q;
	int qi;

	/* pprof's first string is always "". */
	if (pb->n_string_table < 1 || pb->string_table[0][0] != '\0')
		return -EBADMSG;
	d->nstr = pb->n_string_table;
	if (pb->n_sample_type < 1)
		return -EBADMSG;
	for (size_t i = 0; i < pb->n_sample_type; i++)
		if (!str_ok(d, pb->sample_type[i]->type) || !str_ok(d, pb->sample_type[i]->unit))
			return -EBADMSG;
	if (!str_ok(d, pb->default_sample_type))
		return -EBADMSG;

	if (h) {
		if (!str_ok(d, h->question) || !str_ok(d, h->hostname) ||
		    !str_ok(d, h->kernel_release) || !str_ok(d, h->tool_version) ||
		    !str_ok(d, h->kernel_build_id))
			return -EBADMSG;
		qi = question__parse(pb_str(d, h->question));
		if (qi < 0)
			return -EBADMSG;
		q = (enum question)qi;
		for (int i = 0; i < PROFILE_MAX_VALUES; i++)
			d->value_cols[i] = i;
	} else {
		qi = dec__guess_question(d);
		if (qi < 0)
			return qi;
		q = (enum question)qi;
	}

	d->p = profile__new(q);
	if (!d->p)
		return -ENOMEM;
	/* Ours carries exactly the question's values; anything else is not our profile. */
	if (h && pb->n_sample_type != d->p->nvalues)
		return -EBADMSG;

	d->str = calloc_n(d->nstr, sizeof(*d->str));
	if (!d->str)
		return -ENOMEM;
	for (size_t i = 0; i < d->nstr; i++) {
		d->str[i] = profile__intern(d->p, pb->string_table[i]);
		if (d->str[i] == STRTAB_NONE)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < d->p->nvalues; i++) {
		const PbValueType *vt;

		if (d->value_cols[i] < 0)
			continue;
		vt = pb->sample_type[d->value_cols[i]];
		d->p->value_types[i].type = d->str[vt->type];
		d->p->value_types[i].unit = d->str[vt->unit];
	}
	return 0;
}

int dec__header(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	const PbHeader *h = pb->slideops;
	struct prof_header *ph = &d->p->header;
	const struct question_plugin *q = question__get(ph->question);

	if (h) {
		ph->format_version = h->format_version;
		ph->hostname = d->str[h->hostname];
		ph->kernel_release = d->str[h->kernel_release];
		ph->kernel_build_id = d->str[h->kernel_build_id];
		ph->ncpus = h->ncpus;
		ph->started_at_ns = h->started_at_ns;
		ph->duration_ns = h->duration_ns;
		ph->sample_hz = h->sample_hz;
		ph->lost = h->lost;
		ph->stacks_truncated = h->stacks_truncated;
		ph->mappings_past_limit = h->mappings_past_limit;
		ph->processes_past_limit = h->processes_past_limit;
		ph->mappings_limit = h->mappings_limit;
		ph->profiler_pid = h->profiler_pid > 0 && h->profiler_pid <= INT32_MAX ?
					   (int32_t)h->profiler_pid : 0;
		ph->tool_version = d->str[h->tool_version];
		for (size_t i = 0; i < h->n_not_read; i++) {
			const PbNotRead *nr = h->not_read[i];

			/* A damaged entry is left out: the rest of the profile stands. */
			if (!str_ok(d, nr->path) || !str_ok(d, nr->build_id) ||
			    !str_ok(d, nr->reason))
				continue;
			if (profile__add_not_read(d->p, pb->string_table[nr->path],
						  pb->string_table[nr->build_id],
						  pb->string_table[nr->reason]))
				return -ENOMEM;
		}
		for (size_t i = 0; i < h->n_stack_exits; i++) {
			const PbStackExit *se = h->stack_exits[i];
			int kind = str_ok(d, se->kind) ? stack_exit__parse(pb->string_table[se->kind]) :
							 -1;

			/* A kind this version does not know is left out. */
			if (kind >= 0)
				ph->stack_exits[kind] = se->count;
			ph->stack_exits_recorded = true;
		}
		if (q && q->header_decode) {
			struct pprof_header_in in = { h, (const char *const *)pb->string_table,
						      d->nstr };

			return q->header_decode(d->p, &in);
		}
		return 0;
	}
	ph->started_at_ns = pb->time_nanos;
	ph->duration_ns = pb->duration_nanos > 0 ? (uint64_t)pb->duration_nanos : 0;
	/* Unknown machine: one CPU keeps "share of the server's CPU" defined. */
	ph->ncpus = 1;
	if (pb->period_type && str_ok(d, pb->period_type->unit) &&
	    strcmp(pb_str(d, pb->period_type->unit), "nanoseconds") == 0 && pb->period > 0 &&
	    pb->period <= 1000000000LL)
		ph->sample_hz = (uint32_t)((1000000000LL + pb->period / 2) / pb->period);
	return 0;
}

/* A mapping's kind when the file does not say (another tool's pprof). */
