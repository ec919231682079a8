// SPDX-License-Identifier: MIT
/*
 * Jittered exponential backoff (backoff.h): "equal jitter", half the delay fixed and
 * half drawn, so a delay is never shorter than half its step and retries still spread.
 */
#include "agent/backoff.h"

void backoff__init(struct backoff *b, uint64_t first_ms, uint64_t cap_ms, uint64_t seed)
{
	b->first_ms = first_ms ? first_ms : 1;
	b->cap_ms = cap_ms < b->first_ms ? b->first_ms : cap_ms;
	b->failures = 0;
	b->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static uint64_t next_random(struct backoff *b)
{
	uint64_t x = b->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	b->rng = x;
	return x;
}

uint64_t backoff__next(struct backoff *b)
{
	uint64_t step = b->first_ms;

	for (unsigned i = 0; i < b->failures && step < b->cap_ms; i++)
		step *= 2;
	if (step > b->cap_ms)
		step = b->cap_ms;
	if (b->failures < 64)
		b->failures++;
	return step - step / 2 + next_random(b) % (step / 2 + 1);
}

void backoff__reset(struct backoff *b)
{
	b->failures = 0;
}
