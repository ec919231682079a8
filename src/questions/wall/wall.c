// SPDX-License-Identifier: MIT
/*
 * "Where time goes, including waiting": wall.bpf.c sends running time as cpu-clock
 * samples, and waiting time as stacks taken when a thread goes off CPU
 * (RECORD_WALL_STACK) followed by the time it waited there (RECORD_WALL_FLUSH). This
 * row keeps each thread's last stack record and, for each flush, hands the engine that
 * record with the time waited as its value, as if the kernel had sent it so. When
 * sampling ends, the sweep (a task iterator) accounts for the threads still waiting.
 * A flush splits the time by why the thread waited (one sample a reason, its
 * wait_reason label) and says how long the thread ran; once sampling is over, each
 * sample of a thread is labelled with its whole time on a CPU (thread_ran_ns), which
 * the answer ranks threads by.
 * The question's plug-in (questions/question.h): its capture row, its values, its
 * analysis, its answer and its fields in the views.
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
#include "util/clock.h"
#include "wall_answer.h"
#include "wall_own.h"
#include "capture/processes.h"
#include "questions/question.h"
#include "util/format.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/messages.h"
#include "wall.h"
#include "wall.skel.h"
#include "wall_fp.skel.h"
#include "wall_no_loop.skel.h"
#include "wall_no_trusted_args.skel.h"

/* Each thread's last stack record: where its next flushed waits count. */
struct wall_last {
	uint32_t tid;
	size_t size;
	struct stack_sample *record;
	uint64_t ran_ns; /* on a CPU, over the capture so far */
};

struct wall_state {
	struct hashmap *index; /* tid -> entry */
	struct wall_last *items;
	uint32_t n, cap;
	uint64_t unattributed; /* flushes of a thread whose stack never came */
};

static const char *const programs[] = { "on_switch" };

/* Both variants' skeletons are the same object built twice: the same layout, and
 * destroyed alike. */
_Static_assert(sizeof(struct wall_bpf) == sizeof(struct wall_no_trusted_args_bpf),
	       "one skeleton layout");

static struct bpf_object *wall_open(void **skel, const struct kernel_features *k)
{
	struct wall_bpf *s;

	s = QUESTION_SKEL_OPEN(wall, k, wall_no_trusted_args_bpf__open());
	*skel = s;
	return s ? s->obj : NULL;
}

static void wall_destroy(void *skel)
{
	wall_bpf__destroy(skel);
}

/* Ticks, and stacks at most 100 a second for each thread that switches: room for a
 * busy second's stacks of a few hundred threads. */
static uint64_t wall_events_per_cpu(const struct capture_config *c)
{
	return c->hz + 4096;
}

static void wall_free_state(void *state)
{
	struct wall_state *w = state;

	if (!w)
		return;
	for (uint32_t i = 0; i < w->n; i++)
		free(w->items[i].record);
	free(w->items);
	hashmap__free(w->index);
	free(w);
}

static int wall_attach(struct capture_session *s, const struct bpf_loaded *l, const int *cpus,
		       int ncpus)
{
	struct wall_state *w = calloc(1, sizeof(*w));
	int err;

	if (w)
		w->index = hashmap__new();
	if (!w || !w->index) {
		wall_free_state(w);
		report__error(capture_session__report(s), MSG_OUT_OF_MEMORY);
		return -ENOMEM;
	}
	*capture_session__state(s) = w;
	/* Switches first: a thread that runs is seen going off CPU before a tick needs it. */
	err = capture_session__attach_tracing(s, l, programs, 1);
	if (!err)
		err = capture_session__attach_ticks(s, bpf_loaded__prog(l, "on_tick"), cpus, ncpus);
	return err;
}

static int wall_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	return bpf_loaded__probe_tracing(l, programs, 1, detail, size);
}

static bool wall_last__equal(const void *key, uint32_t id, void *ctx)
{
	const struct wall_state *w = ctx;

	return w->items[id].tid == *(const uint32_t *)key;
}

static struct wall_last *wall_state__find(struct wall_state *w, uint32_t tid, bool add)
{
	uint64_t h = hash_u64(0, tid);
	uint32_t id = hashmap__find(w->index, h, &tid, wall_last__equal, w);

	if (id != HASHMAP_NONE)
		return &w->items[id];
	if (!add)
		return NULL;
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 256;
		struct wall_last *items = realloc(w->items, cap * sizeof(*items));

		if (!items)
			return NULL;
		w->items = items;
		w->cap = cap;
	}
	if (hashmap__insert(w->index, h, w->n))
		return NULL;
	w->items[w->n] = (struct wall_last){ .tid = tid };
	return &w->items[w->n++];
}

