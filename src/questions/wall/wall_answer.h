/* SPDX-License-Identifier: MIT */
/*
 * The wall question's answer sentence (running and waiting, and what the waiting was
 * for), as a pure function of what its analysis measured (analysis/answer.h: first
 * NULL, the profile has no samples; next NULL, no "Next was"), so each template is
 * tested word for word. malloc'd, or NULL with errno ENOMEM.
 */
#ifndef SLIDEOPS_QUESTIONS_WALL_ANSWER_H
#define SLIDEOPS_QUESTIONS_WALL_ANSWER_H

#include <stdint.h>

#include "analysis/answer.h"

char *wall_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			    const struct answer_group *next);

#endif
