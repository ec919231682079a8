/* SPDX-License-Identifier: MIT */
/*
 * The threads question's answer sentence (how many threads, running and waiting, and
 * the largest set waiting in one place), as a pure function of what its analysis
 * measured (analysis/answer.h: first NULL, the profile has no samples; next NULL, no
 * "Next was"), so each template is tested word for word. malloc'd, or NULL with errno
 * ENOMEM.
 */
#ifndef SLIDEOPS_QUESTIONS_THREADS_ANSWER_H
#define SLIDEOPS_QUESTIONS_THREADS_ANSWER_H

#include <stdint.h>

#include "analysis/answer.h"

struct threads_answer {
	int64_t threads, running, waiting;
	/* The largest set of threads waiting in the same place; omitted under 2. */
	int64_t set_size;
	const char *set_group;
	const char *set_where;
};

/* threads 0: the profile has no samples. */
char *threads_answer__sentence(const struct threads_answer *t);

#endif
