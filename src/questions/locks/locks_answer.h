/* SPDX-License-Identifier: MIT */
/*
 * The locks question's answer sentence (time waited on locks, and whose release it
 * waited for), as a pure function of what its analysis measured (analysis/answer.h:
 * first NULL, the profile has no samples; next NULL, no "Next was"), so each template
 * is tested word for word. malloc'd, or NULL with errno ENOMEM.
 */
#ifndef SLIDEOPS_QUESTIONS_LOCKS_ANSWER_H
#define SLIDEOPS_QUESTIONS_LOCKS_ANSWER_H

#include <stdint.h>

#include "analysis/answer.h"

char *locks_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			     const struct answer_group *next);
/* The same, saying whose release the first group's waiting waited for (holder: a
 * function; NULL: none stands out). */
char *locks_answer__held(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next, const char *holder);

#endif