static int wall_fold(struct capture_session *s, const void *data, size_t size)
{
	struct wall_state *w = *capture_session__state(s);
	struct wall_last *last;
	uint32_t kind;
	int err;

	memcpy(&kind, data, sizeof(kind));
	if (kind == RECORD_WALL_STACK) {
		const struct stack_sample *rec = data;
		struct stack_sample *copy;

		if (size < SAMPLE_HEADER_SIZE || size > sizeof(*copy))
			return 0;
		last = wall_state__find(w, rec->pid, true);
		copy = last ? malloc(size) : NULL;
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, size);
		copy->kind = RECORD_SAMPLE;
		free(last->record);
		last->record = copy;
		last->size = size;
		if (!(copy->flags & SAMPLE_FIRST))
			return 0;
		/* A process's first: read it now, while it exists (its waits may be handed
		 * over after it is gone). Its value is 0 until then. */
		err = processes__sample(capture_session__processes(s), copy, size);
		copy->flags &= ~(SAMPLE_FIRST | SAMPLE_KTHREAD);
		return err;
	}
	if (kind == RECORD_WALL_FLUSH && size >= sizeof(struct wall_flush)) {
		struct wall_flush f;

		memcpy(&f, data, sizeof(f));
		last = wall_state__find(w, f.tid, true);
		if (!last)
			return -ENOMEM;
		last->ran_ns += f.ran_ns;
		for (uint32_t r = 0; r < WAIT_REASON__COUNT - 1; r++) {
			if (!f.ns[r])
				continue;
			if (!last->record) {
				w->unattributed++;
				continue;
			}
			last->record->values[0] = (int64_t)f.ns[r];
			last->record->wait_reason = r + 1;
			err = processes__sample(capture_session__processes(s), last->record,
						last->size);
			/* The process's facts went with its first sample: not again. */
			last->record->flags &= ~(SAMPLE_FIRST | SAMPLE_KTHREAD);
			if (err)
				return err;
		}
		return 0;
	}
	return 0;
}

/* Sampling is over: what each waiting sample waits in, and each thread's time on a CPU
 * on every sample of it (labels change in place, as capture__label_waits does: the
 * profile takes no more samples). */
static int wall_finish(struct capture_session *s)
{
	struct wall_state *w = *capture_session__state(s);
	struct profile *p = capture_session__profile(s);
	int err = capture__label_waits(s);

	if (err || !w)
		return err;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		struct prof_sample *sm = &p->samples[i];
		struct wall_last *last;

		if (sm->labels.tid <= 0)
			continue;
		last = wall_state__find(w, (uint32_t)sm->labels.tid, false);
		if (last && last->ran_ns <= INT64_MAX)
			sm->labels.thread_ran_ns = (int64_t)last->ran_ns;
	}
	return 0;
}

/* Sampling is over: every thread's waits still in the kernel, and where each waits,
 * walked with the tables of the processes the capture met. The window ends now, not
 * after the wait for those tables. */
static int wall_sweep(struct capture_session *s, const struct bpf_loaded *l)
{
	uint64_t end = (uint64_t)clock__monotonic_ns();
	uint32_t zero = 0;

	if (bpf_map_update_elem(bpf_loaded__map(l, "window_end"), &zero, &end, BPF_ANY))
		return -errno;
	capture_session__tables_before_sweep(s);
	return capture__run_task_iterator(bpf_loaded__prog(l, "on_sweep"), s);
}

static const struct capture_question capture = {
	.id = QUESTION_WALL,
	.kernel_needs = KERNEL_NEEDS_SLEEPABLE_ITER,
	.python_off_cpu_needs_trusted_args = true,
	.open = wall_open,
	.destroy = wall_destroy,
	.events_per_cpu = wall_events_per_cpu,
	.attach = wall_attach,
	.probe = wall_probe,
	.fold = wall_fold,
	.finish = wall_finish,
	.sweep = wall_sweep,
	.free_state = wall_free_state,
};

/* ---- the analysis ---- */

/* The threads that never ran in the window (idle kernel threads and pools) would swamp
 * the answer: the profile keeps them, nothing counts them. */
static bool wall_sample_counts(const struct profile *p, const struct prof_sample *s)
{
	return strcmp(profile__str(p, s->labels.state), "idle") != 0;
}

static bool include_waiting(const struct analysis_pass *c, uint32_t sample)
{
	return !sample__running(c->p, &c->p->samples[sample]);
}

/* A thread ranks in the answer when it ran at least this share of the capture: one that
 * wakes now and then to find nothing to do waits all the time and says nothing. */
#define WALL_RANK_MIN_RUNNING_PER_MILLE 1

struct thread_running {
	int32_t tid;
	int64_t running;  /* from ticks */
	int64_t measured; /* from its switches (thread_ran_ns); 0: a profile without them */
};

