// SPDX-License-Identifier: MIT
/*
 * The answers of the questions besides CPU, from hand-made profiles: wall (threads that
 * ran, why they waited), threads (the largest set waiting in one place), locks' answer
 * (its locks by address, holders and what it leaves out are
 * tests/unit/questions/locks/test_locks_analysis.c) and memory (net growth, owners'),
 * word for word; and the answer templates and number formats they are written with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "views/analysis_view.h"
#include "analysis/answer.h"
#include "questions/cpu/cpu_answer.h"
#include "questions/locks/locks_answer.h"
#include "questions/memory/memory_answer.h"
#include "questions/memory/memory_own.h"
#include "questions/memory/memory_owners.h"
#include "questions/threads/threads_answer.h"
#include "questions/threads/threads_own.h"
#include "questions/wall/wall_answer.h"
#include "questions/wall/wall_own.h"
#include "analysis/folded.h"
#include "util/format.h"
#include "analysis_fixtures.h"
#include "profile_builder.h"

/* Threads that barely run do not rank however long they wait, the profiler's own never
 * does (it stays a row of System), and the answer says why its group waited. */
static void test_wall_answer_ranks_threads_that_ran_and_says_why_they_waited(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 30 * SEC);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t poller = pb_mapping(p, "/opt/poller/poller", "ee", MAPPING_EXE, true);
	uint32_t self = pb_mapping(p, "/opt/slideops/slideops", "ff", MAPPING_EXE, true);
	uint32_t schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	uint32_t smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true,
				    LANGUAGE_KERNEL);
	uint32_t price = pb_frame(p, app, 0x20, "price_orders", true, LANGUAGE_C);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t poll_queue = pb_frame(p, poller, 0x10, "poll_queue", true, LANGUAGE_C);
	uint32_t pipeline = pb_frame(p, self, 0x10, "pipeline__run", true, LANGUAGE_C);
	struct pb_who run = { "Service billing", GROUP_SERVICE, 4242, "billing", "running" };
	struct pb_who crowded = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting",
				  "runqueue" };
	struct pb_who napping = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting",
				  "sleep" };
	struct pb_who prun = { "Unit poller.service", GROUP_UNIT, 700, "poller", "running" };
	struct pb_who pwait = { "Unit poller.service", GROUP_UNIT, 700, "poller", "waiting",
				"other" };
	struct pb_who srun = { "System", GROUP_SYSTEM, 999, "slideops", "running" };
	struct pb_who swait = { "System", GROUP_SYSTEM, 999, "slideops", "waiting", "other" };
	struct pb_who kwait = { "System", GROUP_SYSTEM, 10, "ksoftirqd/0", "waiting", "other" };
	const struct analysis_group *sys;
	struct analysis *a;

	(void)state;
	p->header.profiler_pid = 999;
	pb_sample(p, &run, 2 * SEC, 4242, 2, price, wait_orders);
	pb_sample(p, &crowded, 15 * SEC, 4242, 2, schedule, wait_orders);
	pb_sample(p, &napping, 5 * SEC, 4242, 2, schedule, wait_orders);
	/* 40 pollers waiting the whole capture, each running 20 ms: under 0.1% of 30 s. */
	for (int t = 0; t < 40; t++) {
		pb_sample(p, &prun, 20 * MS, 700 + t, 1, poll_queue);
		pb_sample(p, &pwait, 30 * SEC, 700 + t, 2, schedule, poll_queue);
	}
	/* The profiler runs a lot, and waits the whole capture. */
	pb_sample(p, &srun, 5 * SEC, 999, 1, pipeline);
	pb_sample(p, &swait, 25 * SEC, 999, 2, schedule, pipeline);
	pb_sample(p, &kwait, 30 * SEC, 10, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing spent 2.0 s running and "
			    "20.0 s waiting, 15.0 s of it for a CPU, most of the waiting in "
			    "wait_for_orders.");
	/* Everything still counts in the totals; the profiler is a row of System. */
	assert_int_equal(wall_group__of(find_group(a, "Unit poller.service"))->waiting, 40 * 30 * SEC);
	sys = find_group(a, "System");
	assert_int_equal(wall_group__of(sys)->running, 5 * SEC);
	assert_int_equal(sys->nprocesses, 2);
	assert_int_equal(wall_group__of(sys)->waiting_by_reason[4], 55 * SEC);
	assert_string_not_equal(sys->top_function, "pipeline__run");
	assert_int_equal(wall_own__waiting_by_reason(a)[0], 15 * SEC);
	assert_int_equal(wall_own__waiting_by_reason(a)[3], 5 * SEC);
	analysis__free(a);
	profile__free(p);
}

