/* SPDX-License-Identifier: MIT */
/* The one table of user-facing messages (messages.def) and the ways to print them. */
#ifndef SLIDEOPS_UTIL_MESSAGES_H
#define SLIDEOPS_UTIL_MESSAGES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum msg_id {
#define MSG(id, text) MSG_##id,
#define HINT(id, text)
#include "util/messages.def"
#undef HINT
#undef MSG
	MSG__COUNT,
};

/* The format string of a message. */
const char *msg_text(enum msg_id id);

/* What to do about a message, when the table has a HINT for it; NULL otherwise. */
const char *msg_hint(enum msg_id id);

/* Prints "slideops: MESSAGE\n" to stderr ("slideops: MESSAGE. HINT" when it has one).
 * Every %s argument is escaped (util/text.h), in every printer below but msg_format. */
void msg_error(enum msg_id id, ...);
void msg_verror(enum msg_id id, va_list ap);
/* A message a library formatted (struct report), printed as msg_error prints: escaped
 * for the terminal, with its hint, kept for --json. */
void msg_error_text(enum msg_id id, const char *text);

/* Prints the message (and a newline) to stdout, or to out. */
void msg_print(enum msg_id id, ...);
void msg_fprint(FILE *out, enum msg_id id, ...);

/* vfprintf with each %s argument escaped for a terminal. */
void msg_vfprint_escaped(FILE *out, const char *fmt, va_list ap);

/* fputs of machine-made text, escaped for a terminal. */
void msg_fputs(const char *s, FILE *out);

/* --json: errors are also kept, the first one and its hint, for {"error", "hint"}. */
void msg_set_json(bool on);
const char *msg_last_error(const char **hint);

/* Formats a message into buf, as snprintf (nothing escaped: the text may go to JSON). */
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