static int thread_running__cmp(const void *a, const void *b)
{
	const struct thread_running *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Which samples rank: a copy of c->group where the samples of threads that ran less than
 * WALL_RANK_MIN_RUNNING_PER_MILLE of the capture, and the profiler's own, are NONE.
 * NULL on ENOMEM.
 */
static uint32_t *wall_ranking_groups(const struct analysis_pass *c)
{
	const struct profile *p = c->p;
	size_t n = p->nsamples ? p->nsamples : 1, nthreads = 0;
	struct thread_running *t = malloc(sizeof(*t) * n);
	uint32_t *groups = malloc(sizeof(*groups) * n);
	int64_t min_running = (int64_t)(p->header.duration_ns / 1000 *
					WALL_RANK_MIN_RUNNING_PER_MILLE);

	if (!t || !groups) {
		free(t);
		free(groups);
		return NULL;
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (c->group[i] != NONE)
			t[nthreads++] = (struct thread_running){
				s->labels.tid, sample__running(p, s) ? s->values[c->main] : 0,
				s->labels.thread_ran_ns
			};
	}
	qsort(t, nthreads, sizeof(*t), thread_running__cmp);
	if (nthreads) {
		size_t out = 0;

		for (size_t i = 1; i < nthreads; i++) {
			if (t[i].tid == t[out].tid) {
				t[out].running += t[i].running;
				if (t[i].measured > t[out].measured)
					t[out].measured = t[i].measured;
			} else
				t[++out] = t[i];
		}
		nthreads = out + 1;
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		struct thread_running key = { .tid = s->labels.tid }, *found;

		groups[i] = c->group[i];
		if (groups[i] == NONE)
			continue;
		found = bsearch(&key, t, nthreads, sizeof(*t), thread_running__cmp);
		if (!found || (found->measured ? found->measured : found->running) < min_running ||
		    (p->header.profiler_pid && s->labels.pid == p->header.profiler_pid))
			groups[i] = NONE;
	}
	free(t);
	return groups;
}

struct wall_rank {
	uint32_t group;
	int64_t running, waiting;
	int64_t rank;
};

static int wall_rank__cmp(const void *a, const void *b)
{
	const struct wall_rank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->running + x->waiting != y->running + y->waiting)
		return x->running + x->waiting > y->running + y->waiting ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

/*
 * wall: which group's threads spent their time how. Only threads that ran at least
 * 0.1% of the capture rank (the idle ones still count in the groups' totals), never the
 * profiler's own; a machine has dozens of kernel threads asleep for the whole capture,
 * so the System group's waiting does not count towards which group leads either. Where
 * no thread ran that much (an idle machine), every thread ranks.
 */
static char *wall_answer(const struct analysis_pass *c, const struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t ng = c->ngroups ? c->ngroups : 1;
	struct wall_rank *r = calloc(ng, sizeof(*r));
	uint32_t *waited_in = malloc(sizeof(*waited_in) * ng);
	uint32_t *ranking = wall_ranking_groups(c);
	struct wall_answer_group first, next;
	struct analysis_pass ranked = *c;
	char *answer = NULL;
	bool any_ranks = false;

	if (!r || !waited_in || !ranking)
		goto out_free;
	for (uint32_t i = 0; i < p->nsamples && !any_ranks; i++)
		any_ranks = ranking[i] != NONE;
	if (any_ranks)
		ranked.group = ranking;
	if (analysis_pass__top_places(&ranked, include_waiting, waited_in))
		goto out_free;
	for (uint32_t g = 0; g < c->ngroups; g++)
		r[g].group = g;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		uint32_t g = c->group[i];
		bool running;

		if (g == NONE)
			continue;
		running = sample__running(p, s);
		if (running)
			r[g].running += s->values[c->main];
		else
			r[g].waiting += s->values[c->main];
		if (ranked.group[i] != NONE &&
		    (running || c->groups[g].kind != GROUP_SYSTEM))
			r[g].rank += s->values[c->main];
	}
	qsort(r, c->ngroups, sizeof(*r), wall_rank__cmp);
	for (int i = 0; i < 2 && (uint32_t)i < c->ngroups; i++) {
		struct wall_answer_group *ag = i == 0 ? &first : &next;
		const struct analysis_group *g = &c->groups[r[i].group];
		const int64_t *by_reason = wall_group__of(g)->waiting_by_reason;
		int reason = -1;

		/* The biggest reason it waited, named unless it slept. */
		for (int k = 0; k < PROFILE_WAIT_REASONS; k++)
			if (by_reason[k] > 0 && (reason < 0 || by_reason[k] > by_reason[reason]))
				reason = k;
		if (reason >= 0 && strcmp(profile_wait_reasons[reason], "sleep") == 0)
			reason = -1;
		*ag = (struct wall_answer_group){
			.group = {
				.label = g->label,
				.share = g->share,
				.value = r[i].running,
				.where = waited_in[r[i].group] == NONE ?
						 NULL :
						 profile__str(p, waited_in[r[i].group]),
			},
			.waiting = r[i].waiting,
			.wait_reason = reason,
			.wait_reason_ns = reason >= 0 ? by_reason[reason] : 0,
		};
	}
	if (!c->ngroups || a->total <= 0)
		answer = wall_answer__sentence(p->header.duration_ns, NULL, NULL);
	else
		answer = wall_answer__sentence(p->header.duration_ns, &first,
				      c->ngroups > 1 && r[1].rank > 0 ? &next : NULL);

out_free:
	free(ranking);
	free(r);
	free(waited_in);
	return answer;
}