static void test_wall_answer_is_not_swamped_by_idle_kernel_threads(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 30 * SEC);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	uint32_t smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true,
				    LANGUAGE_KERNEL);
	uint32_t futex = pb_frame(p, libc, 0x10, "__futex_abstimed_wait_common", true,
				  LANGUAGE_C);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t compute = pb_frame(p, app, 0x20, "price_orders", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct pb_who run = { "Service billing", GROUP_SERVICE, 4242, "billing", "running" };
	struct pb_who wait = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting" };
	struct pb_who nrun = { "Unit nginx.service", GROUP_UNIT, 800, "nginx", "running" };
	struct pb_who nwait = { "Unit nginx.service", GROUP_UNIT, 800, "nginx", "waiting" };
	struct pb_who kwait = { "System", GROUP_SYSTEM, 10, "ksoftirqd/0", "waiting" };
	struct analysis *a;

	(void)state;
	pb_sample(p, &run, 3 * SEC, 4242, 2, compute, main_);
	pb_sample(p, &wait, 7 * SEC, 4242, 4, schedule, futex, wait_orders, main_);
	pb_sample(p, &wait, 2 * SEC, 4243, 2, schedule, main_);
	pb_sample(p, &nrun, 1 * SEC, 800, 1, main_);
	pb_sample(p, &nwait, 2500 * MS, 800, 1, schedule);
	/* Sixty kernel threads asleep for the whole capture: 1800 s of waiting. */
	for (int t = 0; t < 60; t++)
		pb_sample(p, &kwait, 30 * SEC, 10 + t, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing spent 3.0 s running and "
			    "9.0 s waiting, most of the waiting in wait_for_orders. Next was Unit "
			    "nginx.service, 1.0 s running and 2.5 s waiting.");
	/* The table itself keeps every group's real share of the profile. */
	assert_string_equal(a->groups[0].label, "System");
	analysis__free(a);
	profile__free(p);
}

static void test_threads_answer_names_the_largest_set_waiting_in_one_place(void **state)
{
	struct profile *p = pb_new(QUESTION_THREADS, 2, 0);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	uint32_t smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true,
				    LANGUAGE_KERNEL);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t accept_ = pb_frame(p, app, 0x20, "accept_loop", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct pb_who run = { "Service billing", GROUP_SERVICE, 4242, "billing", "running" };
	struct pb_who wait = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting" };
	struct pb_who kwait = { "System", GROUP_SYSTEM, 10, "ksoftirqd/0", "waiting" };
	struct analysis *a;

	(void)state;
	pb_sample(p, &run, 1, 4242, 1, main_);
	for (int t = 0; t < 6; t++)
		pb_sample(p, &wait, 1, 4250 + t, 3, schedule, wait_orders, main_);
	pb_sample(p, &wait, 1, 4260, 3, schedule, accept_, main_);
	for (int t = 0; t < 20; t++)
		pb_sample(p, &kwait, 1, 10 + t, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "This server had 28 threads: 1 running and 27 waiting. The largest "
			    "set waiting in the same place was 6 threads of Service billing in "
			    "wait_for_orders.");
	analysis__free(a);
	profile__free(p);

	/* Only kernel threads wait: then they are the answer. One thread is singular. */
	p = pb_new(QUESTION_THREADS, 2, 0);
	k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true, LANGUAGE_KERNEL);
	for (int t = 0; t < 3; t++)
		pb_sample(p, &kwait, 1, 10 + t, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "This server had 3 threads: 0 running and 3 waiting. The largest set "
			    "waiting in the same place was 3 threads of System in schedule.");
	analysis__free(a);
	profile__free(p);

	{
		char *s = threads_answer__sentence(&(struct threads_answer){ 1, 1, 0, 0, NULL, NULL });

		assert_string_equal(s, "This server had 1 thread: 1 running and 0 waiting.");
		free(s);
	}
}

