/* SPDX-License-Identifier: MIT */
/*
 * What the workspace believes of a profile an agent sent (docs/security.md): every count
 * and size is capped where the profile is read, before its model is built
 * (ingest__pprof_limits), and every number in it is checked against what a capture of
 * its length on its server could hold (ingest__check): times within the capture's window
 * and the clock skew allowed, sample counts and times that add up to at most the
 * duration times the rate (or the CPUs), no negative values. A profile past them is
 * refused whole, and the agent told why; counters that only describe (events lost,
 * stacks cut short) are clamped instead. The workspace's own captures are not checked.
 * Pure functions: tested without a server (tests/unit/server/test_ingest.c).
 */
#ifndef SLIDEOPS_SERVER_INGEST_H
#define SLIDEOPS_SERVER_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "profile/pprof.h"
#include "util/pb_limits.h"

struct profile;

/* A profile an agent sends, at most (a 30 s capture of a busy 64-CPU server holds about
 * a tenth of each; bench/serve's view of one at these caps: docs/security.md). */
#define INGEST_MAPPINGS_MAX (64u << 10)
#define INGEST_LOCATIONS_MAX (256u << 10)
#define INGEST_FUNCTIONS_MAX (256u << 10)
#define INGEST_SAMPLES_MAX (256u << 10)
#define INGEST_STACK_LOCATIONS_MAX (4u << 20)
#define INGEST_STRINGS_MAX (512u << 10)
#define INGEST_STRING_BYTES_MAX (32u << 20)
#define INGEST_UNPACK_MAX (256u << 20)
/* The longest capture (the API's and the agent's 3600 s), the CPUs and rate a server may
 * say it has, and the clock skew allowed between an agent and the workspace. */
#define INGEST_DURATION_MAX_NS (3660 * 1000000000LL)
#define INGEST_NCPUS_MAX 8192
#define INGEST_HZ_MAX 1000
#define INGEST_SKEW_NS (600 * 1000000000LL)
/* Nothing sampled before 2020 is a capture of this tool's. */
#define INGEST_EPOCH_NS (1577836800LL * 1000000000LL)

/* The pprof limits of an agent's profile (INGEST_*), unpacked from pool (may be NULL). */
struct pprof_limits ingest__pprof_limits(struct pb_pool *pool);

/*
 * Checks p, an agent's profile, at now_ns (realtime); asked_at_ns: when the workspace
 * asked for the capture it answers (realtime; 0: not known, a batch spooled across a
 * restart). 0, with the descriptive counters clamped; -ERANGE with why (a sentence of
 * the message table's AGENT_PROFILE_REFUSED) in why.
 */
int ingest__check(struct profile *p, int64_t now_ns, int64_t asked_at_ns, char *why,
		  size_t size);

/* An HTTP status an agent's reply to a command may carry, passed to the API's caller:
 * one the API itself gives for those commands; any other becomes 502. */
int ingest__reply_status(uint32_t status);

#endif
