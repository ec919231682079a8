/* SPDX-License-Identifier: MIT */
/*
 * The memory question's answer sentence (memory grown), as a pure function of what its
 * analysis measured (analysis/answer.h: first NULL, the profile has no samples; next
 * NULL, no "Next was"), so each template is tested word for word. malloc'd, or NULL
 * with errno ENOMEM.
 */
#ifndef SLIDEOPS_QUESTIONS_MEMORY_ANSWER_H
#define SLIDEOPS_QUESTIONS_MEMORY_ANSWER_H

#include <stdint.h>

#include "analysis/answer.h"

char *memory_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			      const struct answer_group *next);
/* The same by the owners' resident memory from start to end (value: bytes grown), where
 * is where most of what the stacks saw grow was allocated. */
char *memory_answer__rss(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next);

#endif