static void test_locks_answer(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t post = pb_frame(p, app, 0x10, "ledger_post", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	pb_sample(p, &gunicorn, 12400 * MS, 4242, 3, lll, post, main_);
	pb_sample(p, &nginx, 300 * MS, 800, 2, lll, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing waited 12.4 s on locks, "
			    "most of it in ledger_post. Next was Unit nginx.service, 0.3 s.");
	assert_float_equal(a->groups[0].share, 12.4 / 12.7, 1e-9); /* of the profile */
	analysis__free(a);
	profile__free(p);
}

static void test_memory_answer(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t memset_ = pb_frame(p, libc, 0x10, "memset", true, LANGUAGE_C);
	uint32_t load = pb_frame(p, app, 0x10, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	pb_sample(p, &gunicorn, 212LL << 20, 4242, 3, memset_, load, main_);
	pb_sample(p, &nginx, 3LL << 20, 800, 2, memset_, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Service billing grew by 212 MB, most of "
				       "it in load_dataset. Next was Unit nginx.service, 3 MB.");
	analysis__free(a);
	profile__free(p);
}


/* A sample with all its values and the labels pb_sample leaves out. */
/* What grew and was given back is not growth: the answer is the net. */
static void test_memory_answer_is_net_growth(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t churn = pb_frame(p, app, 0x10, "churn_buffers", true, LANGUAGE_C);
	uint32_t load = pb_frame(p, app, 0x20, "load_dataset", true, LANGUAGE_C);
	uint32_t map = pb_frame(p, app, 0x30, "map_file", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x40, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	/* billing grew 500 MB and gave 498 MB back; nginx grew 20 MB, and read 64 MB of files. */
	add_full(p, &gunicorn, 1, (int64_t[]){ 500LL << 20, 0, 0 }, NULL, NULL, churn, main_);
	add_full(p, &gunicorn, 1, (int64_t[]){ 0, 0, 498LL << 20 }, NULL, NULL, churn, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 20LL << 20, 0, 0 }, NULL, NULL, load, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 0, 64LL << 20, 0 }, NULL, NULL, map, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Unit nginx.service grew by 20 MB, most "
				       "of it in load_dataset. Next was Service billing, 2 MB.");
	assert_string_equal(a->groups[0].label, "Service billing"); /* by what grew */
	assert_int_equal(memory_group__of(&a->groups[0])->net_bytes, 2LL << 20);
	assert_int_equal(memory_group__of(&a->groups[1])->file_bytes, 64LL << 20);
	analysis__free(a);
	profile__free(p);
}

/* An owner's resident memory from start to end leads the answer, whatever its stacks: a
 * leak through many stacks reads as the owner's growth. An owner whose memory changed
 * without a sample is a group of its own. */
static void test_memory_answer_leads_with_owner_growth(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t leak = pb_frame(p, app, 0x10, "leak_cache", true, LANGUAGE_C);
	uint32_t fill = pb_frame(p, app, 0x20, "fill_index", true, LANGUAGE_C);
	uint32_t load = pb_frame(p, app, 0x30, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x40, "main", true, LANGUAGE_C);
	struct memory_owner *billing, *ng, *redis;
	const struct analysis_group *gone = NULL;
	const struct memory_growth *gone_growth;
	struct analysis *a;
	json_t *doc, *g;

	(void)state;
	/* billing's stacks saw 120 MB grow, nginx's 300 MB (its workers gave it back by
	 * exiting: they are no stack's frees); by their resident memory billing grew by
	 * 212 MB, nginx by 12 MB, and redis, unsampled, shrank by 40 MB. */
	add_full(p, &gunicorn, 1, (int64_t[]){ 70LL << 20, 0, 0 }, NULL, NULL, leak, main_);
	add_full(p, &gunicorn, 1, (int64_t[]){ 50LL << 20, 0, 0 }, NULL, NULL, fill, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 300LL << 20, 0, 0 }, NULL, NULL, load, main_);
	billing = memory_owners__add(p, "Service billing", GROUP_SERVICE);
	assert_non_null(billing);
	*billing = (struct memory_owner){ billing->group, GROUP_SERVICE, 100LL << 20,
					       312LL << 20, 8LL << 20, 11LL << 20, 0, 0 };
	ng = memory_owners__add(p, "Unit nginx.service", GROUP_UNIT);
	assert_non_null(ng);
	*ng = (struct memory_owner){ ng->group, GROUP_UNIT, 40LL << 20, 52LL << 20, 0, 0,
					  1, 3 };
	redis = memory_owners__add(p, "Container redis", GROUP_CONTAINER);
	assert_non_null(redis);
	*redis = (struct memory_owner){ redis->group, GROUP_CONTAINER, 40LL << 20, 0,
					     1LL << 20, 0, 0, 1 };
	assert_ptr_equal(memory_owners__add(p, "Service billing", GROUP_SERVICE), billing);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Service billing grew by 212 MB (RSS), "
				       "most of it allocated in leak_cache. Next was Unit "
				       "nginx.service, 12 MB.");
	assert_int_equal(a->ngroups, 3);
	for (size_t i = 0; i < a->ngroups; i++)
		if (strcmp(a->groups[i].label, "Container redis") == 0)
			gone = &a->groups[i];
	assert_non_null(gone);
	assert_string_equal(gone->name, "redis");
	assert_int_equal(gone->value, 0);
	gone_growth = memory_group__growth(gone);
	assert_non_null(gone_growth);
	assert_int_equal(gone_growth->rss_grown, -(40LL << 20));
	assert_int_equal(gone_growth->file_grown, -(1LL << 20));
	assert_int_equal(gone_growth->processes_exited, 1);

	doc = analysis_view__to_json(a, NULL);
	assert_non_null(doc);
	g = json_array_get(json_object_get(doc, "groups"), 1); /* by the stacks: billing 2nd */
	assert_string_equal(json_string_value(json_object_get(g, "label")), "Service billing");
	assert_int_equal(json_integer_value(json_object_get(g, "rss_start_bytes")), 100LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "rss_grown_bytes")), 212LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "file_start_bytes")), 8LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "file_grown_bytes")), 3LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "processes_started")), 0);
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/* An older profile, or one where no owner grew: the answer by the stacks, as before. */
static void test_memory_answer_without_owner_growth(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t load = pb_frame(p, app, 0x20, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x40, "main", true, LANGUAGE_C);
	struct memory_owner *om;
	struct analysis *a;
	json_t *doc;

	(void)state;
	add_full(p, &nginx, 2, (int64_t[]){ 20LL << 20, 0, 0 }, NULL, NULL, load, main_);
	om = memory_owners__add(p, "Unit nginx.service", GROUP_UNIT);
	assert_non_null(om);
	om->rss_start = om->rss_end = 40LL << 20;
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Unit nginx.service grew by 20 MB, most "
				       "of it in load_dataset.");
	analysis__free(a);
	/* Without the header's owners: no growth fields at all. */
	memory_owners__of(p)->n = 0;
	a = analysis__new(p);
	assert_non_null(a);
	assert_null(memory_group__growth(&a->groups[0]));
	doc = analysis_view__to_json(a, NULL);
	assert_non_null(doc);
	assert_null(json_object_get(json_array_get(json_object_get(doc, "groups"), 0),
				    "rss_grown_bytes"));
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/* wall: threads that never ran are kept but out of the groups and the answer. */
static void test_wall_leaves_out_threads_that_never_ran(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t recv_ = pb_frame(p, app, 0x10, "read_request", true, LANGUAGE_C);
	uint32_t pool = pb_frame(p, app, 0x20, "pool_wait", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	add_full(p, &nginx, 2, (int64_t[]){ 1 * SEC }, "running", NULL, recv_, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 29 * SEC }, "waiting", NULL, recv_, main_);
	for (int t = 0; t < 40; t++)
		add_full(p, &gunicorn, 100 + t, (int64_t[]){ 30 * SEC }, "idle", NULL, pool, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, threads of Unit nginx.service spent "
				       "1.0 s running and 29.0 s waiting, most of the waiting in "
				       "read_request.");
	assert_int_equal(a->ngroups, 1);
	assert_int_equal(wall_group__of(&a->groups[0])->running, 1 * SEC);
	assert_int_equal(wall_group__of(&a->groups[0])->waiting, 29 * SEC);
	assert_int_equal(p->nsamples, 42); /* kept in the profile */
	analysis__free(a);
	profile__free(p);
}

