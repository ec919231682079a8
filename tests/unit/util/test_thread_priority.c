// SPDX-License-Identifier: MIT
/*
 * A capture's thread raised ahead of the machine's work and set back after: on this
 * thread only, inherited by the threads it starts, never lowered by a raise, and left as
 * it was when the process may not raise itself (a test run without root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/thread_priority.h"

static int nice_of(pid_t tid)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, (id_t)tid);
}

struct seen {
	pid_t tid;
	int nice;
	pthread_mutex_t lock;
	pthread_cond_t asked;
	int done, go;
};

/* A thread started while its parent is raised: its own nice, then waits to be let go. */
static void *child(void *arg)
{
	struct seen *s = arg;

	pthread_mutex_lock(&s->lock);
	s->tid = gettid();
	s->nice = nice_of(0);
	s->done = 1;
	pthread_cond_broadcast(&s->asked);
	while (!s->go)
		pthread_cond_wait(&s->asked, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Everything runs in a thread of its own, so the test's main thread keeps its nice. */
static void *raise_and_restore(void *arg)
{
	struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER, .asked = PTHREAD_COND_INITIALIZER };
	struct thread_priority before;
	int start = nice_of(0), err, main_nice = *(int *)arg;
	pthread_t t;

	err = thread_priority__raise(start - 5, &before);
	if (err) {
		/* Not permitted: runs as it was, nothing to set back. */
		assert_true(err == -EACCES || err == -EPERM);
		assert_int_equal(before.changed, 0);
		assert_int_equal(nice_of(0), start);
		return NULL;
	}
	assert_int_equal(before.changed, 1);
	assert_int_equal(nice_of(0), start - 5);
	/* Only this thread: the process's main thread is as it was. */
	assert_int_equal(nice_of(getpid()), main_nice);
	/* A thread started now inherits it. */
	assert_int_equal(pthread_create(&t, NULL, child, &s), 0);
	pthread_mutex_lock(&s.lock);
	while (!s.done)
		pthread_cond_wait(&s.asked, &s.lock);
	assert_int_equal(s.nice, start - 5);
	/* Asked for less than it has: nothing changes, nothing to set back. */
	{
		struct thread_priority again;

		assert_int_equal(thread_priority__raise(start, &again), 0);
		assert_int_equal(again.changed, 0);
		assert_int_equal(nice_of(0), start - 5);
		thread_priority__restore(&again);
		assert_int_equal(nice_of(0), start - 5);
	}
	thread_priority__restore(&before);
	assert_int_equal(nice_of(0), start);
	/* The one it started keeps its own until it ends. */
	assert_int_equal(nice_of(s.tid), start - 5);
	s.go = 1;
	pthread_cond_broadcast(&s.asked);
	pthread_mutex_unlock(&s.lock);
	pthread_join(t, NULL);
	return NULL;
}

static void test_raised_then_set_back_on_this_thread_only(void **state)
{
	int main_nice = nice_of(0);
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, raise_and_restore, &main_nice), 0);
	pthread_join(t, NULL);
	assert_int_equal(nice_of(0), main_nice);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raised_then_set_back_on_this_thread_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
