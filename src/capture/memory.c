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

static struct bpf_object *memory_open(void **skel)
{
	struct memory_bpf *s = memory_bpf__open();

	*skel = s;
	return s ? s->obj : NULL;
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
	return capture_session__attach_tracing(s, l, programs, 1);
}

static int memory_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	return bpf_loaded__probe_tracing(l, programs, 1, detail, size);
}

const struct capture_question capture_question_memory = {
	.id = QUESTION_MEMORY,
	.open = memory_open,
	.destroy = memory_destroy,
	.events_per_cpu = memory_events_per_cpu,
	.attach = memory_attach,
	.probe = memory_probe,
};
