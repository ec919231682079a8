// SPDX-License-Identifier: MIT
/*
 * The locks question's analysis from hand-made profiles: its locks by address (one
 * address in two processes is two locks, a kernel lock one whoever waits), who held
 * each (the releases that ended the waits), and the waits that are not on locks
 * (condition variables, joins) left out of its answer, word for word.
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
#include "analysis/folded.h"
#include "questions/locks/locks_own.h"
#include "views/analysis_view.h"
#include "analysis/analysis_fixtures.h"
#include "profile_builder.h"

/* A thread pool idle in a condition variable waits a lot on futexes: not on locks. */
static void test_locks_leave_out_condition_variables_and_joins(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t kernel = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t cond = pb_frame(p, libc, 0x10, "pthread_cond_wait", true, LANGUAGE_C);
	uint32_t unnamed = pb_frame(p, libc, 0x20, "libc.so.6+0x20", false, LANGUAGE_C);
	uint32_t rwsem = pb_frame(p, kernel, 0x30, "rwsem_down_read_slowpath", true,
				  LANGUAGE_KERNEL);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t post = pb_frame(p, app, 0x20, "ledger_post", true, LANGUAGE_C);
	uint32_t fault = pb_frame(p, app, 0x30, "load_page", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	/* Named: a condition variable, 100 s; unnamed, by the futex operation: a mutex
	 * (FUTEX_WAIT) 2 s and a join or condition variable (FUTEX_WAIT_BITSET) 50 s. */
	add_full(p, &worker, 1, (int64_t[]){ 10, 100 * SEC, 50 * SEC }, "waiting", "futex", cond,
		 wait_orders);
	/* The same thread and place twice: the waits add up, the longest is the longest. */
	add_full(p, &gunicorn, 2, (int64_t[]){ 30, 1500 * MS, 300 * MS }, "waiting", "futex",
		 unnamed, post);
	add_full(p, &gunicorn, 2, (int64_t[]){ 10, 500 * MS, 200 * MS }, "waiting", "futex",
		 unnamed, post);
	add_full(p, &gunicorn, 3, (int64_t[]){ 5, 50 * SEC, 40 * SEC }, "waiting", "futex_bitset",
		 unnamed, wait_orders);
	/* The kernel's own locks always count. */
	add_full(p, &nginx, 4, (int64_t[]){ 3, 1 * SEC, 1 * SEC }, "waiting", "kernel rwsem", rwsem,
		 fault);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing waited 2.0 s on locks, "
			    "most of it in ledger_post. Next was Unit nginx.service, 1.0 s.");
	assert_int_equal(a->total, 3 * SEC);
	assert_int_equal(a->ngroups, 2);
	assert_int_equal(locks_group__of(&a->groups[0])->contentions, 40);
	assert_int_equal(locks_group__of(&a->groups[0])->longest, 300 * MS);
	for (size_t i = 0; i < a->nfunctions; i++)
		assert_string_not_equal(a->functions[i].name, "wait_for_orders");
	/* The folded export draws what the answer counts; pprof keeps every wait. */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		assert_int_equal(folded__write(p, f), 0);
		fclose(f);
		assert_non_null(strstr(text, "ledger_post"));
		assert_null(strstr(text, "wait_for_orders"));
		free(text);
	}
	analysis__free(a);
	profile__free(p);
}

/* A wait on the lock at addr (add_full's, with the lock's address). */
static void add_lock(struct profile *p, const struct pb_who *who, const int64_t *values,
		     const char *kind, uint64_t addr, uint32_t wait_leaf, uint32_t caller)
{
	uint32_t locs[2] = { wait_leaf, caller };
	struct prof_labels l = {
		.pid = who->pid, .tid = who->pid,
		.comm = profile__intern(p, who->comm),
		.group = profile__intern(p, who->group), .group_kind = who->kind,
		.state = profile__intern(p, "waiting"),
		.lock = addr, .lock_kind = profile__intern(p, kind),
	};
	uint32_t stack = profile__add_stack(p, locs, 2);

	assert_int_not_equal(stack, UINT32_MAX);
	assert_int_equal(profile__add_sample(p, stack, values, &l), 0);
}

/*
 * Locks by address: one address in two processes is two locks (each its own mutex); a
 * kernel lock's address is one lock whoever waits; waits that are not for a lock (a
 * condition variable) are in none. Each lock: its waits, total, longest, and its largest
 * waiters by function and by process. The document carries them, names as text.
 */
