// SPDX-License-Identifier: MIT
/*
 * "Where memory grows": memory.bpf.c sends each move of a process's resident set (about
 * every 32 pages) with the stacks that made it: anon and shmem growth as grown/bytes,
 * file-backed growth as file/bytes, and anon and shmem given back as freed/bytes (the net
 * growth is grown less freed). The question's plug-in
 * (questions/question.h): its capture row, its values, its analysis, its answer and its
 * fields in the views.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis_internal.h"
#include "capture/capture_internal.h"
#include "memory_answer.h"
#include "capture/processes.h"
#include "memory.skel.h"
#include "memory_fp.skel.h"
#include "memory_no_loop.skel.h"
#include "proc/owner.h"
#include "proc/proc.h"
#include "questions/memory/memory_own.h"
#include "questions/memory/memory_owners.h"
#include "questions/question.h"
#include "util/clock.h"
#include "util/format.h"
#include "util/messages.h"

static const char *const programs[] = { "on_rss_stat" };
static const char *const programs_count[] = { "on_rss_stat_count" };

static struct bpf_object *memory_open(void **skel, const struct kernel_features *k)
{
	struct memory_bpf *s = QUESTION_SKEL_OPEN(memory, k, memory_bpf__open());

	if (!s)
		return NULL;
	/* The rss_stat program for the kernel's tracepoint (bpf/memory.bpf.c). */
	bpf_program__set_autoload(s->progs.on_rss_stat, !k->rss_stat_count);
	bpf_program__set_autoload(s->progs.on_rss_stat_count, k->rss_stat_count);
	*skel = s;
	return s->obj;
}

static const char *const *programs_here(void)
{
	return capture__kernel_features()->rss_stat_count ? programs_count : programs;
}

static void memory_destroy(void *skel)
{
	memory_bpf__destroy(skel);
}

/* One sample per ~128 kB a CPU faults in or gives back: 256 MB/s a CPU. */
static uint64_t memory_events_per_cpu(const struct capture_config *c)
{
	(void)c;
	return 2048;
}

/* The owners' resident memory at the start and at the end (memory_owners.h). */
struct memory_state {
	struct memory_snapshot start, end;
};

/* Each end's read of every process stops after this long: then the capture keeps no
 * owners' memory (a sum of some processes would mislead), only its stacks. */
#define MEMORY_OWNERS_READ_NS (2ll * 1000000000ll)

/* Every process's resident memory now, with its owner. The process taking the capture is
 * left out: its memory grows with what it takes, which is no owner's growth. Kernel
 * threads and zombies own none. 0 or -ENOMEM. */
static int memory_read_owners(struct capture_session *s, struct memory_snapshot *snap)
{
	struct processes *ps = capture_session__processes(s);
	struct profile *p = capture_session__profile(s);
	const char *root = processes__proc_root(ps);
	int64_t deadline = clock__monotonic_ns() + MEMORY_OWNERS_READ_NS;
	int *pids = NULL, self = getpid(), err;
	size_t n = 0, i;

	err = proc__list_pids(root, &pids, &n);
	if (err)
		return err == -ENOMEM ? err : 0;
	for (i = 0; i < n && clock__monotonic_ns() < deadline; i++) {
		struct memory_process proc = { .pid = pids[i] };
		struct proc_info info;
		struct owner owner;

		if (pids[i] == self || proc__read(root, pids[i], &info) || info.kthread ||
		    proc__read_rss(root, pids[i], &proc.rss, &proc.file))
			continue;
		processes__owner(ps, &info, &owner);
		proc.start_ticks = info.start_ticks;
		proc.group = profile__intern(p, owner.label);
		proc.kind = owner.kind;
		if (proc.group == UINT32_MAX || memory_snapshot__add(snap, &proc)) {
			free(pids);
			return -ENOMEM;
		}
	}
	snap->complete = i == n;
	free(pids);
	return 0;
}

static int memory_attach(struct capture_session *s, const struct bpf_loaded *l,
			 const int *cpus, int ncpus)
{
	void **state = capture_session__state(s);
	struct memory_state *m;
	int err;

	(void)cpus;
	(void)ncpus;
	err = capture_session__attach_tracing(s, l, programs_here(), 1);
	if (err)
		return err;
	/* Out of memory here only costs the owners' growth: the stacks still come. */
	m = calloc(1, sizeof(*m));
	if (!m)
		return 0;
	*state = m;
	if (memory_read_owners(s, &m->start))
		m->start.complete = false;
	return 0;
}

/* Sampling is over: the owners' memory at the end, and the growth of each into the
 * profile when both ends were read whole. */
static int memory_sweep(struct capture_session *s, const struct bpf_loaded *l)
{
	struct memory_state *m = *capture_session__state(s);
	int err;

	(void)l;
	if (!m || !m->start.complete)
		return 0;
	err = memory_read_owners(s, &m->end);
	if (err || !m->end.complete)
		return err;
	return memory_owners__sum(capture_session__profile(s), &m->start, &m->end);
}

