// SPDX-License-Identifier: MIT
/*
 * The unwind worker. Workload: a burst of processes when a capture starts (each the first
 * time it is sampled), then one now and then (exec, dlopen); a server maps a few hundred
 * distinct binaries, most of them shared (libc in every process), so each binary is read
 * once and its table loaded once, whatever the number of processes mapping it. Building
 * a table costs milliseconds (Debian's libc: ~24k rows) and is cached on disk by build
 * id, so the next capture only reads it back.
 *
 * The sampling thread hands over jobs through a mutex-protected queue and a condition
 * variable; the worker alone touches the tables and the BPF maps. It runs at the
 * capture's priority, which it inherits (raised: pipeline.h's PIPELINE_NICE; a lower one
 * starves it on a busy server, and every sample taken before a process's tables are in
 * is a frame-pointer stack), within its own time budget: past it, binaries not yet read
 * keep frame pointers. Each binary it looks at (build id, table) is
 * unwinding_binaries.c's; the order it serves processes in, unwinding_batch.c's.
 */
#include "capture/unwinding.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/guarded_read.h"
#include "capture/jvm_procs.h"
#include "capture/v8_procs.h"
#include "capture/python_procs.h"
#include "capture/unwinding_internal.h"
#include "elf/elf_file.h"
#include "util/clock.h"

int unwinding__plan(uint64_t budget, struct unwind_maps_plan *plan)
{
	return unwind_maps__plan(budget ? budget : UNWINDING_BUDGET_DEFAULT, plan);
}

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
static struct job *unwinding__take_queue_locked(struct unwinding *u)
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

static void *unwinding__worker(void *arg)
{
	struct unwinding *u = arg;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		struct job *batch;

		while (!u->head && !u->stop) {
			u->busy = false;
			pthread_cond_broadcast(&u->idle);
			pthread_cond_wait(&u->wake, &u->lock);
		}
		if (u->stop)
			break;
		u->busy = true;
		batch = unwinding__take_queue_locked(u);
		pthread_mutex_unlock(&u->lock);
		unwinding__run_batch(u, batch);
		pthread_mutex_lock(&u->lock);
	}
	u->busy = false;
	pthread_cond_broadcast(&u->idle);
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

static struct unwinding *unwinding__start(const struct unwind_maps_plan *plan, int rows_fd,
					  int tables_fd, int procs_fd, struct unwind_maps *maps,
					  const char *cache_dir)
{
	struct unwinding *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return NULL;
	u->tail = &u->head;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->wake, NULL);
	{
		/* unwinding__wait's deadline is CLOCK_MONOTONIC, as every clock of a capture. */
		pthread_condattr_t attr;

		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&u->idle, &attr);
		pthread_condattr_destroy(&attr);
	}
	if (cache_dir && !(u->cache_dir = strdup(cache_dir)))
		goto out_nomem;
	u->owns_maps = !maps;
	u->maps = maps ? maps : unwind_maps__new(plan, rows_fd, tables_fd, procs_fd);
	if (!u->maps)
		goto out_nomem;
	err = pthread_create(&u->thread, NULL, unwinding__worker, u);
	if (err) {
		unwinding__free(u);
		errno = err;
		return NULL;
	}
	u->started = true;
	return u;

out_nomem:
	unwinding__free(u);
	errno = ENOMEM;
	return NULL;
}

struct unwinding *unwinding__new(const struct unwind_maps_plan *plan, int rows_fd,
				 int tables_fd, int procs_fd, const char *cache_dir)
{
	return unwinding__start(plan, rows_fd, tables_fd, procs_fd, NULL, cache_dir);
}

struct unwinding *unwinding__new_on(struct unwind_maps *maps, const char *cache_dir)
{
	return unwinding__start(NULL, -1, -1, -1, maps, cache_dir);
}

static int unwinding__queue(struct unwinding *u, struct job *j)
{
	pthread_mutex_lock(&u->lock);
	if (u->stop) {
		pthread_mutex_unlock(&u->lock);
		free(j);
		return 0;
	}
	*u->tail = j;
	u->tail = &j->next;
	u->busy = true; /* from now until the worker has run it */
	atomic_fetch_add(&u->jobs_in, 1);
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	return 0;
}

void unwinding__set_python(struct unwinding *u, struct python_procs *pp)
{
	pthread_mutex_lock(&u->lock);
	u->python = pp;
	pthread_mutex_unlock(&u->lock);
}

void unwinding__set_jvm(struct unwinding *u, struct jvm_procs *jp)
{
	pthread_mutex_lock(&u->lock);
	u->jvm = jp;
	pthread_mutex_unlock(&u->lock);
}

void unwinding__set_v8(struct unwinding *u, struct v8_procs *vp)
{
	pthread_mutex_lock(&u->lock);
	u->v8 = vp;
	pthread_mutex_unlock(&u->lock);
}

void unwinding__set_facts(struct unwinding *u, struct elf_facts *facts)
{
	pthread_mutex_lock(&u->lock);
	u->facts = facts;
	pthread_mutex_unlock(&u->lock);
}

int unwinding__add_process(struct unwinding *u, int pid, const struct unwinding_mapping *maps,
			   size_t n)
{
	struct job *j = calloc(1, sizeof(*j) + n * sizeof(*maps));

	if (!j)
		return -ENOMEM;
	j->pid = pid;
	j->n = n;
	j->queued_ns = clock__monotonic_ns();
	memcpy(j->maps, maps, n * sizeof(*maps));
	return unwinding__queue(u, j);
}

int unwinding__remove_process(struct unwinding *u, int pid)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->pid = pid;
	j->remove = true;
	return unwinding__queue(u, j);
}

int unwinding__wait(struct unwinding *u, int64_t deadline_ns)
{
	struct timespec until = {
		.tv_sec = deadline_ns / 1000000000,
		.tv_nsec = deadline_ns % 1000000000,
	};
	int err = 0;

	pthread_mutex_lock(&u->lock);
	while ((u->busy || u->head) && !u->stop && err == 0)
		err = pthread_cond_timedwait(&u->idle, &u->lock, &until);
	err = (u->busy || u->head) && !u->stop ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&u->lock);
	return err;
}

uint32_t unwinding__pending(const struct unwinding *u)
{
	uint32_t in = (uint32_t)atomic_load(&u->jobs_in), out = (uint32_t)atomic_load(&u->jobs_out);

	return in > out ? in - out : 0;
}

void unwinding__stop(struct unwinding *u)
{
	struct job *j;

	if (!u || u->stopped)
		return;
	pthread_mutex_lock(&u->lock);
	u->stop = true;
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	if (u->started)
		pthread_join(u->thread, NULL);
	u->stopped = true;
	while ((j = u->head)) {
		u->head = j->next;
		free(j);
	}
	u->tail = &u->head;
	u->stats.build_ns = u->spent_ns;
	if (u->maps)
		unwind_maps__stats(u->maps, &u->stats.maps);
}

void unwinding__stats(const struct unwinding *u, struct unwinding_stats *stats)
{
	*stats = u->stats;
}

void unwinding__free(struct unwinding *u)
{
	if (!u)
		return;
	unwinding__stop(u);
	for (size_t i = 0; i < u->nknown; i++)
		unwind_table__free(u->known[i].table);
	free(u->known);
	free(u->index);
	if (u->owns_maps)
		unwind_maps__free(u->maps);
	free(u->cache_dir);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->wake);
	pthread_cond_destroy(&u->idle);
	free(u);
}