/* threads: threads of one group in the same place with the same stack are one set. */
static void test_thread_sets(void **state)
{
	struct profile *p = pb_new(QUESTION_THREADS, 2, 0);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	for (int t = 0; t < 6; t++)
		add_full(p, &gunicorn, 10 + t, (int64_t[]){ 1 }, "waiting", NULL, orders, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 1 }, "running", NULL, main_, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(threads_own__of(a)->nsets, 2);
	assert_int_equal(threads_own__of(a)->sets[0].threads, 6);
	assert_string_equal(threads_own__of(a)->sets[0].group, "Service billing");
	assert_string_equal(threads_own__of(a)->sets[0].state, "waiting");
	assert_int_equal(threads_own__of(a)->sets[1].threads, 1);
	assert_int_equal(threads_group__of(&a->groups[0])->waiting, 6);
	analysis__free(a);
	profile__free(p);
}

static void test_answer_templates_directly(void **state)
{
	struct answer_group billing = { .label = "Service billing", .share = 0.54,
				       .where = "build_report" };
	struct answer_group nginx_ = { .label = "Unit nginx.service", .share = 0.004 };
	char *s;

	(void)state;
	s = cpu_answer__sentence(29600 * MS, &billing, &nginx_);
	assert_string_equal(s, "Over 30 seconds, Service billing used 54% of the CPU time on "
			       "this server, most of it in build_report. Next was Unit "
			       "nginx.service, at <1%.");
	free(s);
	s = cpu_answer__sentence(2 * SEC, NULL, NULL);
	assert_string_equal(s, "Over 2 seconds, no process used the CPU on this server: the "
			       "profile has no samples.");
	free(s);
	s = wall_answer__sentence(30 * SEC, NULL, NULL);
	assert_string_equal(s, "Over 30 seconds, no thread was seen running or waiting: the "
			       "profile has no samples.");
	free(s);
	s = locks_answer__sentence(1 * SEC, NULL, NULL);
	assert_string_equal(s, "Over 1 second, no thread waited on a lock: the profile has no "
			       "samples.");
	free(s);
	s = threads_answer__sentence(&(struct threads_answer){ 0 });
	assert_string_equal(s, "No threads were seen on this server: the profile has no samples.");
	free(s);
	billing.value = 40 * MS;
	s = locks_answer__sentence(30 * SEC, &billing, NULL);
	assert_string_equal(s, "Over 30 seconds, threads of Service billing waited 40 ms on "
			       "locks, most of it in build_report.");
	free(s);
	billing.value = 1536LL << 20;
	s = memory_answer__sentence(30 * SEC, &billing, NULL);
	assert_string_equal(s, "Over 30 seconds, Service billing grew by 1.5 GB, most of it in "
			       "build_report.");
	free(s);
}

