// SPDX-License-Identifier: MIT
/*
 * What the answer sentences (architecture.md) are made with: a template of the message
 * table filled into a new string, its "most of it in F", the lead and its next joined,
 * and the shape of an answer that adds up an amount. Each question's own sentence is its
 * folder's (src/questions/NAME/NAME_answer.c).
 */
#include "analysis/answer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* A message into a new string. */
char *answer__format(enum msg_id id, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, id);
	n = vasprintf(&out, msg_text(id), ap);
	va_end(ap);
	if (n < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return out;
}

/* ", most of it in F" (or the message given), or "" without F. */
char *answer__where(enum msg_id id, const char *where)
{
	return where && *where ? answer__format(id, where) : strdup("");
}

/* The common shape: a lead sentence with an optional "where", then an optional next. */
char *answer__join(char *lead, char *next)
{
	char *out = NULL;

	if (lead && next && asprintf(&out, "%s%s", lead, next) < 0) {
		out = NULL;
		errno = ENOMEM;
	}
	free(lead);
	free(next);
	return out;
}

/* locks and memory: "Over T, LEAD VERB AMOUNT, most of it in F. Next was G, AMOUNT." */
/* clause: what follows the first group's amount instead of "most of it in" (NULL: that). */
char *answer__amount_clause(uint64_t duration_ns, const struct answer_group *first,
			    const struct answer_group *next, enum msg_id none, enum msg_id lead_id,
			    enum msg_id next_id, void (*amount)(int64_t, char *, size_t),
			    const char *clause)
{
	char over[FORMAT_MAX], value[FORMAT_MAX], *where, *lead, *tail;

	format_duration(duration_ns, over, sizeof(over));
	if (!first)
		return answer__format(none, over);
	amount(first->value, value, sizeof(value));
	where = clause ? strdup(clause) : answer__where(MSG_ANSWER_MOST_OF_IT_IN, first->where);
	if (!where)
		return NULL;
	lead = answer__format(lead_id, over, first->label, value, where);
	free(where);
	if (next) {
		amount(next->value, value, sizeof(value));
		tail = answer__format(next_id, next->label, value);
	} else {
		tail = strdup("");
	}
	return answer__join(lead, tail);
}

char *answer__amount(uint64_t duration_ns, const struct answer_group *first,
		     const struct answer_group *next, enum msg_id none, enum msg_id lead_id,
		     enum msg_id next_id, void (*amount)(int64_t, char *, size_t))
{
	return answer__amount_clause(duration_ns, first, next, none, lead_id, next_id, amount,
				     NULL);
}

