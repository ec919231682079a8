// SPDX-License-Identifier: MIT
/*
 * "What every thread is doing right now": threads.bpf.c's task iterator sends one sample
 * per thread (its state and stacks). A snapshot: the iterator runs once, when the
 * capture opens, read a few threads at a time with the ring buffer drained in between,
 * after every process's unwind tables and Python facts are loaded (within a time
 * budget), so that blocked threads of code without frame pointers and of Python have
 * whole stacks. The question's plug-in
 * (questions/question.h): its capture row, its values, its analysis, its answer and its
 * fields in the views.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "analysis/analysis_internal.h"
#include "capture/capture_internal.h"
#include "threads_answer.h"
#include "threads_own.h"
#include "questions/question.h"
#include "threads.skel.h"
#include "threads_fp.skel.h"
#include "threads_no_loop.skel.h"
#include "threads_no_trusted_args.skel.h"
#include "util/format.h"
#include "util/json_text.h"
#include "util/messages.h"

/* Both variants' skeletons are the same object built twice: the same layout, and
 * destroyed alike. */
_Static_assert(sizeof(struct threads_bpf) == sizeof(struct threads_no_trusted_args_bpf),
	       "one skeleton layout");

static struct bpf_object *threads_open(void **skel, const struct kernel_features *k)
{
	struct threads_bpf *s;

	s = QUESTION_SKEL_OPEN(threads, k, threads_no_trusted_args_bpf__open());
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

/* ---- the analysis: sets of threads ---- */

static int thread_set__cmp(const void *a, const void *b)
{
	const struct threads_set *x = a, *y = b;
	int c;

	if (x->threads != y->threads)
		return x->threads > y->threads ? -1 : 1;
	if ((c = strcmp(x->group, y->group)))
		return c;
	if ((c = strcmp(x->state, y->state)))
		return c;
	if ((c = strcmp(x->wait, y->wait)))
		return c;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The same set: the strings are the profile's interned ones, so equal text is an equal
 * pointer. */
static int thread_set__cmp_key(const void *a, const void *b)
{
	const struct threads_set *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait < y->wait ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The sets of threads into own->sets, which has room for one a sample. */
static void thread_sets(const struct analysis_pass *c, struct threads_own *own)
{
	const struct profile *p = c->p;
	size_t n = 0;

	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		own->sets[n++] = (struct threads_set){
			.threads = s->values[c->main],
			.state = profile__str(p, s->labels.state),
			.wait = profile__str(p, s->labels.wait),
			.group = profile__str(p, s->labels.group),
			.stack = s->stack,
		};
	}
	/* Equal sets next to each other, merged, then largest first. */
	qsort(own->sets, n, sizeof(*own->sets), thread_set__cmp_key);
	if (n) {
		size_t out = 0;

		for (size_t i = 1; i < n; i++) {
			struct threads_set *x = &own->sets[out], *y = &own->sets[i];

			if (thread_set__cmp_key(x, y) == 0)
				x->threads += y->threads;
			else
				own->sets[++out] = *y;
		}
		n = out + 1;
	}
	qsort(own->sets, n, sizeof(*own->sets), thread_set__cmp);
	own->nsets = n;
}

/*
 * threads: how many, running and waiting, and the largest set of threads waiting in the
 * same place (one group, one "where" frame). Kernel threads all sleep in the same few
 * kernel functions; the System group is only chosen when nothing else waits.
 */
static char *threads_answer(const struct analysis_pass *c)
{
	const struct profile *p = c->p;
	struct tally *t = malloc(sizeof(*t) * (p->nsamples ? p->nsamples : 1));
	struct threads_answer at = { 0 };
	const struct tally *best[2] = { NULL, NULL }; /* [0] others, [1] System */
	size_t n = 0;
	char *answer;

	if (!t)
		return NULL;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		int64_t v = s->values[c->main];
		enum tier tier;
		uint32_t loc;

		at.threads += v;
		if (sample__running(p, s)) {
			at.running += v;
			continue;
		}
		at.waiting += v;
		loc = analysis_pass__where(c, s->stack, &tier);
		if (loc != NONE)
			t[n++] = (struct tally){ c->group[i], 0, location__name(&p->locations[loc]),
						 v };
	}
	n = tally__reduce(t, n);
	for (size_t i = 0; i < n; i++) {
		int sys = c->groups[t[i].key].kind == GROUP_SYSTEM;

		if (t[i].value > 0 && tally__better(p, &t[i], best[sys]))
			best[sys] = &t[i];
	}
	if (!best[0] || best[0]->value < 2)
		best[0] = best[1];
	if (best[0]) {
		at.set_size = best[0]->value;
		at.set_group = c->groups[best[0]->key].label;
		at.set_where = profile__str(p, best[0]->name);
	}
	answer = threads_answer__sentence(&at);
	free(t);
	return answer;
}

/* How many threads of each group run and wait (threads_own.h). */
static void threads_groups(struct analysis_pass *c, struct threads_own *own)
{
	const struct profile *p = c->p;

	analysis_pass__own_groups(c, own->groups, sizeof(own->groups[0]), c->ngroups);
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (c->group[i] == NONE)
			continue;
		if (sample__running(p, s))
			own->groups[c->group[i]].running += s->values[c->main];
		else
			own->groups[c->group[i]].waiting += s->values[c->main];
	}
}

