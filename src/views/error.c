// SPDX-License-Identifier: MIT
/* Errors as data: a message of the table, formatted once, with the status it maps to. */
#include "views/views.h"

#include "util/json_text.h"

#include <stdio.h>
#include <time.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void view_error__vset(struct view_error *e, int status, enum msg_id id, va_list ap)
{
	e->id = id;
	e->status = status;
	vsnprintf(e->text, sizeof(e->text), msg_text(id), ap);
}

void view_error__set(struct view_error *e, int status, enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	view_error__vset(e, status, id, ap);
	va_end(ap);
}

json_t *view_error__json(const struct view_error *e)
{
	const char *hint = msg_hint(e->id);

	/* A name in a message may not be UTF-8: json_text replaces what is not. */
	return json_pack("{s:o, s:o}", "error", json_text(e->text), "hint",
			 hint ? json_text(hint) : json_null());
}

void views__format_time(int64_t ns, char buf[32])
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
}
