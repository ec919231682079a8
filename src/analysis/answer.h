/* SPDX-License-Identifier: MIT */
/*
 * What the questions' answer sentences (architecture.md) are made with, as pure functions
 * of what analysis measured: no profile in here, so each template is tested word for
 * word. Every sentence is a template in the message table; each question's own choose
 * and fill them (src/questions/NAME/NAME_answer.h). Each returns a malloc'd string, or
 * NULL with errno ENOMEM.
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
	const char *where;  /* "most of it in" (wall: where it waited most); NULL: omitted */
};

/* A message into a new string. */
char *answer__format(enum msg_id id, ...);
/* ", most of it in F" (or the message given), or "" without F. */
char *answer__where(enum msg_id id, const char *where);
/* lead then next (either NULL: NULL, ENOMEM), both freed. */
char *answer__join(char *lead, char *next);
/* answer__amount's shape with clause after the first group's amount instead of "most of
 * it in" (NULL: that). */
char *answer__amount_clause(uint64_t duration_ns, const struct answer_group *first,
			    const struct answer_group *next, enum msg_id none, enum msg_id lead_id,
			    enum msg_id next_id, void (*amount)(int64_t, char *, size_t),
			    const char *clause);
/*
 * first NULL: the profile has no samples, and the answer says so. next NULL: only one
 * group, no "Next was" sentence.
 */
/* The shape of an answer that adds up an amount (locks, memory, and any question of its
 * own words): "Over T, G <verb> AMOUNT, most of it in F. Next was H, AMOUNT." from the
 * templates none (no samples: "Over %s, ..."), lead ("Over %s, %s ... %s%s.": the
 * duration, the group, its amount, where) and next_id (" Next was %s, %s."), each amount
 * written by amount (format_seconds, format_bytes). */
char *answer__amount(uint64_t duration_ns, const struct answer_group *first,
		     const struct answer_group *next, enum msg_id none, enum msg_id lead_id,
		     enum msg_id next_id, void (*amount)(int64_t, char *, size_t));
#endif