/* The groups' threads and the sets of threads, one block (threads_own.h): the analysis's
 * own, the sets after the groups. */
_Static_assert(sizeof(struct threads_own) % _Alignof(struct threads_set) == 0 &&
		       sizeof(struct threads_group) % _Alignof(struct threads_set) == 0,
	       "the sets follow the groups aligned");
static int threads_analyse(struct analysis_pass *c, struct analysis *a)
{
	size_t nsamples = c->p->nsamples ? c->p->nsamples : 1;
	size_t head = sizeof(struct threads_own) + c->ngroups * sizeof(struct threads_group);
	struct threads_own *own = calloc(1, head + nsamples * sizeof(struct threads_set));

	if (!own)
		return -ENOMEM;
	a->own = own;
	own->sets = (struct threads_set *)((char *)own + head);
	threads_groups(c, own);
	thread_sets(c, own);
	a->answer = threads_answer(c);
	return a->answer ? 0 : -ENOMEM;
}

/* ---- the views ---- */

/* How many threads of a group run and wait (its text has them in its thread sets). */
static void threads_group_json(json_t *o, const struct analysis_group *g, int *err)
{
	const struct threads_group *m = threads_group__of(g);

	question__json_set(o, "running", json_integer(m->running), err);
	question__json_set(o, "waiting", json_integer(m->waiting), err);
}

/* The thread dump in the text report: the largest sets and their frames; --json has
 * them all. */
#define THREAD_SETS_SHOWN 10
#define THREAD_FRAMES_SHOWN 16

/* threads: architecture.md's thread_sets, each stack as its frames' names, leaf first. */
static json_t *thread_sets__to_json(const struct analysis *a, int *err)
{
	const struct profile *p = a->profile;
	const struct threads_own *own = threads_own__of(a);
	json_t *sets = json_array();

	if (!sets) {
		*err = -1;
		return NULL;
	}
	for (size_t i = 0; i < own->nsets; i++) {
		const struct threads_set *t = &own->sets[i];
		json_t *o = json_object(), *frames = json_array();
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, t->stack, &depth);

		for (uint32_t d = 0; frames && d < depth; d++) {
			const struct prof_location *l = &p->locations[locs[d]];

			question__json_append(frames, json_text(profile__str(p, l->name ? l->name : l->function)),
			       err);
		}
		if (o) {
			question__json_set(o, "threads", json_integer(t->threads), err);
			question__json_set(o, "state", json_text(t->state), err);
			question__json_set(o, "wait", json_text(t->wait), err);
			question__json_set(o, "group", json_text(t->group), err);
			question__json_set(o, "stack", frames, err);
		} else {
			json_decref(frames);
		}
		question__json_append(sets, o, err);
	}
	return sets;
}

static void print_thread_sets(const struct analysis *a, FILE *out, size_t max, size_t frames)
{
	const struct profile *p = a->profile;
	const struct threads_own *own = threads_own__of(a);

	msg_fprint(out, MSG_SHOW_THREAD_SETS_HEADER);
	for (size_t i = 0; i < own->nsets && i < max; i++) {
		const struct threads_set *t = &own->sets[i];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, t->stack, &depth);

		if (i)
			fputc('\n', out);
		if (*t->wait)
			msg_fprint(out, MSG_SHOW_THREAD_SET_WAITING, (long long)t->threads, t->group,
				   t->state, t->wait);
		else
			msg_fprint(out, MSG_SHOW_THREAD_SET, (long long)t->threads, t->group,
				   t->state);
		for (uint32_t d = 0; d < depth && d < frames; d++) {
			const struct prof_location *l = &p->locations[locs[d]];

			msg_fprint(out, MSG_SHOW_THREAD_FRAME,
				   profile__str(p, l->name ? l->name : l->function));
		}
		if (depth > frames)
			msg_fprint(out, MSG_SHOW_THREAD_MORE_FRAMES, (unsigned)(depth - frames));
	}
	if (own->nsets > max)
		msg_fprint(out, MSG_SHOW_THREAD_MORE_SETS, (unsigned long long)(own->nsets - max));
}

static void threads_document_json(json_t *doc, const struct analysis *a, int *err)
{
	question__json_set(doc, "thread_sets", thread_sets__to_json(a, err), err);
}

static void threads_report_before_groups(const struct analysis *a, FILE *out)
{
	if (!threads_own__of(a)->nsets)
		return;
	fputc('\n', out);
	print_thread_sets(a, out, THREAD_SETS_SHOWN, THREAD_FRAMES_SHOWN);
}

/* ---- the question ---- */

/* Any pprof no other question's is: its first column counted (Go's goroutine profile). */
static int threads_pprof_match(const struct question_pprof_types *t,
			       int cols[QUESTION_MAX_VALUES])
{
	(void)t;
	cols[0] = 0;
	return 0;
}

const struct question_plugin question_threads = {
	.id = "threads",
	.title = "What every thread is doing right now",
	.snapshot = true,
	.value_types = { { "threads", "count" } },
	.max_value = -1,
	.views = { "groups", "thread_sets", "flamegraph", "functions" },
	.pprof_match = threads_pprof_match,
	.capture = &capture,
	.analyse = threads_analyse,
	.group_json = threads_group_json,
	.document_json = threads_document_json,
	.report_before_groups = threads_report_before_groups,
};