static void test_locks_by_address(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t kernel = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t cond = pb_frame(p, libc, 0x20, "pthread_cond_wait", true, LANGUAGE_C);
	uint32_t rwsem = pb_frame(p, kernel, 0x30, "rwsem_down_read_slowpath", true,
				  LANGUAGE_KERNEL);
	uint32_t post = pb_frame(p, app, 0x10, "ledger_post", true, LANGUAGE_C);
	uint32_t close_ = pb_frame(p, app, 0x20, "close_books", true, LANGUAGE_C);
	uint32_t evil = pb_frame(p, app, 0x30, "</script><script>x()", true, LANGUAGE_C);
	const uint64_t mutex = 0x55d0c0de1040, sem = 0xffff888100a0b0c0;
	struct analysis *a;
	json_t *doc, *locks, *l0;

	(void)state;
	add_lock(p, &gunicorn, (int64_t[]){ 30, 3 * SEC, 400 * MS }, "futex", mutex, lll, post);
	add_lock(p, &gunicorn, (int64_t[]){ 10, 1 * SEC, 600 * MS }, "futex", mutex, lll, close_);
	add_lock(p, &gunicorn2, (int64_t[]){ 5, 2 * SEC, 1 * SEC }, "futex", mutex, lll, evil);
	add_lock(p, &nginx, (int64_t[]){ 2, 500 * MS, 300 * MS }, "kernel rwsem", sem, rwsem, post);
	add_lock(p, &gunicorn, (int64_t[]){ 1, 100 * MS, 100 * MS }, "kernel rwsem", sem, rwsem,
		 close_);
	add_lock(p, &worker, (int64_t[]){ 9, 90 * SEC, 50 * SEC }, "futex", 0x7f0000001000, cond,
		 post);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(locks_own__of(a)->nlocks, 3);
	/* The longest total wait first: gunicorn's mutex, then gunicorn2's, then the rwsem. */
	assert_int_equal(locks_own__of(a)->locks[0].address, mutex);
	assert_int_equal(locks_own__of(a)->locks[0].pid, 4242);
	assert_string_equal(locks_own__of(a)->locks[0].kind, "futex");
	assert_int_equal(locks_own__of(a)->locks[0].contentions, 40);
	assert_int_equal(locks_own__of(a)->locks[0].wait_ns, 4 * SEC);
	assert_int_equal(locks_own__of(a)->locks[0].longest_ns, 600 * MS);
	assert_string_equal(locks_own__of(a)->locks[0].functions[0].name, "ledger_post");
	assert_int_equal(locks_own__of(a)->locks[0].functions[0].wait_ns, 3 * SEC);
	assert_string_equal(locks_own__of(a)->locks[0].functions[1].name, "close_books");
	assert_null(locks_own__of(a)->locks[0].functions[2].name);
	assert_string_equal(locks_own__of(a)->locks[0].processes[0].name, "gunicorn");
	assert_int_equal(locks_own__of(a)->locks[0].processes[0].pid, 4242);
	assert_null(locks_own__of(a)->locks[0].processes[1].name);
	assert_int_equal(locks_own__of(a)->locks[1].address, mutex);
	assert_int_equal(locks_own__of(a)->locks[1].pid, 4243);
	assert_int_equal(locks_own__of(a)->locks[2].address, sem);
	assert_int_equal(locks_own__of(a)->locks[2].pid, 0); /* the kernel's: one lock for all */
	assert_int_equal(locks_own__of(a)->locks[2].contentions, 3);
	assert_int_equal(locks_own__of(a)->locks[2].wait_ns, 600 * MS);
	assert_string_equal(locks_own__of(a)->locks[2].processes[0].name, "nginx");
	assert_string_equal(locks_own__of(a)->locks[2].processes[1].name, "gunicorn");
	assert_float_equal(locks_own__of(a)->locks[0].share, 4.0 / 6.6, 1e-9);

	doc = analysis_view__to_json(a, "x");
	assert_non_null(doc);
	locks = json_object_get(doc, "locks");
	assert_int_equal(json_array_size(locks), 3);
	l0 = json_array_get(locks, 0);
	assert_string_equal(json_string_value(json_object_get(l0, "address")), "0x55d0c0de1040");
	assert_int_equal(json_integer_value(json_object_get(l0, "pid")), 4242);
	assert_int_equal(json_integer_value(json_object_get(l0, "wait_ns")), 4 * SEC);
	assert_int_equal(json_integer_value(json_object_get(l0, "longest_ns")), 600 * MS);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(l0, "functions"), 0), "name")), "ledger_post");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(l0, "processes"), 0), "comm")), "gunicorn");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(json_array_get(locks, 1), "functions"), 0), "name")),
			    "</script><script>x()");
	assert_true(json_is_null(json_object_get(json_array_get(locks, 2), "pid")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(locks, 2), "address")),
			    "0xffff888100a0b0c0");
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/*
 * Who held the lock: the releases (futex_wake samples: the waker's stack, the waiting it
 * ended) of an address, by function, beside its waiters, and named by the answer when
 * one function made most of them. Releases count nowhere else: not in the groups, the
 * total or the contentions. A release of an address nobody counted a wait on (a
 * condition variable's) belongs to no lock; nor does one in another process.
 */
