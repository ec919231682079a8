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
 * unwinding_binaries.c's; the order it serves processes in, unwinding_batch.c's; the
 * steps a batch is made of (a process loaded, the queue taken), unwinding_job.c's.
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
