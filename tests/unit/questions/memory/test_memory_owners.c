// SPDX-License-Identifier: MIT
/*
 * memory: each owner's resident memory summed from two snapshots of every process, the
 * capture's start and its end. A process gone by the end shrank to 0 and exited; one new
 * at the end grew from 0 and started; a pid reused is another process; one that changed
 * owners counts in each at its end. And /proc/PID/status's lines as the kernel writes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/proc.h"
#include "profile/profile.h"
#include "questions/memory/memory_owners.h"

#define MB (1ull << 20)

static void add(struct profile *p, struct memory_snapshot *s, int pid, uint64_t start_ticks,
		const char *label, enum group_kind kind, uint64_t rss, uint64_t file)
{
	struct memory_process proc = { pid, start_ticks, rss, file, profile__intern(p, label),
				       kind };

	assert_int_equal(memory_snapshot__add(s, &proc), 0);
}

/* How many owners p's header has. */
static uint32_t nowners(const struct profile *p)
{
	const struct memory_owners *o = memory_owners__of(p);

	return o ? o->n : 0;
}

static const struct memory_owner *owner(const struct profile *p, const char *label)
{
	const struct memory_owners *o = memory_owners__of(p);

	for (uint32_t i = 0; o && i < o->n; i++)
		if (strcmp(profile__str(p, o->owners[i].group), label) == 0)
			return &o->owners[i];
	fail_msg("no owner %s", label);
	return NULL;
}

static void test_sums_per_owner_with_starts_and_exits(void **state)
{
	struct profile *p = profile__new(QUESTION_MEMORY);
	struct memory_snapshot start = { 0 }, end = { 0 };
	const struct memory_owner *billing, *nginx, *other, *cron;

	(void)state;
	/* billing: two workers, one grew 200 MB and a new one 12 MB; nginx: one worker
	 * exited (pid 801), pid 802 was reused by another process; cron moved to another
	 * owner; the snapshots come in no order. */
	add(p, &start, 4243, 50, "Service billing", GROUP_SERVICE, 60 * MB, 2 * MB);
	add(p, &start, 4242, 50, "Service billing", GROUP_SERVICE, 40 * MB, 6 * MB);
	add(p, &start, 801, 10, "Unit nginx.service", GROUP_UNIT, 30 * MB, 1 * MB);
	add(p, &start, 802, 10, "Unit nginx.service", GROUP_UNIT, 20 * MB, 1 * MB);
	add(p, &start, 900, 70, "Other processes", GROUP_OTHER, 5 * MB, 0);
	add(p, &end, 4300, 99, "Service billing", GROUP_SERVICE, 12 * MB, 0);
	add(p, &end, 4242, 50, "Service billing", GROUP_SERVICE, 240 * MB, 9 * MB);
	add(p, &end, 4243, 50, "Service billing", GROUP_SERVICE, 60 * MB, 2 * MB);
	add(p, &end, 802, 95, "Unit nginx.service", GROUP_UNIT, 8 * MB, 3 * MB);
	add(p, &end, 900, 70, "Unit cron.service", GROUP_UNIT, 7 * MB, 0);
	start.complete = end.complete = true;
	assert_int_equal(memory_owners__sum(p, &start, &end), 0);

	assert_int_equal(nowners(p), 4);
	billing = owner(p, "Service billing");
	assert_int_equal(billing->kind, GROUP_SERVICE);
	assert_int_equal(billing->rss_start, 100 * MB);
	assert_int_equal(billing->rss_end, 312 * MB);
	assert_int_equal(billing->file_start, 8 * MB);
	assert_int_equal(billing->file_end, 11 * MB);
	assert_int_equal(billing->started, 1);
	assert_int_equal(billing->exited, 0);
	nginx = owner(p, "Unit nginx.service");
	assert_int_equal(nginx->rss_start, 50 * MB);
	assert_int_equal(nginx->rss_end, 8 * MB);
	assert_int_equal(nginx->file_end, 3 * MB);
	assert_int_equal(nginx->started, 1); /* 802 again, started at 95: another process */
	assert_int_equal(nginx->exited, 2);
	other = owner(p, "Other processes");
	assert_int_equal(other->rss_start, 5 * MB);
	assert_int_equal(other->rss_end, 0);
	assert_int_equal(other->exited + other->started, 0); /* it moved: it did not exit */
	cron = owner(p, "Unit cron.service");
	assert_int_equal(cron->kind, GROUP_UNIT);
	assert_int_equal(cron->rss_start, 0);
	assert_int_equal(cron->rss_end, 7 * MB);
	assert_int_equal(cron->started, 0);
	memory_snapshot__free(&start);
	memory_snapshot__free(&end);
	profile__free(p);
}

static void test_empty_snapshots_sum_to_nothing(void **state)
{
	struct profile *p = profile__new(QUESTION_MEMORY);
	struct memory_snapshot start = { 0 }, end = { 0 };

	(void)state;
	assert_int_equal(memory_owners__sum(p, &start, &end), 0);
	assert_int_equal(nowners(p), 0);
	profile__free(p);
}

static void test_status_lines(void **state)
{
	static const char status[] =
		"Name:\tbilling\nUmask:\t0022\nState:\tS (sleeping)\nVmRSS:\t  218340 kB\n"
		"RssAnon:\t  200000 kB\nRssFile:\t   18000 kB\nRssShmem:\t     340 kB\n"
		"VmData:\t  400000 kB\nThreads:\t4\n";
	/* A kernel thread's status has no memory lines. */
	static const char kthread[] = "Name:\tkworker/0:1\nState:\tI (idle)\nThreads:\t1\n";
	uint64_t anon = 1, file = 1;

	(void)state;
	assert_int_equal(proc__parse_rss(status, &anon, &file), 0);
	assert_int_equal(anon, (200000ull + 340) << 10);
	assert_int_equal(file, 18000ull << 10);
	assert_int_equal(proc__parse_rss(kthread, &anon, &file), -ENODATA);
	/* RssAnonymous is not RssAnon; a line without its number is not read. */
	assert_int_equal(proc__parse_rss("RssAnonymous:\t1 kB\nRssFile:\t1 kB\nRssShmem:\t0 kB\n",
					 &anon, &file), -ENODATA);
	assert_int_equal(proc__parse_rss("RssAnon:\nRssFile:\t1 kB\nRssShmem:\t0 kB", &anon,
					 &file), -ENODATA);
	/* This process, read from /proc: it has memory of its own. */
	assert_int_equal(proc__read_rss("/proc", getpid(), &anon, &file), 0);
	assert_true(anon > 0 && file > 0);
	assert_int_equal(proc__read_rss("/proc", 0x7ffffff0, &anon, &file), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_per_owner_with_starts_and_exits),
		cmocka_unit_test(test_empty_snapshots_sum_to_nothing),
		cmocka_unit_test(test_status_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
