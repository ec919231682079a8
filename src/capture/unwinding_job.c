// SPDX-License-Identifier: MIT
/*
 * The unwind worker's steps (unwinding.c), which its batches are made of
 * (unwinding_batch.c): the queue taken, the runtimes of the processes in it looked for,
 * one process loaded with its binaries' tables, a job marked done.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "capture/guarded_read.h"
#include "capture/jvm_procs.h"
#include "capture/python_procs.h"
#include "capture/unwinding.h"
#include "capture/unwinding_internal.h"
#include "capture/v8_procs.h"
#include "elf/elf_file.h"
#include "util/clock.h"

/*
 * The copies of j's binaries on mounts that may not answer, waited for: their readers
 * have been at it since the sampling side met them. One whose file system does not answer
 * is given up within GUARDED_READ_ANSWER_S of its reader's last word (and every other of
 * that device with it); the end of sampling stops the wait. Each is waited for once a
 * job: a binary shared by many processes is the same read, whose outcome stays.
 */
static void job__resolve_copies(struct unwinding *u, struct job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		struct unwinding_mapping *m = &j->maps[i];

		if (m->fd >= 0 || !m->guarded)
			continue;
		if (guarded_file__wait(m->guarded, &u->stop, 0) == 0) {
			m->fd = guarded_file__fd(m->guarded);
			m->copy = true;
		}
		m->guarded = NULL;
	}
}

/* The interpreters and JVMs of the jobs of list not looked at yet (capture/python_procs.h,
 * capture/jvm_procs.h). */
void unwinding__runtime_jobs(struct unwinding *u, struct job *list)
{
	for (struct job *j = list; j; j = j->next)
		if (!j->remove)
			job__resolve_copies(u, j);
	for (struct job *j = list; j && (u->python || u->jvm || u->v8); j = j->next) {
		if (j->runtimes_done)
			continue;
		j->runtimes_done = true;
		if (j->remove) {
			if (u->python)
				python_procs__remove_process(u->python, j->pid);
			if (u->jvm)
				jvm_procs__remove_process(u->jvm, j->pid);
			if (u->v8)
				v8_procs__remove_process(u->v8, j->pid);
		} else {
			if (u->python)
				python_procs__add_process(u->python, j->pid, j->maps, j->n);
			if (u->jvm)
				jvm_procs__add_process(u->jvm, j->pid, j->maps, j->n);
			if (u->v8)
				v8_procs__add_process(u->v8, j->pid, j->maps, j->n);
		}
	}
}

/* The queue, taken whole (u->lock held): the jobs in the order they came. */
struct job *unwinding__take_queue_locked(struct unwinding *u)
{
	struct job *list = u->head;

	u->head = NULL;
	u->tail = &u->head;
	return list;
}

/* The same, taking the lock. */
struct job *unwinding__take_queue(struct unwinding *u)
{
	struct job *list;

	pthread_mutex_lock(&u->lock);
	list = unwinding__take_queue_locked(u);
	pthread_mutex_unlock(&u->lock);
	return list;
}

/*
 * The interpreters of the processes queued since the batch began: a millisecond or so
 * each, looked for between the binaries a batch reads (up to seconds each), so that a
 * Python process's frames never wait for other processes' tables. The queue is taken
 * whole and put back in front of what arrived meanwhile: the sampling thread never
 * waits for this.
 */
static void unwinding__run_runtimes(struct unwinding *u)
{
	struct job *list, *last;

	if (!u->python && !u->jvm && !u->v8)
		return;
	list = unwinding__take_queue(u);
	if (!list)
		return;
	unwinding__runtime_jobs(u, list);
	for (last = list; last->next; last = last->next)
		;
	pthread_mutex_lock(&u->lock);
	last->next = u->head;
	if (!u->head)
		u->tail = &last->next;
	u->head = list;
	pthread_mutex_unlock(&u->lock);
}

/*
 * Loads j's process with the tables of its binaries. read_new: binaries never seen are
 * read (and their tables got) now; otherwise they are left out for the moment. Returns
 * how many were left out that way (0: the process is complete).
 */
size_t unwinding__run_job(struct unwinding *u, const struct job *j, bool read_new)
{
	struct unwind_mapping *maps;
	size_t n = 0, unknown = 0;
	/* maps[i]'s binary, by its index in u->known: reading a new one may move them all. */
	size_t *known_at;

	if (j->remove) {
		unwind_maps__remove_process(u->maps, (uint32_t)j->pid);
		return 0;
	}
	maps = calloc(j->n ? j->n : 1, sizeof(*maps));
	known_at = calloc(j->n ? j->n : 1, sizeof(*known_at));
	if (!maps || !known_at) {
		free(maps);
		free(known_at);
		return 0;
	}
	for (size_t i = 0; i < j->n; i++) {
		const struct unwinding_mapping *m = &j->maps[i];
		struct known *k;
		uint64_t vaddr;

		/* Sampling is over: the session is waiting, not for one more binary. */
		if (atomic_load_explicit(&u->stop, memory_order_relaxed)) {
			free(maps);
			free(known_at);
			return 0;
		}
		if (read_new)
			unwinding__run_runtimes(u);
		k = read_new ? unwinding__get(u, m) : unwinding__find(u, m->dev, m->ino);
		if (!k) {
			unknown++;
			continue;
		}
		/* Evicted since (by another process's new tables): read again. */
		if (k->in_maps && !k->table && !unwind_maps__loaded(u->maps, k->info.build_id)) {
			k->in_maps = false;
			known__table(u, k, m->fd);
		}
		if ((!k->table && !k->in_maps) ||
		    !elf_info__offset_to_vaddr(&k->info, m->offset, &vaddr))
			continue;
		maps[n].start = m->start;
		maps[n].end = m->end;
		maps[n].vaddr = vaddr;
		maps[n].table = k->table;
		known_at[n] = (size_t)(k - u->known);
		n++;
	}
	for (size_t i = 0; i < n; i++)
		maps[i].build_id = u->known[known_at[i]].info.build_id;
	/* A process without a single table keeps the kernel's frame-pointer walk, which
	 * costs less than the walker doing the same. */
	if (n) {
		int64_t start = clock__monotonic_ns();

		if (unwind_maps__add_process(u->maps, (uint32_t)j->pid, maps, n) == 0 && !unknown)
			u->stats.processes++;
		u->stats.load_ns += clock__monotonic_ns() - start;
	}
	free(maps);
	free(known_at);
	return unknown;
}

/* j is done: loaded, or dropped. */
void unwinding__done(struct unwinding *u, const struct job *j)
{
	if (!j->remove) {
		uint64_t waited = (uint64_t)(clock__monotonic_ns() - j->queued_ns);

		u->stats.wait_total_ns += waited;
		u->stats.waited++;
		if (waited > u->stats.wait_max_ns)
			u->stats.wait_max_ns = waited;
	}
	atomic_fetch_add(&u->jobs_out, 1);
}
