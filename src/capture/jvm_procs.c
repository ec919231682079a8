// SPDX-License-Identifier: MIT
/*
 * JVMs in the processes of a capture (jvm_procs.h). Workload: libjvm.so's .dynsym read
 * once per binary (~500 exported symbols), a layout read once per JVM (its three
 * tables, ~100 pages read in the kernel, some milliseconds), one map update; then one
 * name per Method a sample carries, read once (the caller caches it).
 */
#include "capture/jvm_procs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "../../bpf/jvm_records.h"
#include "capture/jvm_memory.h"
#include "capture/unwinding.h"
#include "profile/profile.h"
#include "unwind/jvm.h"
#include "util/messages.h"

struct jvm_known {
	dev_t dev;
	uint64_t ino;
	int err; /* jvm_binary__read's */
	struct jvm_binary bin;
};

struct jvm_entry {
	int pid;
	bool live;                /* its record is in the map */
	enum jvm_refusal refusal; /* JVM_OK: walked */
	uint64_t code_low;        /* its code cache's low bound: 'C' words count from it */
	char path[256];           /* its libjvm.so */
	struct jvm_layout layout;
};

struct jvm_procs {
	int map_fd;
	jvm_memory_reader_fn reader;
	void *reader_ctx;
	bool reader_asked;
	struct jvm_memory *mem; /* set by the worker under lock, once; NULL until then */
	/* The worker's own. */
	struct jvm_known *known;
	size_t nknown, cap_known;
	/* Shared with the sampling side, under lock. */
	pthread_mutex_t lock;
	struct jvm_entry *procs;
	size_t nprocs, cap_procs;
};

struct jvm_procs *jvm_procs__new(int map_fd, jvm_memory_reader_fn reader, void *ctx)
{
	struct jvm_procs *jp = calloc(1, sizeof(*jp));

	if (!jp)
		return NULL;
	jp->map_fd = map_fd;
	jp->reader = reader;
	jp->reader_ctx = ctx;
	pthread_mutex_init(&jp->lock, NULL);
	return jp;
}

void jvm_procs__free(struct jvm_procs *jp)
{
	if (!jp)
		return;
	free(jp->known);
	free(jp->procs);
	pthread_mutex_destroy(&jp->lock);
	free(jp);
}

