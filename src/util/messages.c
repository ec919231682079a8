// SPDX-License-Identifier: MIT
#include "util/messages.h"

#include <stdio.h>

static const char *const messages[MSG__COUNT] = {
#define MSG(id, text) [MSG_##id] = text,
#include "util/messages.def"
#undef MSG
};

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

const char *msg_text(enum msg_id id)
{
	return (unsigned)id < MSG__COUNT ? messages[id] : "";
}

void msg_verror(enum msg_id id, va_list ap)
{
	fputs("slideops: ", stderr);
	vfprintf(stderr, msg_text(id), ap);
	fputc('\n', stderr);
}

void msg_error(enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	msg_verror(id, ap);
	va_end(ap);
}

void msg_print(enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	vprintf(msg_text(id), ap);
	va_end(ap);
	putchar('\n');
}

void msg_fprint(FILE *out, enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	vfprintf(out, msg_text(id), ap);
	va_end(ap);
	fputc('\n', out);
}

int msg_format(char *buf, size_t size, enum msg_id id, ...)
{
	va_list ap;
	int n;

	va_start(ap, id);
	n = vsnprintf(buf, size, msg_text(id), ap);
	va_end(ap);
	return n;
}

void report__error(const struct report *r, enum msg_id id, ...)
{
	char text[1024];
	va_list ap;

	if (!r || !r->error)
		return;
	va_start(ap, id);
	vsnprintf(text, sizeof(text), msg_text(id), ap);
	va_end(ap);
	r->error(r->ctx, id, text);
}
