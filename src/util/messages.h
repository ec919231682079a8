/* SPDX-License-Identifier: MIT */
/* The one table of user-facing messages (messages.def) and the ways to print them. */
#ifndef SLIDEOPS_UTIL_MESSAGES_H
#define SLIDEOPS_UTIL_MESSAGES_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum msg_id {
#define MSG(id, text) MSG_##id,
#include "util/messages.def"
#undef MSG
	MSG__COUNT,
};

/* The format string of a message. */
const char *msg_text(enum msg_id id);

/* Prints "slideops: MESSAGE\n" to stderr. */
void msg_error(enum msg_id id, ...);
void msg_verror(enum msg_id id, va_list ap);

/* Prints the message (and a newline) to stdout, or to out. */
void msg_print(enum msg_id id, ...);
void msg_fprint(FILE *out, enum msg_id id, ...);

/* Formats a message into buf, as snprintf. */
int msg_format(char *buf, size_t size, enum msg_id id, ...);

/*
 * Where a library reports what went wrong, instead of printing it: the message and its
 * text, formatted. The caller prints it, shows it in a page, or keeps it.
 */
struct report {
	void (*error)(void *ctx, enum msg_id id, const char *text);
	void *ctx;
};

/* Formats message id and hands it to r (nothing when r or r->error is NULL). */
void report__error(const struct report *r, enum msg_id id, ...);

#endif
