// SPDX-License-Identifier: MIT
/*
 * The answer sentences (architecture.md). cpu's is the spec's own, word for word:
 * "Over 30 seconds, Service billing used 54% of the CPU time on this server, most of it
 * in build_report. Next was Unit nginx.service, at 14%."
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
static char *answer__format(enum msg_id id, ...)
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
static char *answer__where(enum msg_id id, const char *where)
{
	return where && *where ? answer__format(id, where) : strdup("");
}

/* The common shape: a lead sentence with an optional "where", then an optional next. */
static char *answer__join(char *lead, char *next)
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

char *answer__cpu(uint64_t duration_ns, const struct answer_group *first,
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

char *answer__cpu_idle(uint64_t duration_ns, double used, const struct answer_group *first)
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

char *answer__wall(uint64_t duration_ns, const struct answer_group *first,
		   const struct answer_group *next)
{
	char over[FORMAT_MAX], running[FORMAT_MAX], waiting[FORMAT_MAX], *where, *lead, *tail;

	format_duration(duration_ns, over, sizeof(over));
	if (!first)
		return answer__format(MSG_ANSWER_WALL_NONE, over);
	format_seconds(first->value, running, sizeof(running));
	format_seconds(first->waiting, waiting, sizeof(waiting));
	where = answer__where(MSG_ANSWER_WALL_WAITING_IN,
			      first->waiting > 0 ? first->where : NULL);
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
	lead = answer__format(MSG_ANSWER_WALL, over, first->label, running, waiting, where);
	free(where);
	if (next) {
		format_seconds(next->value, running, sizeof(running));
		format_seconds(next->waiting, waiting, sizeof(waiting));
		tail = answer__format(MSG_ANSWER_WALL_NEXT, next->label, running, waiting);
	} else {
		tail = strdup("");
	}
	return answer__join(lead, tail);
}

/* locks and memory: "Over T, LEAD VERB AMOUNT, most of it in F. Next was G, AMOUNT." */
/* clause: what follows the first group's amount instead of "most of it in" (NULL: that). */
static char *answer__amount_clause(uint64_t duration_ns, const struct answer_group *first,
				   const struct answer_group *next, enum msg_id none,
				   enum msg_id lead_id, enum msg_id next_id,
				   void (*amount)(int64_t, char *, size_t), const char *clause)
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

char *answer__locks(uint64_t duration_ns, const struct answer_group *first,
		    const struct answer_group *next)
{
	return answer__amount(duration_ns, first, next, MSG_ANSWER_LOCKS_NONE, MSG_ANSWER_LOCKS,
			      MSG_ANSWER_LOCKS_NEXT, format_seconds);
}

char *answer__locks_held(uint64_t duration_ns, const struct answer_group *first,
			 const struct answer_group *next, const char *holder)
{
	char *clause, *out;

	if (!first || !holder || !*holder)
		return answer__locks(duration_ns, first, next);
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

char *answer__memory(uint64_t duration_ns, const struct answer_group *first,
		     const struct answer_group *next)
{
	return answer__amount(duration_ns, first, next, MSG_ANSWER_MEMORY_NONE,
			      MSG_ANSWER_MEMORY, MSG_ANSWER_MEMORY_NEXT, format_bytes);
}

char *answer__memory_rss(uint64_t duration_ns, const struct answer_group *first,
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

char *answer__threads(const struct answer_threads *t)
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
