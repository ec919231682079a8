// SPDX-License-Identifier: MIT
/* The locks question's answer sentence (locks_answer.h). */
#include "locks_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

char *locks_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			     const struct answer_group *next)
{
	return answer__amount(duration_ns, first, next, MSG_ANSWER_LOCKS_NONE, MSG_ANSWER_LOCKS,
			      MSG_ANSWER_LOCKS_NEXT, format_seconds);
}

char *locks_answer__held(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next, const char *holder)
{
	char *clause, *out;

	if (!first || !holder || !*holder)
		return locks_answer__sentence(duration_ns, first, next);
	if (first->where && *first->where)
		clause = answer__format(MSG_ANSWER_LOCKS_WHERE_HELD, first->where, holder);
	else
		clause = answer__format(MSG_ANSWER_LOCKS_HELD, holder);
	if (!clause)
		return NULL;
	out = answer__amount_clause(duration_ns, first, next, MSG_ANSWER_LOCKS_NONE,
				    MSG_ANSWER_LOCKS, MSG_ANSWER_LOCKS_NEXT, format_seconds, clause);
	free(clause);
	return out;
}
