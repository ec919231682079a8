// SPDX-License-Identifier: MIT
/*
 * "Where memory grows": memory.bpf.c sends each move of a process's resident set (about
 * every 32 pages) with the stacks that made it: anon and shmem growth as grown/bytes,
 * file-backed growth as file/bytes, and anon and shmem given back as freed/bytes (the net
 * growth is grown less freed). This is the question's row.
 */
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "questions/question.h"
#include "memory.skel.h"

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
	.q = QUESTION_MEMORY,
	.id = "memory",
	.title = "Where memory grows",
	.value_types = { { "grown", "bytes" }, { "file", "bytes" }, { "freed", "bytes" } },
	.max_value = -1,
	.views = { "groups", "flamegraph", "functions" },
	.pprof_match = memory_pprof_match,
	.capture = &capture,
};
