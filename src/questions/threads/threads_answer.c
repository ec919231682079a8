// SPDX-License-Identifier: MIT
/* The threads question's answer sentence (threads_answer.h). */
#include "threads_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

char *threads_answer__sentence(const struct threads_answer *t)
{
	char count[FORMAT_MAX], *lead, *tail;

	if (t->threads <= 0)
		return answer__format(MSG_ANSWER_THREADS_NONE);
	if (t->threads == 1)
		msg_format(count, sizeof(count), MSG_ANSWER_ONE_THREAD);
	else
		msg_format(count, sizeof(count), MSG_ANSWER_THREAD_COUNT, (long long)t->threads);
	lead = answer__format(MSG_ANSWER_THREADS, count, (long long)t->running,
			      (long long)t->waiting);
	if (t->set_size >= 2 && t->set_group && t->set_where)
		tail = answer__format(MSG_ANSWER_THREADS_SET, (long long)t->set_size, t->set_group,
				      t->set_where);
	else
		tail = strdup("");
	return answer__join(lead, tail);
}
