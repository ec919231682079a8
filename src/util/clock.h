/* SPDX-License-Identifier: MIT */
/* Clocks in nanoseconds: monotonic for intervals, real time for when things happened. */
#ifndef SLIDEOPS_UTIL_CLOCK_H
#define SLIDEOPS_UTIL_CLOCK_H

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

#endif
