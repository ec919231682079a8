// SPDX-License-Identifier: MIT
/*
 * The unwind worker's batch (unwinding.c), made of its steps (unwinding_job.c): the
 * order processes are served in when many wait at once, as at a capture's start. Every
 * process gets the tables already loaded right away; then binaries never read are read
 * for the process that needs the fewest first, counted again after each read, and a
 * process sampled meanwhile joins between two reads.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capture/unwinding.h"
#include "capture/unwinding_internal.h"

/* Past this many processes waiting for binaries, a batch orders them by what they needed
 * when they came, instead of counting again before each process's reads (a count looks
 * up every mapping of every waiting process). */
#define BATCH_REORDER_MAX 512

/* The processes of a batch still waiting for binaries never read, in the order they
 * came; and every job the batch took, freed at its end. */
struct batch {
	struct job **waiting;
	size_t *unknown;      /* of waiting[i], when last counted */
	size_t n, cap;
	struct job *taken;
	bool no_memory;       /* waiting could not grow: each job is run whole as it comes */
};

static size_t job__unknown(struct unwinding *u, const struct job *j)
{
	size_t unknown = 0;

	for (size_t i = 0; i < j->n; i++)
		unknown += !unwinding__find(u, j->maps[i].dev, j->maps[i].ino);
	return unknown;
}

/* waiting[i] leaves the batch's order (the job itself is freed with the batch). */
static struct job *batch__remove(struct batch *b, size_t i)
{
	struct job *j = b->waiting[i];

	b->n--;
	memmove(&b->waiting[i], &b->waiting[i + 1], (b->n - i) * sizeof(*b->waiting));
	memmove(&b->unknown[i], &b->unknown[i + 1], (b->n - i) * sizeof(*b->unknown));
	return j;
}

/* waiting[i] is dropped: a newer job of its pid came, or the worker stops. */
static void batch__drop(struct unwinding *u, struct batch *b, size_t i)
{
	batch__remove(b, i);
	atomic_fetch_add(&u->jobs_out, 1);
}

static bool batch__grow(struct batch *b)
{
	size_t cap = b->cap ? b->cap * 2 : 64;
	struct job **waiting;
	size_t *unknown;

	if (b->n < b->cap)
		return true;
	waiting = realloc(b->waiting, cap * sizeof(*waiting));
	if (waiting)
		b->waiting = waiting;
	unknown = waiting ? realloc(b->unknown, cap * sizeof(*unknown)) : NULL;
	if (unknown)
		b->unknown = unknown;
	if (!waiting || !unknown)
		return false;
	b->cap = cap;
	return true;
}

/*
 * Takes list into the batch, in the order things happened: interpreters first; then each
 * process gets the tables already loaded (libc, shared by all) right away, and waits for
 * the binaries never read. A job followed by another of the same pid (an exit, an exec
 * and a new image) is left out, whether it came in the same list or waits from before.
 */
static void batch__take(struct unwinding *u, struct batch *b, struct job *list)
{
	struct job *last = NULL;

	unwinding__runtime_jobs(u, list);
	for (struct job *j = list; j; last = j, j = j->next) {
		bool superseded = false;
		size_t unknown;

		for (struct job *later = j->next; later && !superseded; later = later->next)
			superseded = later->pid == j->pid;
		if (superseded) {
			atomic_fetch_add(&u->jobs_out, 1);
			continue;
		}
		for (size_t i = 0; i < b->n; i++)
			if (b->waiting[i]->pid == j->pid) {
				batch__drop(u, b, i);
				break;
			}
		unknown = unwinding__run_job(u, j, b->no_memory);
		if (!unknown) {
			unwinding__done(u, j);
		} else if (batch__grow(b)) {
			b->waiting[b->n] = j;
			b->unknown[b->n++] = unknown;
		} else {
			b->no_memory = true;
			unwinding__run_job(u, j, true);
			unwinding__done(u, j);
		}
	}
	if (last) {
		last->next = b->taken;
		b->taken = list;
	}
}

/* The next process to read binaries for: the one that needs the fewest now (others' reads
 * may have brought what it needed), the first come among equals. */
static size_t batch__next(struct unwinding *u, struct batch *b)
{
	size_t best = 0;

	for (size_t i = 0; i < b->n; i++) {
		if (b->n <= BATCH_REORDER_MAX)
			b->unknown[i] = job__unknown(u, b->waiting[i]);
		if (b->unknown[i] < b->unknown[best])
			best = i;
	}
	return best;
}

/*
 * One batch: everything queued at once, and what comes while it runs. Cheap work first:
 * every process gets the tables already loaded right away; then binaries never seen are
 * read, for the process that needs the fewest first, counted again after each (the one
 * that brought libc leaves every other process needing only its own). At a capture's
 * start the busy processes are queued at once, and one must not wait behind another's
 * large binaries; a process sampled for the first time meanwhile joins the batch between
 * two processes' reads, not after the whole of it.
 */
void unwinding__run_batch(struct unwinding *u, struct job *list)
{
	struct batch b = { 0 };

	batch__take(u, &b, list);
	while (b.n && !atomic_load_explicit(&u->stop, memory_order_relaxed)) {
		struct job *j;

		list = unwinding__take_queue(u);
		if (list)
			batch__take(u, &b, list);
		if (!b.n)
			break;
		j = batch__remove(&b, batch__next(u, &b));
		unwinding__run_job(u, j, true);
		unwinding__done(u, j);
	}
	/* Stopped: what still waits is dropped. */
	while (b.n)
		batch__drop(u, &b, b.n - 1);
	free(b.waiting);
	free(b.unknown);
	while (b.taken) {
		struct job *next = b.taken->next;

		free(b.taken);
		b.taken = next;
	}
}