static void memory_free_state(void *state)
{
	struct memory_state *m = state;

	if (!m)
		return;
	memory_snapshot__free(&m->start);
	memory_snapshot__free(&m->end);
	free(m);
}

static int memory_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	return bpf_loaded__probe_tracing(l, programs_here(), 1, detail, size);
}

static const struct capture_question capture = {
	.id = QUESTION_MEMORY,
	.open = memory_open,
	.destroy = memory_destroy,
	.events_per_cpu = memory_events_per_cpu,
	.attach = memory_attach,
	.probe = memory_probe,
	.sweep = memory_sweep,
	.free_state = memory_free_state,
};

/* ---- the analysis ---- */

/* Each group's measures (memory_own.h), one block: the analysis's own. By the stacks, its
 * net change (freed memory counts against it) and file-backed growth; and the owners'
 * resident memory from start to end (the header's) onto their groups, where an owner
 * whose memory changed without a sample of its own is a group of its own, 0 by the
 * stacks. 0 or -ENOMEM. */
static int memory_analyse(struct analysis_pass *c, struct analysis *a)
{
	const struct profile *p = c->p;
	const struct memory_owners *o = memory_owners__of(p);
	uint32_t nowners = o ? o->n : 0;
	struct memory_group *own = calloc(c->ngroups + nowners ? c->ngroups + nowners : 1,
					  sizeof(*own));
	struct analysis_group *more;

	if (!own)
		return -ENOMEM;
	a->own = own;
	analysis_pass__own_groups(c, own, sizeof(*own), c->ngroups);
	for (uint32_t i = 0; i < p->nsamples && p->nvalues > 2; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (c->group[i] == NONE)
			continue;
		own[c->group[i]].file_bytes += s->values[1];
		own[c->group[i]].net_bytes += s->values[0] - s->values[2];
	}
	if (!nowners)
		return 0;
	more = realloc(c->groups, (c->ngroups + nowners) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	c->groups = more;
	for (uint32_t i = 0; i < o->n; i++) {
		const struct memory_owner *om = &o->owners[i];
		const char *label = profile__str(c->p, om->group);
		struct analysis_group *g = NULL;
		struct memory_group *m;

		for (uint32_t k = 0; k < c->ngroups && !g; k++)
			if (strcmp(c->groups[k].label, label) == 0)
				g = &c->groups[k];
		if (!g) {
			if (om->rss_start == om->rss_end && om->file_start == om->file_end)
				continue;
			g = &c->groups[c->ngroups];
			*g = (struct analysis_group){ .label = label, .kind = om->kind,
						      .own = &own[c->ngroups] };
			c->ngroups++;
			g->name = label;
			if ((om->kind == GROUP_SERVICE || om->kind == GROUP_CONTAINER ||
			     om->kind == GROUP_UNIT) && strchr(label, ' '))
				g->name = strchr(label, ' ') + 1;
		}
		m = g->own;
		m->has_growth = true;
		m->growth = (struct memory_growth){
			.rss_start = (int64_t)om->rss_start,
			.rss_grown = (int64_t)(om->rss_end - om->rss_start),
			.file_start = (int64_t)om->file_start,
			.file_grown = (int64_t)(om->file_end - om->file_start),
			.processes_started = om->started,
			.processes_exited = om->exited,
		};
	}
	return 0;
}

/* How much a group's resident memory (anonymous and shared) grew; its growth was read. */
static int64_t grown(const struct analysis_group *g)
{
	return memory_group__growth(g)->rss_grown;
}

/* A group's net change by the stacks. */
static int64_t net(const struct analysis_group *g)
{
	return memory_group__of(g)->net_bytes;
}

/* The two owners whose resident memory (anonymous and shared) grew the most from the
 * capture's start to its end. false: the profile has no owners' memory, or none grew. */
static bool memory_answer_rss(const struct analysis *a, struct answer_group *first,
			      struct answer_group *next, bool *has_next)
{
	const struct analysis_group *best[2] = { NULL, NULL };

	for (size_t g = 0; g < a->ngroups; g++) {
		const struct analysis_group *x = &a->groups[g];

		if (!memory_group__growth(x) || grown(x) <= 0)
			continue;
		if (!best[0] || grown(x) > grown(best[0])) {
			best[1] = best[0];
			best[0] = x;
		} else if (!best[1] || grown(x) > grown(best[1])) {
			best[1] = x;
		}
	}
	if (!best[0])
		return false;
	*first = analysis_group__answer(best[0]);
	first->value = grown(best[0]);
	*has_next = best[1] != NULL;
	if (best[1]) {
		*next = analysis_group__answer(best[1]);
		next->value = grown(best[1]);
	}
	return true;
}

/* memory: the owner whose resident memory grew the most and the next, with where most of
 * what the stacks saw of it was allocated; without owners' memory (an older profile), the
 * two groups that grew the most by the stacks, net of what they gave back. */
static char *memory_answer(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	const struct analysis_group *best[2] = { NULL, NULL };
	struct answer_group first, next;
	bool has_next;

	if (memory_answer_rss(a, &first, &next, &has_next))
		return memory_answer__rss(h->duration_ns, &first, has_next ? &next : NULL);
	for (size_t g = 0; g < a->ngroups; g++) {
		const struct analysis_group *x = &a->groups[g];

		if (net(x) <= 0)
			continue;
		if (!best[0] || net(x) > net(best[0])) {
			best[1] = best[0];
			best[0] = x;
		} else if (!best[1] || net(x) > net(best[1])) {
			best[1] = x;
		}
	}
	for (int i = 0; i < 2 && best[i]; i++) {
		struct answer_group *ag = i == 0 ? &first : &next;

		*ag = analysis_group__answer(best[i]);
		ag->value = net(best[i]);
	}
	return memory_answer__sentence(h->duration_ns, best[0] ? &first : NULL, best[1] ? &next : NULL);
}

/* ---- the views ---- */

/* A group's net change and file-backed growth: its JSON fields and its line of text. */
static void memory_group_json(json_t *o, const struct analysis_group *g, int *err)
{
	const struct memory_group *own = memory_group__of(g);
	const struct memory_growth *m = memory_group__growth(g);

	question__json_set(o, "net_bytes", json_integer(own->net_bytes), err);
	question__json_set(o, "file_bytes", json_integer(own->file_bytes), err);
	if (!m)
		return;
	question__json_set(o, "rss_start_bytes", json_integer(m->rss_start), err);
	question__json_set(o, "rss_grown_bytes", json_integer(m->rss_grown), err);
	question__json_set(o, "file_start_bytes", json_integer(m->file_start), err);
	question__json_set(o, "file_grown_bytes", json_integer(m->file_grown), err);
	question__json_set(o, "processes_started", json_integer(m->processes_started), err);
	question__json_set(o, "processes_exited", json_integer(m->processes_exited), err);
}

static void memory_group_text(const struct analysis_group *g, FILE *out)
{
	const struct memory_group *own = memory_group__of(g);
	const struct memory_growth *m = memory_group__growth(g);
	char net[FORMAT_MAX], file[FORMAT_MAX];

	format_bytes(own->net_bytes < 0 ? -own->net_bytes : own->net_bytes, net, sizeof(net));
	format_bytes(own->file_bytes, file, sizeof(file));
	msg_fprint(out, own->net_bytes < 0 ? MSG_SHOW_GROUP_MEMORY_SHRANK : MSG_SHOW_GROUP_MEMORY,
		   net, file);
	if (m) {
		char rss[FORMAT_MAX], rss_start[FORMAT_MAX], file_start[FORMAT_MAX];

		format_bytes(m->rss_grown < 0 ? -m->rss_grown : m->rss_grown, rss, sizeof(rss));
		format_bytes(m->rss_start, rss_start, sizeof(rss_start));
		format_bytes(m->file_grown < 0 ? -m->file_grown : m->file_grown, file,
			     sizeof(file));
		format_bytes(m->file_start, file_start, sizeof(file_start));
		msg_fprint(out, MSG_SHOW_GROUP_MEMORY_OWNER, m->rss_grown < 0 ? "-" : "+", rss,
			   rss_start, m->file_grown < 0 ? "-" : "+", file, file_start,
			   (long long)m->processes_started, (long long)m->processes_exited);
	}
}

/* ---- the question ---- */

/* A pprof with a column in bytes (Go's heap profile): the default sample type's if it
 * is one. */
static int memory_pprof_match(const struct question_pprof_types *t,
			      int cols[QUESTION_MAX_VALUES])
{
	int bytes = question_pprof__column(t, "bytes", true);

	if (bytes < 0)
		return -1;
	cols[0] = bytes;
	return 4;
}

/* What grew (anon and shmem), file-backed growth apart, and what was given back (the net
 * growth is grown less freed). */
const struct question_plugin question_memory = {
	.id = "memory",
	.title = "Where memory grows",
	.value_types = { { "grown", "bytes" }, { "file", "bytes" }, { "freed", "bytes" } },
	.max_value = -1,
	.views = { "groups", "owner_growth", "flamegraph", "functions" },
	.pprof_match = memory_pprof_match,
	.header_free = memory_owners__free,
	.header_encode = memory_owners__encode,
	.header_decode = memory_owners__decode,
	.header_clamp = memory_owners__clamp,
	.capture = &capture,
	.analyse = memory_analyse,
	.answer = memory_answer,
	.group_json = memory_group_json,
	.group_text = memory_group_text,
};
