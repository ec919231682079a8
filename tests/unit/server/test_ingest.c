// SPDX-License-Identifier: MIT
/*
 * What the workspace believes of an agent's profile (src/server/ingest.c): the numbers of
 * issue 28 refused (a sample count of INT64_MAX, "92233720369% of the CPU"; a start in
 * 2262; CPU time past CPUs x seconds; a thread waiting longer than the capture; a start
 * far from when the capture was asked for), the honest ones kept, the counters that only
 * describe clamped, and an agent's HTTP status kept only when it is one of the protocol's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "profile/profile.h"
#include "questions/memory/memory_owners.h"
#include "server/ingest.h"

#define S 1000000000LL
#define NOW (1796220000LL * S)

/* A cpu profile of 30 s at 99 Hz on 4 CPUs, started a minute ago: one sample per tid. */
static struct profile *cpu_profile(int64_t samples, int64_t ns, int ntids)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct prof_mapping map = { .kind = MAPPING_EXE };
	uint32_t loc, stack;

	assert_non_null(p);
	p->header.ncpus = 4;
	p->header.duration_ns = 30 * S;
	p->header.started_at_ns = NOW - 60 * S;
	p->header.sample_hz = 99;
	map.path = profile__intern(p, "/app");
	profile__add_mapping(p, &map);
	loc = profile__add_location(p, &(struct prof_location){ .address = 0x1000 });
	stack = profile__add_stack(p, &loc, 1);
	for (int t = 0; t < ntids; t++) {
		struct prof_labels lb = { .pid = 1, .tid = 100 + t };
		int64_t v[PROFILE_MAX_VALUES] = { samples, ns };

		assert_int_equal(profile__add_sample(p, stack, v, &lb), 0);
	}
	return p;
}

static struct profile *wall_profile(int64_t per_thread_ns)
{
	struct profile *p = profile__new(QUESTION_WALL);
	struct prof_mapping map = { .kind = MAPPING_EXE };
	uint32_t loc[2], stack[2];

	p->header.ncpus = 2;
	p->header.duration_ns = 10 * S;
	p->header.started_at_ns = NOW - 20 * S;
	map.path = profile__intern(p, "/app");
	profile__add_mapping(p, &map);
	for (int i = 0; i < 2; i++) {
		loc[i] = profile__add_location(p, &(struct prof_location){ .address = 0x1000 + i });
		stack[i] = profile__add_stack(p, &loc[i], 1);
	}
	/* One thread, its time split over two stacks. */
	for (int i = 0; i < 2; i++) {
		struct prof_labels lb = { .pid = 1, .tid = 7, .thread_ran_ns = 99 * S };
		int64_t v[PROFILE_MAX_VALUES] = { per_thread_ns / 2 };

		assert_int_equal(profile__add_sample(p, stack[i], v, &lb), 0);
	}
	return p;
}

static void honest_kept(void **state)
{
	struct profile *p = cpu_profile(99 * 30, 29 * S, 4);
	char why[256] = "";

	(void)state;
	assert_int_equal(ingest__check(p, NOW, NOW - 61 * S, why, sizeof(why)), 0);
	profile__free(p);
	p = wall_profile(10 * S);
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), 0);
	/* What only describes is clamped: a thread ran at most the capture and a little. */
	assert_true(p->samples[0].labels.thread_ran_ns <= 14 * S);
	profile__free(p);
}

static void counts_refused(void **state)
{
	struct profile *p = cpu_profile(INT64_MAX, 1 * S, 1);
	char why[256] = "";

	(void)state;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "samples"));
	profile__free(p);
	/* More samples than 4 CPUs take at 99 Hz in 30 s (4 x 99 x 31 x 1.25 + 1000). */
	p = cpu_profile(20000, 1 * S, 1);
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	profile__free(p);
	/* CPU time past 4 CPUs x 31 s: 4 threads of 40 s each. */
	p = cpu_profile(100, 40 * S, 4);
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "CPU time"));
	profile__free(p);
	p = cpu_profile(-1, 1, 1);
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	profile__free(p);
	/* A thread that waited 40 s in a 10 s capture. */
	p = wall_profile(40 * S);
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "thread"));
	profile__free(p);
}

static void times_refused(void **state)
{
	struct profile *p = cpu_profile(100, 1 * S, 1);
	char why[256] = "";

	(void)state;
	/* 2262: pinned at the top of the list forever, never pruned. */
	p->header.started_at_ns = INT64_MAX - 100 * S;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	p->header.started_at_ns = NOW + 11 * 60 * S;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	p->header.started_at_ns = 1000 * S; /* 1970 */
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	/* Within the skew of now: kept. */
	p->header.started_at_ns = NOW + 60 * S;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), 0);
	/* A day before the capture was asked for. */
	p->header.started_at_ns = NOW - 86400 * S;
	assert_int_equal(ingest__check(p, NOW, NOW - 60 * S, why, sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "asked"));
	/* Spooled across a restart (asked for: unknown): a day old is kept. */
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), 0);
	p->header.duration_ns = 100000 * S;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	p->header.duration_ns = 30 * S;
	p->header.ncpus = 0;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	p->header.ncpus = 100000;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	p->header.ncpus = 4;
	p->header.sample_hz = 1000000;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), -ERANGE);
	profile__free(p);
}

static void counters_clamped(void **state)
{
	struct profile *p = cpu_profile(100, 1 * S, 1);
	char why[256] = "";

	(void)state;
	p->header.lost = UINT64_MAX;
	p->header.stacks_truncated = UINT64_MAX;
	p->header.stack_exits[0] = UINT64_MAX;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), 0);
	assert_true(p->header.lost <= (1ULL << 40));
	assert_true(p->header.stacks_truncated <= (1ULL << 40));
	assert_true(p->header.stack_exits[0] <= (1ULL << 40));
	profile__free(p);
}

/* A question's own counters of the header (memory's owners) are clamped too, by its
 * plug-in. */
static void question_counters_clamped(void **state)
{
	struct profile *p = profile__new(QUESTION_MEMORY);
	struct memory_owner *om;
	char why[256] = "";

	(void)state;
	assert_non_null(p);
	p->header.ncpus = 4;
	p->header.duration_ns = 30 * S;
	p->header.started_at_ns = NOW - 60 * S;
	om = memory_owners__add(p, "Service billing", GROUP_SERVICE);
	assert_non_null(om);
	om->rss_start = om->rss_end = om->file_start = om->file_end = UINT64_MAX;
	assert_int_equal(ingest__check(p, NOW, 0, why, sizeof(why)), 0);
	assert_true(om->rss_start <= (1ULL << 40) && om->rss_end <= (1ULL << 40));
	assert_true(om->file_start <= (1ULL << 40) && om->file_end <= (1ULL << 40));
	profile__free(p);
}

static void statuses(void **state)
{
	(void)state;
	assert_int_equal(ingest__reply_status(200), 200);
	assert_int_equal(ingest__reply_status(409), 409);
	assert_int_equal(ingest__reply_status(500), 500);
	/* Chosen by the agent to mean something else to the UI's client. */
	assert_int_equal(ingest__reply_status(401), 502);
	assert_int_equal(ingest__reply_status(302), 502);
	assert_int_equal(ingest__reply_status(410), 502);
	assert_int_equal(ingest__reply_status(299), 502);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(honest_kept),
		cmocka_unit_test(counts_refused),
		cmocka_unit_test(times_refused),
		cmocka_unit_test(counters_clamped),
		cmocka_unit_test(question_counters_clamped),
		cmocka_unit_test(statuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
