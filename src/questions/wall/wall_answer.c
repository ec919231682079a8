// SPDX-License-Identifier: MIT
/* The wall question's answer sentence (wall_answer.h). */
#include "wall_answer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

char *wall_answer__sentence(uint64_t duration_ns, const struct wall_answer_group *first,
			    const struct wall_answer_group *next)
{
	char over[FORMAT_MAX], running[FORMAT_MAX], waiting[FORMAT_MAX], *where, *lead, *tail;

	format_duration(duration_ns, over, sizeof(over));
	if (!first)
		return answer__format(MSG_ANSWER_WALL_NONE, over);
	format_seconds(first->group.value, running, sizeof(running));
	format_seconds(first->waiting, waiting, sizeof(waiting));
	where = answer__where(MSG_ANSWER_WALL_WAITING_IN,
			      first->waiting > 0 ? first->group.where : NULL);
	if (!where)
		return NULL;
	if (first->wait_reason >= 0 && first->wait_reason < PROFILE_WAIT_REASONS &&
	    first->wait_reason_ns > 0) {
		/* ", 9.1 s of it for a CPU, most of the waiting in F" */
		static const enum msg_id reasons[PROFILE_WAIT_REASONS] = {
			MSG_ANSWER_WAIT_REASON_RUNQUEUE, MSG_ANSWER_WAIT_REASON_IO,
			MSG_ANSWER_WAIT_REASON_LOCK, MSG_ANSWER_WAIT_REASON_SLEEP,
			MSG_ANSWER_WAIT_REASON_OTHER,
		};
		char reason_ns[FORMAT_MAX], *both;

		format_seconds(first->wait_reason_ns, reason_ns, sizeof(reason_ns));
		both = answer__format(MSG_ANSWER_WALL_WAITED_FOR, reason_ns,
				      msg_text(reasons[first->wait_reason]));
		if (both && asprintf(&lead, "%s%s", both, where) < 0)
			lead = NULL;
		free(both);
		free(where);
		where = lead;
		if (!where) {
			errno = ENOMEM;
			return NULL;
		}
	}
	lead = answer__format(MSG_ANSWER_WALL, over, first->group.label, running, waiting,
			      where);
	free(where);
	if (next) {
		format_seconds(next->group.value, running, sizeof(running));
		format_seconds(next->waiting, waiting, sizeof(waiting));
		tail = answer__format(MSG_ANSWER_WALL_NEXT, next->group.label, running, waiting);
	} else {
		tail = strdup("");
	}
	return answer__join(lead, tail);
}
