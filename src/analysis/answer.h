/* SPDX-License-Identifier: MIT */
/*
 * The answer sentences of the five questions (architecture.md), as pure functions of what
 * analysis measured: no profile in here, so each template is tested word for word.
 * Every sentence is a template in the message table; these choose and fill them.
 * Each returns a malloc'd string, or NULL with errno ENOMEM.
 */
#ifndef SLIDEOPS_ANALYSIS_ANSWER_H
#define SLIDEOPS_ANALYSIS_ANSWER_H

#include <stdint.h>

#include "profile/profile.h"
#include "util/messages.h"

/* One group as an answer names it. */
struct answer_group {
	const char *label;  /* "Service billing" */
	double share;       /* cpu: of the server's CPU time */
	int64_t value;      /* locks: ns waited; memory: bytes grown; wall: ns running */
	int64_t waiting;    /* wall: ns waiting */
	const char *where;  /* "most of it in" (wall: where it waited most); NULL: omitted */
	/* wall: the biggest reason of the waiting (profile_wait_reasons' index) and its ns;
	 * -1: not named (sleep, or no reasons). */
	int wait_reason;
	int64_t wait_reason_ns;
};

/*
 * first NULL: the profile has no samples, and the answer says so. next NULL: only one
 * group, no "Next was" sentence.
 */
char *answer__cpu(uint64_t duration_ns, const struct answer_group *first,
		  const struct answer_group *next);
/* cpu on a nearly idle server (the plug-in decides when): "Over 10 seconds, this server
 * was nearly idle: 0.8% of its CPU time was used. Most of it was System, in F." used: the
 * share of the server's CPU time all samples took; first: the largest group (NULL: the
 * first sentence alone). */
char *answer__cpu_idle(uint64_t duration_ns, double used, const struct answer_group *first);
char *answer__wall(uint64_t duration_ns, const struct answer_group *first,
		   const struct answer_group *next);
/* The shape of an answer that adds up an amount (locks, memory, and any question of its
 * own words): "Over T, G <verb> AMOUNT, most of it in F. Next was H, AMOUNT." from the
 * templates none (no samples: "Over %s, ..."), lead ("Over %s, %s ... %s%s.": the
 * duration, the group, its amount, where) and next_id (" Next was %s, %s."), each amount
 * written by amount (format_seconds, format_bytes). */
char *answer__amount(uint64_t duration_ns, const struct answer_group *first,
		     const struct answer_group *next, enum msg_id none, enum msg_id lead_id,
		     enum msg_id next_id, void (*amount)(int64_t, char *, size_t));
char *answer__locks(uint64_t duration_ns, const struct answer_group *first,
		    const struct answer_group *next);
/* The same, saying whose release the first group's waiting waited for (holder: a
 * function; NULL: none stands out). */
char *answer__locks_held(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next, const char *holder);
char *answer__memory(uint64_t duration_ns, const struct answer_group *first,
		     const struct answer_group *next);
/* The same by the owners' resident memory from start to end (value: bytes grown), where
 * is where most of what the stacks saw grow was allocated. */
char *answer__memory_rss(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next);

struct answer_threads {
	int64_t threads, running, waiting;
	/* The largest set of threads waiting in the same place; omitted under 2. */
	int64_t set_size;
	const char *set_group;
	const char *set_where;
};

/* threads 0: the profile has no samples. */
char *answer__threads(const struct answer_threads *t);

#endif
