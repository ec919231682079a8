// SPDX-License-Identifier: MIT
/*
 * The resident profiler: each question's BPF object loaded once and kept, reset for
 * each capture, attached only while one runs (session.c closes every link). See
 * profiler.h.
 *
 * Reset: a kept object's maps hold what the last capture left. The ring buffer is
 * drained by the session before it attaches; here, every hash map is emptied (processes
 * seen, interpreters, threads and waits under way: the programs were detached, so none
 * of it is current) and every array of counters or state zeroed (counters, .bss
 * globals such as the wall window), except the unwind tables (kept: they are by build
 * id, true whatever ran since) and read-only data (the object's configuration). The
 * processes' unwind mappings are forgotten (a pid may be another process now); each
 * process is loaded again, from the tables already in, when it is first sampled.
 */
#include "capture/profiler.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "capture/elf_facts.h"
#include "capture/jvm_memory.h"
#include "capture/profiler_internal.h"
#include "proc/packages.h"
#include "symbols/lines.h"
#include "unwind/unwind.h"

/* Arrays larger than this are not state to zero (the unwind rows are skipped by name). */
#define RESET_ARRAY_MAX 4096
/* Entries taken per batch when emptying a hash map. */
#define RESET_BATCH 256

struct profiler *profiler__new(const char *dir)
{
	struct profiler *p = calloc(1, sizeof(*p));
	char parent[PATH_MAX];

	if (!p)
		return NULL;
	snprintf(parent, sizeof(parent), "%s", dir);
	if (asprintf(&p->unwind_dir, "%s/unwind", dir) < 0) {
		p->unwind_dir = NULL;
		goto out_nomem;
	}
	if (asprintf(&p->captures_dir, "%s/captures", dirname(parent)) < 0) {
		p->captures_dir = NULL;
		goto out_nomem;
	}
	p->dir = strdup(dir);
	if (!p->dir)
		goto out_nomem;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->memo_lock, NULL);
	p->facts = elf_facts__new(); /* NULL: every capture reads every binary's facts */
	for (int i = 0; i < QUESTION__COUNT; i++)
		bpf_loaded__close(&p->q[i].bpf); /* its empty state: no descriptors */
	return p;

out_nomem:
	free(p->unwind_dir);
	free(p->captures_dir);
	free(p);
	errno = ENOMEM;
	return NULL;
}

const char *profiler__dir(const struct profiler *p)
{
	return p->dir;
}

const char *profiler__unwind_dir(const struct profiler *p)
{
	return p->unwind_dir;
}

static void resident__unload(struct resident *r)
{
	unwind_maps__free(r->maps);
	free(r->info);
	bpf_loaded__close(&r->bpf);
	r->maps = NULL;
	r->info = NULL;
	r->loaded = false;
	r->ringbuf_size = 0;
}

static void profiler__unload_locked(struct profiler *p)
{
	profiler__forget_builds(p);
	for (int i = 0; i < QUESTION__COUNT; i++)
		resident__unload(&p->q[i]);
	capture__ksyms_free(p->ksym);
	p->ksym = NULL;
	p->ksym_failed = false;
	jvm_memory__free(p->jvm_memory);
	p->jvm_memory = NULL;
	p->jvm_memory_failed = false;
}

bool profiler__installed(struct profiler *p)
{
	bool any = false;

	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < QUESTION__COUNT; i++)
		any = any || p->q[i].loaded;
	pthread_mutex_unlock(&p->lock);
	return any;
}

bool profiler__will_install(struct profiler *p, enum question q)
{
	bool loaded;

	if ((unsigned)q >= QUESTION__COUNT)
		return false;
	pthread_mutex_lock(&p->lock);
	loaded = p->q[q].loaded;
	pthread_mutex_unlock(&p->lock);
	return !loaded;
}

