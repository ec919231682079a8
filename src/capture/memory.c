// SPDX-License-Identifier: MIT
/*
 * "Where memory grows": memory.bpf.c sends each move of a process's resident set (about
 * every 32 pages) with the stacks that made it: anon and shmem growth as grown/bytes,
 * file-backed growth as file/bytes, and anon and shmem given back as freed/bytes (the net
 * growth is grown less freed). This is the question's row.
 */
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
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

const struct capture_question capture_question_memory = {
	.id = QUESTION_MEMORY,
	.open = memory_open,
	.destroy = memory_destroy,
	.events_per_cpu = memory_events_per_cpu,
	.attach = memory_attach,
	.probe = memory_probe,
};
