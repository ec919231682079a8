// SPDX-License-Identifier: MIT
/* What the workspace believes of a profile an agent sent (ingest.h). */
#include "server/ingest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"
#include "questions/question.h"

/* Counters that only describe: clamped here. */
#define COUNTER_MAX (1ULL << 40)
/* What one value may be at all, so that sums of 512K of them cannot overflow. */
#define VALUE_MAX (1LL << 42)
/* Slack on what adds up: a tick late, a switch counted on both sides. */
#define SLACK_NUM 5
#define SLACK_DEN 4

static const struct pprof_limits limits = {
	.unpack_bytes = INGEST_UNPACK_MAX,
	.mappings = INGEST_MAPPINGS_MAX,
	.locations = INGEST_LOCATIONS_MAX,
	.functions = INGEST_FUNCTIONS_MAX,
	.samples = INGEST_SAMPLES_MAX,
	.stack_locations = INGEST_STACK_LOCATIONS_MAX,
	.strings = INGEST_STRINGS_MAX,
	.string_bytes = INGEST_STRING_BYTES_MAX,
};

struct pprof_limits ingest__pprof_limits(struct pb_pool *pool)
{
	struct pprof_limits l = limits;

	l.pool = pool;
	return l;
}

__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t size,
							 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -ERANGE;
}

static uint64_t clamp(uint64_t v, uint64_t max)
{
	return v < max ? v : max;
}

struct per_thread {
	int32_t tid;
	int64_t value;
};

static int by_tid(const void *a, const void *b)
{
	const struct per_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The most value col adds up to for one thread (its tid); -ENOMEM. */
static int64_t most_per_thread(const struct profile *p, uint32_t col)
{
	struct per_thread *t = calloc(p->nsamples ? p->nsamples : 1, sizeof(*t));
	int64_t most = 0, sum = 0;

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++)
		t[i] = (struct per_thread){ p->samples[i].labels.tid, p->samples[i].values[col] };
	qsort(t, p->nsamples, sizeof(*t), by_tid);
	for (uint32_t i = 0; i < p->nsamples; i++) {
		sum = i && t[i].tid == t[i - 1].tid ? sum + t[i].value : t[i].value;
		if (sum > most)
			most = sum;
	}
	free(t);
	return most;
}

static int64_t total(const struct profile *p, uint32_t col)
{
	int64_t sum = 0;

	for (uint32_t i = 0; i < p->nsamples; i++)
		sum += p->samples[i].values[col];
	return sum;
}

/* The times of the header: within the epoch and now (and the capture's window). */
static int check_times(const struct prof_header *h, int64_t now_ns, int64_t asked_at_ns,
		       char *why, size_t size)
{
	if (h->duration_ns > INGEST_DURATION_MAX_NS)
		return refuse(why, size, "it lasts %llu s, longer than a capture may (%lld s)",
			      (unsigned long long)(h->duration_ns / 1000000000ULL),
			      INGEST_DURATION_MAX_NS / 1000000000LL);
	if (h->started_at_ns < INGEST_EPOCH_NS ||
	    h->started_at_ns + (int64_t)h->duration_ns > now_ns + INGEST_SKEW_NS)
		return refuse(why, size, "it says it started at %lld s of the Unix epoch, which is"
			      " before 2020 or after now on this workspace's clock (with %lld s of"
			      " skew allowed)", (long long)(h->started_at_ns / 1000000000LL),
			      INGEST_SKEW_NS / 1000000000LL);
	if (asked_at_ns && (h->started_at_ns < asked_at_ns - INGEST_SKEW_NS ||
			    h->started_at_ns > asked_at_ns + INGEST_SKEW_NS))
		return refuse(why, size, "it says it started %lld s from when the workspace asked"
			      " for it, more than the %lld s of clock skew allowed",
			      (long long)((h->started_at_ns - asked_at_ns) / 1000000000LL),
			      INGEST_SKEW_NS / 1000000000LL);
	return 0;
}