static int resident__load(struct resident *r, const struct capture_question *q,
			  size_t ringbuf_size, const struct unwind_maps_plan *plan)
{
	int err = bpf_loaded__load(&r->bpf, q, ringbuf_size, plan);
	int rows, tables, procs;

	if (err)
		return err;
	r->info = calloc(r->bpf.nmaps ? r->bpf.nmaps : 1, sizeof(*r->info));
	if (!r->info)
		goto out_nomem;
	for (int i = 0; i < r->bpf.nmaps; i++) {
		__u32 len = sizeof(r->info[i]);

		if (r->bpf.map_fds[i] < 0 ||
		    bpf_obj_get_info_by_fd(r->bpf.map_fds[i], &r->info[i], &len))
			r->info[i].type = BPF_MAP_TYPE_UNSPEC; /* left alone */
	}
	rows = bpf_loaded__map(&r->bpf, "unwind_rows");
	tables = bpf_loaded__map(&r->bpf, "unwind_tables");
	procs = bpf_loaded__map(&r->bpf, "unwind_procs");
	if (rows >= 0 && tables >= 0 && procs >= 0) {
		r->maps = unwind_maps__new(plan, rows, tables, procs);
		if (!r->maps)
			goto out_nomem;
	}
	r->ringbuf_size = ringbuf_size;
	r->plan = *plan;
	r->loaded = true;
	return 0;

out_nomem:
	resident__unload(r);
	return -ENOMEM;
}

/* Kept as they are: the ring buffer (the session drains it), the unwind maps (their
 * bookkeeping, unwind_maps, resets what must be), and read-only data. */
static bool map_kept(const char *name, const struct bpf_map_info *info)
{
	static const char *const kept[] = { "records", "unwind_rows", "unwind_tables",
					    "unwind_procs" };

	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
		if (strcmp(name, kept[i]) == 0)
			return true;
	return (info->map_flags & BPF_F_RDONLY_PROG) || strstr(name, ".rodata") ||
	       strstr(name, ".kconfig") || strstr(name, ".data");
}