static const struct jvm_known *jvm_procs__binary(struct jvm_procs *jp,
						 const struct unwinding_mapping *m)
{
	struct jvm_known *k;

	for (size_t i = 0; i < jp->nknown; i++)
		if (jp->known[i].dev == m->dev && jp->known[i].ino == m->ino)
			return &jp->known[i];
	if (jp->nknown == jp->cap_known) {
		size_t cap = jp->cap_known ? jp->cap_known * 2 : 4;
		struct jvm_known *grown = realloc(jp->known, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		jp->known = grown;
		jp->cap_known = cap;
	}
	k = &jp->known[jp->nknown++];
	memset(k, 0, sizeof(*k));
	k->dev = m->dev;
	k->ino = m->ino;
	k->err = jvm_binary__read(m->fd, &k->bin);
	return k;
}

/* The entry of pid, or a new one (an exited JVM's room reused past JVM_PROCS_MAX).
 * Under lock. NULL: no room. */
static struct jvm_entry *jvm_procs__slot(struct jvm_procs *jp, int pid)
{
	for (size_t i = 0; i < jp->nprocs; i++)
		if (jp->procs[i].pid == pid)
			return &jp->procs[i];
	if (jp->nprocs == JVM_PROCS_MAX) {
		for (size_t i = 0; i < jp->nprocs; i++)
			if (!jp->procs[i].live)
				return &jp->procs[i];
		return NULL;
	}
	if (jp->nprocs == jp->cap_procs) {
		size_t cap = jp->cap_procs ? jp->cap_procs * 2 : 8;
		struct jvm_entry *grown = realloc(jp->procs, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		jp->procs = grown;
		jp->cap_procs = cap;
	}
	return &jp->procs[jp->nprocs++];
}

/* The reader, asked for when the first JVM is met (the worker's). */
static struct jvm_memory *jvm_procs__reader(struct jvm_procs *jp)
{
	struct jvm_memory *mem;

	if (jp->reader_asked)
		return jp->mem;
	jp->reader_asked = true;
	mem = jp->reader ? jp->reader(jp->reader_ctx) : NULL;
	pthread_mutex_lock(&jp->lock);
	jp->mem = mem;
	pthread_mutex_unlock(&jp->lock);
	return mem;
}

void jvm_procs__add_process(struct jvm_procs *jp, int pid, const struct unwinding_mapping *maps,
			    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct unwinding_mapping *m = &maps[i];
		struct jvm_memory_process mp = { NULL, pid };
		const struct jvm_known *k;
		struct jvm_entry e = { .pid = pid };
		struct jvm_proc proc;
		struct jvm_entry *slot;
		uint32_t key = (uint32_t)pid;

		if (m->fd < 0 || !m->path || !jvm_binary__is_candidate(m->path))
			continue;
		k = jvm_procs__binary(jp, m);
		if (!k)
			return;
		snprintf(e.path, sizeof(e.path), "%s", m->path);
		if (!k->err)
			mp.m = jvm_procs__reader(jp);
		if (k->err == -ENOENT)
			e.refusal = JVM_NO_TABLES;
		else if (k->err || !mp.m)
			e.refusal = JVM_UNREADABLE;
		else
			/* libjvm.so's segments have file offset = virtual address (checked by
			 * the tables' statics landing in its own data: an error otherwise) */
			e.refusal = jvm_layout__read(&k->bin, m->start - m->offset,
						     jvm_memory__read, &mp, &e.layout);
		if (e.refusal == JVM_OK &&
		    jvm_proc__init(&e.layout, jvm_memory__read, &mp, &proc) != 0)
			e.refusal = JVM_UNREADABLE;
		/* the pages read for the layout are not a Method's: room for those */
		if (jp->mem)
			jvm_memory__forget(jp->mem, pid);
		e.live = e.refusal == JVM_OK;
		if (e.live)
			e.code_low = proc.code_low;
		if (e.live && bpf_map_update_elem(jp->map_fd, &key, &proc, BPF_ANY))
			e.live = false;
		pthread_mutex_lock(&jp->lock);
		slot = jvm_procs__slot(jp, pid);
		if (slot)
			*slot = e;
		pthread_mutex_unlock(&jp->lock);
		return;
	}
}

void jvm_procs__remove_process(struct jvm_procs *jp, int pid)
{
	uint32_t key = (uint32_t)pid;

	bpf_map_delete_elem(jp->map_fd, &key);
	pthread_mutex_lock(&jp->lock);
	for (size_t i = 0; i < jp->nprocs; i++)
		if (jp->procs[i].pid == pid)
			jp->procs[i].live = false;
	pthread_mutex_unlock(&jp->lock);
	if (jp->mem)
		jvm_memory__forget(jp->mem, pid);
}

/* pid's layout and code cache into l and code_low, and the reader into mp: false when
 * pid is not a walked JVM or no reader was made. */
static bool jvm_procs__layout(struct jvm_procs *jp, int pid, struct jvm_layout *l,
			      uint64_t *code_low, struct jvm_memory_process *mp)
{
	bool found = false;

	mp->pid = pid;
	pthread_mutex_lock(&jp->lock);
	mp->m = jp->mem;
	for (size_t i = 0; i < jp->nprocs; i++) {
		if (jp->procs[i].pid == pid && jp->procs[i].refusal == JVM_OK) {
			*l = jp->procs[i].layout;
			*code_low = jp->procs[i].code_low;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&jp->lock);
	return found && mp->m;
}

int jvm_procs__method_name(struct jvm_procs *jp, int pid, uint64_t method, int32_t bci,
			   char *buf, char *file, int32_t *line, int32_t *first)
{
	struct jvm_memory_process mp;
	struct jvm_layout l;
	uint64_t code_low;
	int err;

	buf[0] = '\0';
	if (file) {
		file[0] = '\0';
		*line = *first = 0;
	}
	if (!jvm_procs__layout(jp, pid, &l, &code_low, &mp))
		return -ENOENT;
	err = jvm_method__name(&l, jvm_memory__read, &mp, method, buf);
	if (!err && file &&
	    jvm_method__source(&l, jvm_memory__read, &mp, method, bci, file, line, first)) {
		file[0] = '\0';
		*line = *first = 0;
	}
	return err;
}

int jvm_procs__frame_scopes(struct jvm_procs *jp, int pid, uint64_t word, struct jvm_scope *out,
			    unsigned max, unsigned *n)
{
	struct jvm_memory_process mp;
	struct jvm_layout l;
	uint64_t code_low, tag = word & JVM_FRAME_TAG_MASK, blob, off;
	int err;

	*n = 0;
	if (!max)
		return -EINVAL;
	if (!jvm_procs__layout(jp, pid, &l, &code_low, &mp))
		return -ENOENT;
	if (tag == JVM_FRAME_TAG_BYTECODE) {
		out[0].method = (word & ((1ull << JVM_FRAME_METHOD_BITS) - 1)) << 3;
		/* a long method's index is not known: its first line */
		if (jvm_method__bci(&l, jvm_memory__read, &mp, out[0].method,
				    (uint32_t)((word >> JVM_FRAME_BCP_SHIFT) & JVM_FRAME_BCP_MASK),
				    &out[0].bci))
			out[0].bci = -1;
		*n = 1;
		return 0;
	}
	if (tag != JVM_FRAME_TAG_COMPILED) {
		out[0].method = word & JVM_FRAME_METHOD_MASK;
		out[0].bci = -1;
		*n = 1;
		return 0;
	}
	blob = code_low + ((word & JVM_FRAME_FIELD_MASK) << 3);
	off = (word >> JVM_FRAME_FIELD_BITS) & JVM_FRAME_FIELD_MASK;
	err = jvm_nmethod__scopes(&l, jvm_memory__read, &mp, blob, off, out, max, n);
	if (err == -EINVAL) {
		/* the pages kept may predate the nmethod (code is made where free space was):
		 * once more, read afresh */
		jvm_memory__forget(mp.m, pid);
		err = jvm_nmethod__scopes(&l, jvm_memory__read, &mp, blob, off, out, max, n);
	}
	return err;
}

uint64_t jvm_procs__memory_reads(struct jvm_procs *jp)
{
	uint64_t n;

	pthread_mutex_lock(&jp->lock);
	n = jp->mem ? jvm_memory__reads(jp->mem) : 0;
	pthread_mutex_unlock(&jp->lock);
	return n;
}

uint32_t jvm_procs__count(struct jvm_procs *jp, uint32_t *refused)
{
	uint32_t n = 0, r = 0;

	pthread_mutex_lock(&jp->lock);
	for (size_t i = 0; i < jp->nprocs; i++) {
		if (jp->procs[i].refusal == JVM_OK)
			n++;
		else
			r++;
	}
	pthread_mutex_unlock(&jp->lock);
	if (refused)
		*refused = r;
	return n;
}

int jvm_procs__refusals(struct jvm_procs *jp, struct profile *p)
{
	int err = 0;

	pthread_mutex_lock(&jp->lock);
	for (size_t i = 0; i < jp->nprocs && !err; i++) {
		const struct jvm_entry *e = &jp->procs[i];
		char why[512], reason[600];

		if (e->refusal == JVM_OK)
			continue;
		msg_format(why, sizeof(why), jvm_refusal__msg(e->refusal), e->layout.missing);
		msg_format(reason, sizeof(reason), MSG_RUNTIME_REFUSED_PROCESS, e->pid, why);
		err = profile__add_not_read(p, e->path, "", reason);
	}
	pthread_mutex_unlock(&jp->lock);
	return err;
}
