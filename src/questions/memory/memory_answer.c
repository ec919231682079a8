// SPDX-License-Identifier: MIT
/* The memory question's answer sentence (memory_answer.h). */
#include "memory_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

char *memory_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			      const struct answer_group *next)
{
	return answer__amount(duration_ns, first, next, MSG_ANSWER_MEMORY_NONE,
			      MSG_ANSWER_MEMORY, MSG_ANSWER_MEMORY_NEXT, format_bytes);
}

char *memory_answer__rss(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next)
{
	char *clause, *out;

	clause = first ? answer__where(MSG_ANSWER_MEMORY_ALLOCATED_IN, first->where) : NULL;
	if (first && !clause)
		return NULL;
	out = answer__amount_clause(duration_ns, first, next, MSG_ANSWER_MEMORY_NONE,
				    MSG_ANSWER_MEMORY_RSS, MSG_ANSWER_MEMORY_NEXT, format_bytes,
				    clause ? clause : "");
	free(clause);
	return out;
}
