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

/* A group as the wall answer names it: its running time as its value, where it waited
 * most as its where, and its waiting. */
struct wall_answer_group {
	struct answer_group group;
	int64_t waiting;    /* ns */
	/* The biggest reason of the waiting (profile_wait_reasons' index) and its ns; -1:
	 * not named (sleep, or no reasons). */
	int wait_reason;
	int64_t wait_reason_ns;
};

char *wall_answer__sentence(uint64_t duration_ns, const struct wall_answer_group *first,
			    const struct wall_answer_group *next);

#endif