/* Each group's running and waiting, and the waiting by why its threads waited, with the
 * analysis's waiting by why (wall_own.h): the analysis's own. 0 or -ENOMEM. */
static int wall_groups(struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	struct wall_own *own = calloc(1, sizeof(*own) + c->ngroups * sizeof(own->groups[0]));

	if (!own)
		return -ENOMEM;
	a->own = own;
	analysis_pass__own_groups(c, own->groups, sizeof(own->groups[0]), c->ngroups);
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		struct wall_group *g;
		int r;

		if (c->group[i] == NONE)
			continue;
		g = &own->groups[c->group[i]];
		if (sample__running(p, s)) {
			g->running += s->values[c->main];
			continue;
		}
		g->waiting += s->values[c->main];
		if (!s->labels.wait_reason)
			continue;
		r = wait_reason__parse(profile__str(p, s->labels.wait_reason));
		if (r >= 0)
			g->waiting_by_reason[r] += s->values[c->main];
	}
	for (uint32_t g = 0; g < c->ngroups; g++)
		for (int r = 0; r < PROFILE_WAIT_REASONS; r++)
			own->waiting_by_reason[r] += own->groups[g].waiting_by_reason[r];
	return 0;
}

static int wall_analyse(struct analysis_pass *c, struct analysis *a)
{
	if (wall_groups(c, a))
		return -ENOMEM;
	a->answer = wall_answer(c, a);
	return a->answer ? 0 : -ENOMEM;
}

/* ---- the views ---- */

/* Waiting time by reason: {"runqueue": ns, "io": ns, "lock": ns, "sleep": ns, "other": ns};
 * NULL on ENOMEM. */
static json_t *wall__waiting_json(const int64_t ns[PROFILE_WAIT_REASONS])
{
	json_t *o = json_object();
	int err = 0;

	for (int r = 0; o && r < PROFILE_WAIT_REASONS; r++) {
		json_t *v = json_integer(ns[r]);

		if (!v || json_object_set_new(o, profile_wait_reasons[r], v))
			err = -1;
	}
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Running and waiting time of a group: its JSON fields and its line of text. */
static void wall_group_json(json_t *o, const struct analysis_group *g, int *err)
{
	const struct wall_group *m = wall_group__of(g);

	question__json_set(o, "running_ns", json_integer(m->running), err);
	question__json_set(o, "waiting_ns", json_integer(m->waiting), err);
	question__json_set(o, "waiting_by_reason", wall__waiting_json(m->waiting_by_reason), err);
}

/* The document's waiting by reason, all groups together (its running_waiting view). */
static void wall_document_json(json_t *doc, const struct analysis *a, int *err)
{
	question__json_set(doc, "waiting_by_reason",
			   wall__waiting_json(wall_own__waiting_by_reason(a)), err);
}

static void wall_group_text(const struct analysis_group *g, FILE *out)
{
	const struct wall_group *m = wall_group__of(g);
	char running[FORMAT_MAX], waiting[FORMAT_MAX];

	format_seconds(m->running, running, sizeof(running));
	format_seconds(m->waiting, waiting, sizeof(waiting));
	msg_fprint(out, MSG_SHOW_GROUP_WALL, running, waiting);
}

/* ---- the question ---- */

/* A pprof with a column in nanoseconds (not a CPU or lock profile's). */
static int wall_pprof_match(const struct question_pprof_types *t, int cols[QUESTION_MAX_VALUES])
{
	int ns = question_pprof__column(t, "nanoseconds", false);

	if (ns < 0)
		return -1;
	cols[0] = ns;
	return 1;
}

const struct question_plugin question_wall = {
	.id = "wall",
	.title = "Where time goes, including waiting",
	.value_types = { { "wall", "nanoseconds" } },
	.max_value = -1,
	.value_bounds = { VALUE_BOUND_THREAD_TIME },
	.views = { "groups", "running_waiting", "flamegraph", "functions" },
	.pprof_match = wall_pprof_match,
	.capture = &capture,
	.sample_counts = wall_sample_counts,
	.analyse = wall_analyse,
	.group_json = wall_group_json,
	.group_text = wall_group_text,
	.document_json = wall_document_json,
};
