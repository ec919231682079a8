// SPDX-License-Identifier: MIT
/*
 * "What every thread is doing right now": threads.bpf.c's task iterator sends one sample
 * per thread (its state and stacks). A snapshot: the iterator runs once, when the
 * capture opens, read a few threads at a time with the ring buffer drained in between.
 * This is the question's row.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "threads.skel.h"
#include "util/messages.h"

/* Threads visited per read of the iterator (each visit writes one byte): the ring
 * buffer holds this many samples at once, whatever the machine runs. */
#define THREADS_PER_READ 64

static struct bpf_object *threads_open(void **skel)
{
	struct threads_bpf *s = threads_bpf__open();

	*skel = s;
	return s ? s->obj : NULL;
}

static void threads_destroy(void *skel)
{
	threads_bpf__destroy(skel);
}

/* Samples of a few reads, spread over the CPUs' share of the ring buffer. */
static uint64_t threads_events_per_cpu(const struct capture_config *c)
{
	(void)c;
	return 4 * THREADS_PER_READ;
}

/* Runs the iterator over every thread; drain (NULL: none) between reads. 0 or -errno. */
static int threads_iterate(int prog, struct capture_session *s)
{
	char buf[THREADS_PER_READ];
	int link, fd, err = 0;
	ssize_t n;

	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		return -errno;
	fd = bpf_iter_create(link);
	if (fd < 0) {
		err = -errno;
		close(link);
		return err;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (s && (err = capture_session__drain(s)))
			break;
	}
	if (n < 0 && !err)
		err = -errno;
	close(fd);
	close(link);
	return err;
}

static int threads_attach(struct capture_session *s, const struct bpf_loaded *l,
			  const int *cpus, int ncpus)
{
	int err;

	(void)cpus;
	(void)ncpus;
	err = threads_iterate(bpf_loaded__prog(l, "on_task"), s);
	if (err && err != -ENOMEM)
		report__error(capture_session__report(s), MSG_CAPTURE_ATTACH_FAILED, "iter.s/task",
			      strerror(-err));
	return err;
}

static int threads_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	int err = threads_iterate(bpf_loaded__prog(l, "on_task"), NULL);

	if (err)
		msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, "iter.s/task", strerror(-err));
	return err;
}

const struct capture_question capture_question_threads = {
	.id = QUESTION_THREADS,
	.snapshot = true,
	.open = threads_open,
	.destroy = threads_destroy,
	.events_per_cpu = threads_events_per_cpu,
	.attach = threads_attach,
	.probe = threads_probe,
	.finish = capture__label_waits,
};