static void test_lock_holders(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t wake = pb_frame(p, libc, 0x18, "__lll_lock_wake", true, LANGUAGE_C);
	uint32_t read = pb_frame(p, app, 0x10, "read_balance", true, LANGUAGE_C);
	uint32_t apply = pb_frame(p, app, 0x20, "apply_batch", true, LANGUAGE_C);
	const uint64_t ledger = 0x55d0c0de1040;
	struct analysis *a;
	json_t *doc, *h0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add_lock(p, &gunicorn, (int64_t[]){ 40, 9 * SEC, 50 * MS }, "futex", ledger, lll, read);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 2 * SEC, 0 }, "futex_wake", ledger, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", ledger, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 200 * MS, 0 }, "futex_wake", ledger, wake, read);
	add_lock(p, &gunicorn2, (int64_t[]){ 0, 5 * SEC, 0 }, "futex_wake", ledger, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 7 * SEC, 0 }, "futex_wake", 0x7f0000001000, wake,
		 apply);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->total, 9 * SEC);
	assert_int_equal(a->ngroups, 1);
	assert_int_equal(locks_group__of(&a->groups[0])->contentions, 40);
	assert_int_equal(locks_own__of(a)->nlocks, 1);
	assert_string_equal(locks_own__of(a)->locks[0].holders[0].function, "apply_batch");
	assert_int_equal(locks_own__of(a)->locks[0].holders[0].ns, 3 * SEC);
	assert_string_equal(locks_own__of(a)->locks[0].holders[0].process, "gunicorn");
	assert_int_equal(locks_own__of(a)->locks[0].holders[0].pid, 4242);
	assert_string_equal(locks_own__of(a)->locks[0].holders[1].function, "read_balance");
	assert_null(locks_own__of(a)->locks[0].holders[2].function);
	assert_int_equal(locks_own__of(a)->locks[0].held_ns, 3200 * MS);
	assert_string_equal(a->answer, "Over 30 seconds, threads of Service billing waited 9.0 s "
				       "on locks, most of it in read_balance, waiting for "
				       "apply_batch to release the lock.");

	doc = analysis_view__to_json(a, "x");
	assert_non_null(doc);
	h0 = json_array_get(json_object_get(json_array_get(json_object_get(doc, "locks"), 0),
					    "holders"), 0);
	assert_string_equal(json_string_value(json_object_get(h0, "function")), "apply_batch");
	assert_int_equal(json_integer_value(json_object_get(h0, "ns")), 3 * SEC);
	assert_string_equal(json_string_value(json_object_get(h0, "process")), "gunicorn");
	json_decref(doc);

	f = open_memstream(&text, &len);
	analysis_view__print_report(a, f, 0);
	fclose(f);
	assert_non_null(strstr(text, "held by apply_batch in gunicorn [4242], released while "
				     "others waited 3.0 s"));
	free(text);
	analysis__free(a);
	profile__free(p);
}

/* No function made most of the releases: the answer names none. */
static void test_lock_holders_none_stands_out(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t wake = pb_frame(p, libc, 0x18, "__lll_lock_wake", true, LANGUAGE_C);
	uint32_t read = pb_frame(p, app, 0x10, "read_balance", true, LANGUAGE_C);
	uint32_t apply = pb_frame(p, app, 0x20, "apply_batch", true, LANGUAGE_C);
	uint32_t audit = pb_frame(p, app, 0x30, "audit", true, LANGUAGE_C);
	uint32_t close_ = pb_frame(p, app, 0x40, "close_books", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	add_lock(p, &gunicorn, (int64_t[]){ 40, 9 * SEC, 50 * MS }, "futex", 0x1040, lll, read);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", 0x1040, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", 0x1040, wake, audit);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", 0x1040, wake, close_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(locks_own__of(a)->locks[0].held_ns, 3 * SEC);
	assert_string_equal(a->answer, "Over 30 seconds, threads of Service billing waited 9.0 s "
				       "on locks, most of it in read_balance.");
	analysis__free(a);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locks_leave_out_condition_variables_and_joins),
		cmocka_unit_test(test_locks_by_address),
		cmocka_unit_test(test_lock_holders),
		cmocka_unit_test(test_lock_holders_none_stands_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
