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
#include <jansson.h>

#include "analysis/analysis_internal.h"
#include "analysis/answer.h"
#include "capture/capture_internal.h"
#include "memory.skel.h"
#include "questions/question.h"
#include "util/format.h"
#include "util/messages.h"

static const char *const programs[] = { "on_rss_stat" };
static const char *const programs_count[] = { "on_rss_stat_count" };

static struct bpf_object *memory_open(void **skel, const struct kernel_features *k)
{
	struct memory_bpf *s = memory_bpf__open();

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

static int memory_attach(struct capture_session *s, const struct bpf_loaded *l,
			 const int *cpus, int ncpus)
{
	(void)cpus;
	(void)ncpus;
	return capture_session__attach_tracing(s, l, programs_here(), 1);
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
};

/* ---- the analysis ---- */

/* The net change (freed memory counts against it) and file-backed growth. */
static void memory_group_add(const struct profile *p, uint32_t main, struct analysis_group *g,
			     const struct prof_sample *s)
{
	(void)main;
	if (p->nvalues > 2) {
		g->file_bytes += s->values[1];
		g->net_bytes += s->values[0] - s->values[2];
	}
}

/* memory: the two groups that grew the most, net of what they gave back. */
static char *memory_answer(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	const struct analysis_group *best[2] = { NULL, NULL };
	struct answer_group first, next;

	for (size_t g = 0; g < a->ngroups; g++) {
		const struct analysis_group *x = &a->groups[g];

		if (x->net_bytes <= 0)
			continue;
		if (!best[0] || x->net_bytes > best[0]->net_bytes) {
			best[1] = best[0];
			best[0] = x;
		} else if (!best[1] || x->net_bytes > best[1]->net_bytes) {
			best[1] = x;
		}
	}
	for (int i = 0; i < 2 && best[i]; i++) {
		struct answer_group *ag = i == 0 ? &first : &next;

		*ag = analysis_group__answer(best[i]);
		ag->value = best[i]->net_bytes;
	}
	return answer__memory(h->duration_ns, best[0] ? &first : NULL, best[1] ? &next : NULL);
}

/* ---- the views ---- */

/* A group's net change and file-backed growth: its JSON fields and its line of text. */
static void memory_group_json(json_t *o, const struct analysis_group *g, int *err)
{
	question__json_set(o, "net_bytes", json_integer(g->net_bytes), err);
	question__json_set(o, "file_bytes", json_integer(g->file_bytes), err);
}

static void memory_group_text(const struct analysis_group *g, FILE *out)
{
	char net[FORMAT_MAX], file[FORMAT_MAX];

	format_bytes(g->net_bytes < 0 ? -g->net_bytes : g->net_bytes, net, sizeof(net));
	format_bytes(g->file_bytes, file, sizeof(file));
	msg_fprint(out, g->net_bytes < 0 ? MSG_SHOW_GROUP_MEMORY_SHRANK : MSG_SHOW_GROUP_MEMORY, net,
		   file);
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
	.views = { "groups", "flamegraph", "functions" },
	.pprof_match = memory_pprof_match,
	.capture = &capture,
	.group_add = memory_group_add,
	.answer = memory_answer,
	.group_json = memory_group_json,
	.group_text = memory_group_text,
};
