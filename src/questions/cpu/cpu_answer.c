// SPDX-License-Identifier: MIT
/* The cpu question's answer sentence (cpu_answer.h). */
#include "cpu_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

char *cpu_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			   const struct answer_group *next)
{
	char over[FORMAT_MAX], pct[FORMAT_MAX], *where, *lead, *tail;

	format_duration(duration_ns, over, sizeof(over));
	if (!first)
		return answer__format(MSG_ANSWER_CPU_NONE, over);
	format_percent(first->share, pct, sizeof(pct));
	where = answer__where(MSG_ANSWER_MOST_OF_IT_IN, first->where);
	if (!where)
		return NULL;
	lead = answer__format(MSG_ANSWER_CPU, over, first->label, pct, where);
	free(where);
	if (next) {
		format_percent(next->share, pct, sizeof(pct));
		tail = answer__format(MSG_ANSWER_CPU_NEXT, next->label, pct);
	} else {
		tail = strdup("");
	}
	return answer__join(lead, tail);
}

char *cpu_answer__idle(uint64_t duration_ns, double used, const struct answer_group *first)
{
	char over[FORMAT_MAX], pct[FORMAT_MAX], *where, *most;

	format_duration(duration_ns, over, sizeof(over));
	format_percent_tenths(used, pct, sizeof(pct));
	if (!first)
		return answer__format(MSG_ANSWER_CPU_IDLE, over, pct);
	where = answer__where(MSG_ANSWER_CPU_IDLE_IN, first->where);
	if (!where)
		return NULL;
	most = answer__format(MSG_ANSWER_CPU_IDLE_MOST, first->label, where);
	free(where);
	if (!most)
		return NULL;
	return answer__join(answer__format(MSG_ANSWER_CPU_IDLE, over, pct), most);
}
