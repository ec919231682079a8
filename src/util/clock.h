/* SPDX-License-Identifier: MIT */
/* Clocks in nanoseconds: monotonic for intervals, real time for when things happened,
 * and the budgets of work on untrusted files. */
#ifndef SLIDEOPS_UTIL_CLOCK_H
#define SLIDEOPS_UTIL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline int64_t clock__ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t clock__monotonic_ns(void)
{
	return clock__ns(CLOCK_MONOTONIC);
}

/* Unix epoch. */
static inline int64_t clock__realtime_ns(void)
{
	return clock__ns(CLOCK_REALTIME);
}

/* CPU time the calling thread has used. */
static inline int64_t clock__thread_cpu_ns(void)
{
	return clock__ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * A time budget for work on files anyone can write (binaries, debug files): CPU time of
 * the calling thread, which is what the work costs the server, so that a busy server
 * that keeps us waiting does not leave names unread; with a backstop of wall time
 * CLOCK_BUDGET_WALL_FACTOR times as long for a file whose reads block (a FUSE mount, a
 * failing disk). Deadlines: cpu_ns on the thread's CPU clock, wall_ns on CLOCK_MONOTONIC.
 * Checked on the thread that made it. {0, 0}: no limit.
 */
#define CLOCK_BUDGET_WALL_FACTOR 8

struct clock_budget {
	int64_t cpu_ns;
	int64_t wall_ns;
};

static inline struct clock_budget clock_budget__from_now(uint64_t ns)
{
	return (struct clock_budget){
		.cpu_ns = clock__thread_cpu_ns() + (int64_t)ns,
		.wall_ns = clock__monotonic_ns() + (int64_t)ns * CLOCK_BUDGET_WALL_FACTOR,
	};
}

static inline bool clock_budget__none(const struct clock_budget *b)
{
	return !b->cpu_ns && !b->wall_ns;
}

/* The earlier of each deadline: a part of a whole never outlasts the whole. */
static inline struct clock_budget clock_budget__min(struct clock_budget a, struct clock_budget b)
{
	if (clock_budget__none(&a))
		return b;
	if (clock_budget__none(&b))
		return a;
	return (struct clock_budget){
		.cpu_ns = a.cpu_ns < b.cpu_ns ? a.cpu_ns : b.cpu_ns,
		.wall_ns = a.wall_ns < b.wall_ns ? a.wall_ns : b.wall_ns,
	};
}

static inline bool clock_budget__over(const struct clock_budget *b)
{
	return !clock_budget__none(b) &&
	       (clock__thread_cpu_ns() > b->cpu_ns || clock__monotonic_ns() > b->wall_ns);
}

/* The CPU time left, 0 when over. */
static inline uint64_t clock_budget__cpu_left(const struct clock_budget *b)
{
	int64_t left = b->cpu_ns - clock__thread_cpu_ns();

	return clock_budget__over(b) || left < 0 ? 0 : (uint64_t)left;
}

#endif