static bool map_is_hash(__u32 type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_LRU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static bool map_is_percpu(__u32 type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* The bytes of one value as user space reads and writes it. */
static size_t value_bytes(const struct bpf_map_info *info)
{
	int ncpus = libbpf_num_possible_cpus();

	if (!map_is_percpu(info->type))
		return info->value_size;
	return ((info->value_size + 7) & ~7u) * (size_t)(ncpus > 0 ? ncpus : 1);
}

/* Every entry deleted: by batches where the kernel has them, else one by one. */
static int empty_hash(int fd, const struct bpf_map_info *info)
{
	size_t vbytes = value_bytes(info);
	void *keys = calloc(RESET_BATCH, info->key_size ? info->key_size : 1);
	void *values = calloc(RESET_BATCH, vbytes ? vbytes : 1);
	__u64 token = 0;
	void *in = NULL;
	int err = 0;

	if (!keys || !values) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		__u32 count = RESET_BATCH;

		if (bpf_map_lookup_and_delete_batch(fd, in, &token, keys, values, &count, NULL)) {
			if (errno == ENOENT)
				goto out; /* the last batch was taken */
			break;    /* no batches here: one by one */
		}
		in = &token;
	}
	/* keys is at least one key long. */
	while (bpf_map_get_next_key(fd, NULL, keys) == 0)
		if (bpf_map_delete_elem(fd, keys) && errno != ENOENT) {
			err = -errno;
			break;
		}
out:
	free(keys);
	free(values);
	return err;
}

static int zero_array(int fd, const struct bpf_map_info *info)
{
	void *zero = calloc(1, value_bytes(info) ? value_bytes(info) : 1);
	int err = 0;

	if (!zero)
		return -ENOMEM;
	for (__u32 k = 0; k < info->max_entries && !err; k++)
		if (bpf_map_update_elem(fd, &k, zero, BPF_ANY))
			err = -errno;
	free(zero);
	return err;
}

/* What a capture must start without, gone (see the top of this file). */
static int resident__reset(struct resident *r)
{
	int err = 0;

	for (int i = 0; i < r->bpf.nmaps && !err; i++) {
		const struct bpf_map_info *info = &r->info[i];
		int fd = r->bpf.map_fds[i];

		if (fd < 0 || map_kept(r->bpf.map_names[i], info))
			continue;
		if (map_is_hash(info->type))
			err = empty_hash(fd, info);
		else if ((info->type == BPF_MAP_TYPE_ARRAY ||
			  info->type == BPF_MAP_TYPE_PERCPU_ARRAY) &&
			 info->max_entries <= RESET_ARRAY_MAX)
			err = zero_array(fd, info);
	}
	if (!err && r->maps)
		err = unwind_maps__forget_processes(r->maps);
	return err;
}

static bool same_plan(const struct unwind_maps_plan *a, const struct unwind_maps_plan *b)
{
	return a->budget == b->budget && a->rows == b->rows && a->procs == b->procs;
}

int profiler__take(struct profiler *p, const struct capture_question *q, size_t ringbuf_size,
		   const struct unwind_maps_plan *plan, struct bpf_loaded **bpf,
		   struct unwind_maps **maps, bool *installed)
{
	struct resident *r = &p->q[q->id];
	int err;

	*installed = false;
	pthread_mutex_lock(&p->lock);
	if (p->busy) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	p->busy = true;
	pthread_mutex_unlock(&p->lock);

	/* The capture holds it now; the lock is for those who ask what is loaded. */
	pthread_mutex_lock(&p->lock);
	/* A larger ring buffer (a higher rate) or another memory plan: loaded again. */
	if (r->loaded && (r->ringbuf_size < ringbuf_size || !same_plan(&r->plan, plan)))
		resident__unload(r);
	pthread_mutex_unlock(&p->lock);
	if (r->loaded && resident__reset(r)) {
		/* A state we cannot vouch for: loaded afresh. */
		pthread_mutex_lock(&p->lock);
		resident__unload(r);
		pthread_mutex_unlock(&p->lock);
	}
	if (!r->loaded) {
		pthread_mutex_lock(&p->lock);
		/* One question's programs stay loaded at a time: each holds unwind maps of a
		 * whole memory plan (64 MB by default), so keeping all five would hold five
		 * times what one capture needs. The tables stay on disk; a capture of the same
		 * question again starts at once, another question loads its own first. */
		for (int i = 0; i < QUESTION__COUNT; i++)
			if (i != (int)q->id && p->q[i].loaded)
				resident__unload(&p->q[i]);
		err = resident__load(r, q, ringbuf_size, plan);
		pthread_mutex_unlock(&p->lock);
		if (err)
			goto out_release;
		*installed = true;
	}
	*bpf = &r->bpf;
	*maps = r->maps;
	return 0;

out_release:
	pthread_mutex_lock(&p->lock);
	p->busy = false;
	pthread_mutex_unlock(&p->lock);
	return err;
}

void profiler__give_back(struct profiler *p, const struct capture_question *q, bool keep)
{
	pthread_mutex_lock(&p->lock);
	if (!keep)
		resident__unload(&p->q[q->id]);
	p->busy = false;
	pthread_mutex_unlock(&p->lock);
}

int profiler__name_kernel_frames(struct profiler *p, struct profile *prof,
				 uint32_t kernel_mapping)
{
	/* Only a capture that holds the profiler calls this: no lock needed for ksym. */
	if (!p->ksym && !p->ksym_failed) {
		p->ksym = capture__ksyms_load();
		p->ksym_failed = !p->ksym;
	}
	if (!p->ksym)
		return -EOPNOTSUPP;
	return capture__name_kernel_frames_with(p->ksym, prof, kernel_mapping);
}

struct jvm_memory *profiler__jvm_memory(struct profiler *p)
{
	/* Only a capture that holds the profiler calls this: no lock needed. */
	if (!p->jvm_memory && !p->jvm_memory_failed) {
		p->jvm_memory = jvm_memory__new();
		p->jvm_memory_failed = !p->jvm_memory;
	}
	if (p->jvm_memory)
		jvm_memory__forget_all(p->jvm_memory);
	return p->jvm_memory;
}

int profiler__unload(struct profiler *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->busy) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	profiler__unload_locked(p);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int profiler__remove(struct profiler *p, struct remove_report *rep)
{
	int err, e;

	pthread_mutex_lock(&p->lock);
	if (p->busy) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	err = remove_report__init(rep);
	if (!err) {
		profiler__unload_locked(p);
		err = remove_report__path(rep, p->dir);
		e = remove_report__path(rep, p->captures_dir);
		err = err ? err : e;
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

void profiler__free(struct profiler *p)
{
	if (!p)
		return;
	profiler__unload_locked(p);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->memo_lock);
	elf_facts__free(p->facts);
	free(p->dir);
	free(p->unwind_dir);
	free(p->captures_dir);
	free(p);
}
