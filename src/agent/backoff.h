/* SPDX-License-Identifier: MIT */
/*
 * Jittered exponential backoff for retrying what failed (docs/protocol.md, Retries):
 * the n-th consecutive failure waits a delay drawn from [d/2, d], where d is the first
 * delay doubled n-1 times, at most the cap. Jitter keeps many agents that lost one
 * workspace from returning to it all in the same second.
 */
#ifndef SLIDEOPS_AGENT_BACKOFF_H
#define SLIDEOPS_AGENT_BACKOFF_H

#include <stdint.h>

struct backoff {
	uint64_t first_ms;   /* the ceiling of the first delay */
	uint64_t cap_ms;     /* no delay exceeds this */
	unsigned failures;   /* consecutive, since the last success */
	uint64_t rng;        /* xorshift state, never 0 */
};

/* A backoff whose delays start near first_ms and never exceed cap_ms; seed (any value)
 * makes its jitter its own. */
void backoff__init(struct backoff *b, uint64_t first_ms, uint64_t cap_ms, uint64_t seed);
/* After a failure: how long to wait before the next try, in milliseconds. */
uint64_t backoff__next(struct backoff *b);
/* After a success: the next failure waits the first delay again. */
void backoff__reset(struct backoff *b);

#endif
