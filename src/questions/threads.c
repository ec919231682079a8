// SPDX-License-Identifier: MIT
/*
 * "What every thread is doing right now": threads.bpf.c's task iterator sends one sample
 * per thread (its state and stacks). A snapshot: the iterator runs once, when the
 * capture opens, read a few threads at a time with the ring buffer drained in between,
 * after every process's unwind tables and Python facts are loaded (within a time
 * budget), so that blocked threads of code without frame pointers and of Python have
 * whole stacks. This is the question's row.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "questions/question.h"
#include "threads.skel.h"
#include "threads_no_trusted_args.skel.h"
#include "util/messages.h"

/* Both variants' skeletons are the same object built twice: the same layout, and
 * destroyed alike. */
_Static_assert(sizeof(struct threads_bpf) == sizeof(struct threads_no_trusted_args_bpf),
	       "one skeleton layout");

static struct bpf_object *threads_open(void **skel, const struct kernel_features *k)
{
	struct threads_bpf *s;

	if (k->trusted_args)
		s = threads_bpf__open();
	else
		s = (struct threads_bpf *)threads_no_trusted_args_bpf__open();
	*skel = s;
	return s ? s->obj : NULL;
}

static void threads_destroy(void *skel)
{
	threads_bpf__destroy(skel);
}

/* Samples of a few reads of the iterator (capture__run_task_iterator drains between). */
static uint64_t threads_events_per_cpu(const struct capture_config *c)
{
	(void)c;
	return 256;
}

static int threads_attach(struct capture_session *s, const struct bpf_loaded *l,
			  const int *cpus, int ncpus)
{
	int err;

	(void)cpus;
	(void)ncpus;
	/* Tables first: the moment is taken once, before the worker would meet anyone. */
	err = capture_session__load_all_tables(s);
	if (err) {
		report__error(capture_session__report(s), MSG_OUT_OF_MEMORY);
		return err;
	}
	err = capture__run_task_iterator(bpf_loaded__prog(l, "on_task"), s);
	if (err && err != -ENOMEM)
		report__error(capture_session__report(s), MSG_CAPTURE_ATTACH_FAILED, "iter.s/task",
			      strerror(-err));
	return err;
}

static int threads_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	int err = capture__run_task_iterator(bpf_loaded__prog(l, "on_task"), NULL);

	if (err)
		msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, "iter.s/task", strerror(-err));
	return err;
}

static const struct capture_question capture = {
	.id = QUESTION_THREADS,
	.kernel_needs = KERNEL_NEEDS_SLEEPABLE_ITER,
	.python_off_cpu_needs_trusted_args = true,
	.open = threads_open,
	.destroy = threads_destroy,
	.events_per_cpu = threads_events_per_cpu,
	.attach = threads_attach,
	.probe = threads_probe,
	.finish = capture__label_waits,
};

/* Any pprof no other question's is: its first column counted (Go's goroutine profile). */
static int threads_pprof_match(const struct question_pprof_types *t,
			       int cols[QUESTION_MAX_VALUES])
{
	(void)t;
	cols[0] = 0;
	return 0;
}

const struct question_plugin question_threads = {
	.q = QUESTION_THREADS,
	.id = "threads",
	.title = "What every thread is doing right now",
	.snapshot = true,
	.value_types = { { "threads", "count" } },
	.max_value = -1,
	.views = { "groups", "thread_sets", "flamegraph", "functions" },
	.pprof_match = threads_pprof_match,
	.capture = &capture,
};