/* What its values add up to, against what a capture of its length could hold. */
static int check_values(const struct profile *p, char *why, size_t size)
{
	const struct prof_header *h = &p->header;
	int64_t span = ((int64_t)h->duration_ns + 1000000000LL) * SLACK_NUM / SLACK_DEN;
	int64_t most;

	for (uint32_t i = 0; i < p->nsamples; i++)
		for (uint32_t c = 0; c < p->nvalues; c++)
			if (p->samples[i].values[c] < 0 || p->samples[i].values[c] > VALUE_MAX)
				return refuse(why, size, "a sample's %s is %lld",
					      profile__str(p, p->value_types[c].type),
					      (long long)p->samples[i].values[c]);
	for (uint32_t c = 0; c < p->nvalues; c++) {
		const char *name = profile__str(p, p->value_types[c].type);
		unsigned long long seconds = h->duration_ns / 1000000000ULL;

		switch (question__value_bound(h->question, c)) {
		case VALUE_BOUND_NONE:
			break;
		case VALUE_BOUND_TICKS:
			/* CPUs x rate x seconds. */
			most = (int64_t)h->ncpus * (h->sample_hz ? h->sample_hz : INGEST_HZ_MAX) *
			       ((int64_t)seconds + 1) * SLACK_NUM / SLACK_DEN + 1000;
			if (total(p, c) > most)
				return refuse(why, size, "its %lld %s are more than %u CPUs take at"
					      " %u Hz in %llu s", (long long)total(p, c), name,
					      h->ncpus, h->sample_hz, seconds);
			break;
		case VALUE_BOUND_CPU_TIME:
			if (total(p, c) > (int64_t)h->ncpus * span)
				return refuse(why, size, "its %lld ns of CPU time are more than %u CPUs"
					      " have in %llu s", (long long)total(p, c), h->ncpus,
					      seconds);
			break;
		case VALUE_BOUND_THREAD_TIME:
			most = most_per_thread(p, c);
			if (most < 0)
				return refuse(why, size, "out of memory");
			if (most > span)
				return refuse(why, size, "a thread's %s adds up to %lld ns, longer"
					      " than the capture's %llu ns", name, (long long)most,
					      (unsigned long long)h->duration_ns);
			break;
		case VALUE_BOUND_SAMPLE_TIME:
			for (uint32_t i = 0; i < p->nsamples; i++)
				if (p->samples[i].values[c] > span)
					return refuse(why, size, "a sample's %s of %lld ns, longer"
						      " than the capture", name,
						      (long long)p->samples[i].values[c]);
			break;
		}
	}
	return 0;
}

int ingest__check(struct profile *p, int64_t now_ns, int64_t asked_at_ns, char *why,
		  size_t size)
{
	struct prof_header *h = &p->header;
	int64_t span;
	int err;

	if (h->ncpus < 1 || h->ncpus > INGEST_NCPUS_MAX)
		return refuse(why, size, "it says its server has %u CPUs (1 to %d)", h->ncpus,
			      INGEST_NCPUS_MAX);
	if (h->sample_hz > INGEST_HZ_MAX)
		return refuse(why, size, "it says it sampled at %u Hz (at most %d)", h->sample_hz,
			      INGEST_HZ_MAX);
	err = check_times(h, now_ns, asked_at_ns, why, size);
	if (!err)
		err = check_values(p, why, size);
	if (err)
		return err;
	/* What only describes the capture: clamped, not refused. */
	span = ((int64_t)h->duration_ns + 1000000000LL) * SLACK_NUM / SLACK_DEN;
	h->lost = clamp(h->lost, COUNTER_MAX);
	h->stacks_truncated = clamp(h->stacks_truncated, COUNTER_MAX);
	for (int i = 0; i < STACK_EXIT__COUNT; i++)
		h->stack_exits[i] = clamp(h->stack_exits[i], COUNTER_MAX);
	if (h->own) {
		const struct question_plugin *q = question__get(h->question);

		if (q && q->header_clamp)
			q->header_clamp(p, COUNTER_MAX);
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		int64_t *ran = &p->samples[i].labels.thread_ran_ns;

		*ran = *ran < 0 ? 0 : *ran > span ? span : *ran;
	}
	return 0;
}

int ingest__reply_status(uint32_t status)
{
	/* What the agent answers a command with (docs/protocol.md, Commands): the API's own
	 * statuses for check, top, a capture and Remove the profiler. */
	static const uint32_t known[] = { 200, 400, 404, 409, 500, 501, 503, 507 };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (status == known[i])
			return (int)status;
	return 502;
}