static void test_number_formats(void **state)
{
	char b[FORMAT_MAX];

	(void)state;
	format_percent(0.0, b, sizeof(b));
	assert_string_equal(b, "0%");
	format_percent(0.0049, b, sizeof(b));
	assert_string_equal(b, "<1%");
	format_percent(0.015, b, sizeof(b));
	assert_string_equal(b, "2%");
	format_percent(1.0, b, sizeof(b));
	assert_string_equal(b, "100%");
	format_duration(499 * MS, b, sizeof(b));
	assert_string_equal(b, "0 seconds");
	format_duration(1499 * MS, b, sizeof(b));
	assert_string_equal(b, "1 second");
	format_duration(1500 * MS, b, sizeof(b));
	assert_string_equal(b, "2 seconds");
	format_seconds(12440 * MS, b, sizeof(b));
	assert_string_equal(b, "12.4 s");
	format_seconds(312 * SEC, b, sizeof(b));
	assert_string_equal(b, "312 s");
	format_seconds(45 * MS, b, sizeof(b));
	assert_string_equal(b, "45 ms");
	format_seconds(1000, b, sizeof(b));
	assert_string_equal(b, "<1 ms");
	format_bytes(512, b, sizeof(b));
	assert_string_equal(b, "512 bytes");
	format_bytes(3 << 10, b, sizeof(b));
	assert_string_equal(b, "3 kB");
	format_points(-0.031, b, sizeof(b));
	assert_string_equal(b, "-3");
	format_points(0.16, b, sizeof(b));
	assert_string_equal(b, "+16");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_answer_is_not_swamped_by_idle_kernel_threads),
		cmocka_unit_test(test_wall_answer_ranks_threads_that_ran_and_says_why_they_waited),
		cmocka_unit_test(test_threads_answer_names_the_largest_set_waiting_in_one_place),
		cmocka_unit_test(test_locks_answer),
		cmocka_unit_test(test_memory_answer),
		cmocka_unit_test(test_memory_answer_is_net_growth),
		cmocka_unit_test(test_memory_answer_leads_with_owner_growth),
		cmocka_unit_test(test_memory_answer_without_owner_growth),
		cmocka_unit_test(test_wall_leaves_out_threads_that_never_ran),
		cmocka_unit_test(test_thread_sets),
		cmocka_unit_test(test_answer_templates_directly),
		cmocka_unit_test(test_number_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
