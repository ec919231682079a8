// SPDX-License-Identifier: MIT
/*
 * The unwind worker's state (struct unwinding), shared by unwinding.c (the worker, its
 * queue), unwinding_batch.c (the order of a batch), unwinding_job.c (the steps of one:
 * loading each process) and unwinding_binaries.c (each binary it looks at: its build id,
 * its table).
 */
#ifndef SLIDEOPS_CAPTURE_UNWINDING_INTERNAL_H
#define SLIDEOPS_CAPTURE_UNWINDING_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/unwinding.h"
#include "elf/elf_file.h"

/* The worker's time for reading binaries and building tables, per capture. */
#define WORKER_BUDGET_NS (10ull * 1000000000ull)
/* Per binary: the engine's caps (binaries.h), and a table's own. */
#define TABLE_MAX_MS 1000

struct job {
	struct job *next;
	int pid;
	bool remove;
	bool runtimes_done; /* its interpreters and JVM were looked for */
	int64_t queued_ns;  /* when the sampling side queued it (CLOCK_MONOTONIC) */
	size_t n;
	struct unwinding_mapping maps[]; /* n */
};

/* A binary the worker has looked at, by file identity. */
struct known {
	dev_t dev;
	uint64_t ino;
	bool ok;                 /* info was read */
	struct elf_info info;
	struct unwind_table *table; /* NULL: frame pointers, unless in_maps */
	/* Its table is in the maps already (a resident profiler's, loaded by an earlier
	 * capture): not read again while it stays there. */
	bool in_maps;
};

struct unwinding {
	pthread_t thread;
	bool started, stopped;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job *head, **tail; /* under lock */
	atomic_bool stop;         /* set under lock; read without it between binaries */
	bool busy;                /* under lock: the worker runs a batch */
	pthread_cond_t idle;      /* the queue is empty and no batch runs */
	atomic_uint_fast32_t jobs_in, jobs_out; /* queued, and done (loaded or dropped) */

	/* The worker's own from here. */
	char *cache_dir;
	struct unwind_maps *maps;
	bool owns_maps;           /* false: a resident profiler's (capture/profiler.h) */
	struct known *known;
	size_t nknown, cap_known;
	/* known by (dev, ino): open addressing, each slot an index into known + 1 (0: empty),
	 * at most half full. */
	uint32_t *index;
	size_t index_cap;
	uint64_t spent_ns;
	struct unwinding_stats stats;
	struct python_procs *python; /* set before any job (under lock), then the worker's */
	struct jvm_procs *jvm;       /* the same for JVMs */
	struct v8_procs *v8;         /* and for node processes */
	struct elf_facts *facts;  /* a resident profiler's, or NULL; set before any job */
};

/* The binary of m (dev, ino), looked at now if it never was: NULL without memory. */
struct known *unwinding__get(struct unwinding *u, const struct unwinding_mapping *m);
/* The binary dev, ino if it was looked at; NULL otherwise. */
struct known *unwinding__find(struct unwinding *u, dev_t dev, uint64_t ino);
/* k's table: from the cache, else built from fd within the caps (and cached). */
void known__table(struct unwinding *u, struct known *k, int fd);

/* ---- the worker's steps (unwinding_job.c), which a batch runs (unwinding_batch.c) ---- */

/* The interpreters, JVMs and node processes of list's jobs not looked at yet. */
void unwinding__runtime_jobs(struct unwinding *u, struct job *list);
/* The queue's jobs, taken whole under the lock; NULL when empty. */
struct job *unwinding__take_queue(struct unwinding *u);
/* The same, u->lock held (the worker's loop, unwinding.c). */
struct job *unwinding__take_queue_locked(struct unwinding *u);
/* Loads j's process with its binaries' tables; read_new: binaries never seen are read
 * now, else left out. How many were left out (0: the process is complete). */
size_t unwinding__run_job(struct unwinding *u, const struct job *j, bool read_new);
/* j is done: loaded, or dropped. */
void unwinding__done(struct unwinding *u, const struct job *j);
/* One batch: list and what is queued while it runs, in the order unwinding_batch.c
 * explains; takes list's jobs and frees them. */
void unwinding__run_batch(struct unwinding *u, struct job *list);

#endif
