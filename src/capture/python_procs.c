// SPDX-License-Identifier: MIT
/*
 * CPython in the processes of a capture. Workload: a few binaries read (python3.X or a
 * libpython, once each per capture, ~1 ms: the dynamic symbols and a few words), one map
 * update per process running it, and a lookup per sample that carries Python frames (a
 * few hundred a second, against at most some hundreds of entries).
 */
#include "capture/python_procs.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "capture/unwinding.h"
#include "unwind/python.h"

/* A binary the worker looked at. */
struct python_known {
	dev_t dev;
	uint64_t ino;
	bool python;             /* CPython 3.6-3.13, with bin read */
	struct python_binary bin;
};

struct python_procs {
	int map_fd;
	/* The worker's own. */
	struct python_known *known;
	size_t nknown, cap_known;
	/* Shared with the sampling side, under lock. */
	pthread_mutex_t lock;
	struct python_procs_entry *procs;
	size_t nprocs, cap_procs;
	uint32_t found;
};

struct python_procs *python_procs__new(int map_fd)
{
	struct python_procs *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return NULL;
	pp->map_fd = map_fd;
	pthread_mutex_init(&pp->lock, NULL);
	return pp;
}

void python_procs__free(struct python_procs *pp)
{
	if (!pp)
		return;
	free(pp->known);
	free(pp->procs);
	pthread_mutex_destroy(&pp->lock);
	free(pp);
}

/* The binary of m, read when first met. NULL: out of memory. */
static const struct python_known *python_procs__binary(struct python_procs *pp,
						       const struct unwinding_mapping *m)
{
	struct python_known *k;

	for (size_t i = 0; i < pp->nknown; i++)
		if (pp->known[i].dev == m->dev && pp->known[i].ino == m->ino)
			return &pp->known[i];
	if (pp->nknown == pp->cap_known) {
		size_t cap = pp->cap_known ? pp->cap_known * 2 : 16;
		struct python_known *grown = realloc(pp->known, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		pp->known = grown;
		pp->cap_known = cap;
	}
	k = &pp->known[pp->nknown++];
	memset(k, 0, sizeof(*k));
	k->dev = m->dev;
	k->ino = m->ino;
	k->python = python_binary__read(m->fd, m->path, &k->bin) == 0;
	return k;
}

/* An ELF virtual address of bin as a file offset; 0 when no segment holds it. */
static uint64_t python_binary__offset(const struct python_binary *bin, uint64_t vaddr)
{
	for (unsigned i = 0; i < bin->nsegments; i++) {
		uint64_t v = bin->segments[i].vaddr;

		if (vaddr >= v && vaddr < v + bin->segments[i].filesz)
			return vaddr - v + bin->segments[i].offset;
	}
	return 0;
}

static void python_procs__publish(struct python_procs *pp, const struct python_procs_entry *e)
{
	pthread_mutex_lock(&pp->lock);
	for (size_t i = 0; i < pp->nprocs; i++) {
		if (pp->procs[i].pid == e->pid) {
			pp->procs[i] = *e;
			goto out;
		}
	}
	if (pp->nprocs == pp->cap_procs) {
		size_t cap = pp->cap_procs ? pp->cap_procs * 2 : 16;
		struct python_procs_entry *grown = realloc(pp->procs, cap * sizeof(*grown));

		if (!grown)
			goto out; /* the sampling side then leaves evaluator frames as they are */
		pp->procs = grown;
		pp->cap_procs = cap;
	}
	pp->procs[pp->nprocs++] = *e;
	pp->found++;
out:
	pthread_mutex_unlock(&pp->lock);
}

void python_procs__add_process(struct python_procs *pp, int pid,
			       const struct unwinding_mapping *maps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct unwinding_mapping *m = &maps[i];
		const struct python_known *k;
		struct python_procs_entry e = { 0 };
		struct python_proc proc;
		uint32_t key = (uint32_t)pid;

		if (m->fd < 0 || !m->path || !python_binary__is_candidate(m->path))
			continue;
		k = python_procs__binary(pp, m);
		if (!k || !k->python ||
		    python_proc__init(&k->bin, m->start, m->offset, &proc) != 0)
			continue;
		/* Its Python frames from the next sample on. */
		if (bpf_map_update_elem(pp->map_fd, &key, &proc, BPF_ANY))
			return;
		e.pid = pid;
		e.dev = k->dev;
		e.ino = k->ino;
		e.minor = k->bin.minor;
		if (k->bin.eval_start) {
			e.eval_start = python_binary__offset(&k->bin, k->bin.eval_start);
			e.eval_end = e.eval_start + (k->bin.eval_end - k->bin.eval_start);
		}
		python_procs__publish(pp, &e);
		return;
	}
}

void python_procs__remove_process(struct python_procs *pp, int pid)
{
	uint32_t key = (uint32_t)pid;

	bpf_map_delete_elem(pp->map_fd, &key);
	pthread_mutex_lock(&pp->lock);
	for (size_t i = 0; i < pp->nprocs; i++) {
		if (pp->procs[i].pid == pid) {
			pp->procs[i] = pp->procs[--pp->nprocs];
			break;
		}
	}
	pthread_mutex_unlock(&pp->lock);
}

bool python_procs__find(struct python_procs *pp, int pid, struct python_procs_entry *out)
{
	bool found = false;

	pthread_mutex_lock(&pp->lock);
	for (size_t i = 0; i < pp->nprocs; i++) {
		if (pp->procs[i].pid == pid) {
			*out = pp->procs[i];
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&pp->lock);
	return found;
}

uint32_t python_procs__count(struct python_procs *pp)
{
	uint32_t n;

	pthread_mutex_lock(&pp->lock);
	n = pp->found;
	pthread_mutex_unlock(&pp->lock);
	return n;
}
