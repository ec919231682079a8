// SPDX-License-Identifier: MIT
/*
 * The message table and its printers. Every %s argument printed to a person goes
 * through text__escape: names and paths come from the machine, and a newline or an
 * escape sequence in one must reach the terminal as the text \x1b, never as itself.
 * In --json mode an error is also kept, so that main can print {"error", "hint"}.
 */
#include "util/messages.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

#include "util/text.h"

static const char *const messages[MSG__COUNT] = {
#define MSG(id, text) [MSG_##id] = text,
#define HINT(id, text)
#include "util/messages.def"
#undef HINT
#undef MSG
};

static const char *const hints[MSG__COUNT] = {
#define MSG(id, text)
#define HINT(id, text) [MSG_##id] = text,
#include "util/messages.def"
#undef HINT
#undef MSG
};

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static bool json_mode;
static char *last_error;
static const char *last_hint;

const char *msg_text(enum msg_id id)
{
	return (unsigned)id < MSG__COUNT ? messages[id] : "";
}

const char *msg_hint(enum msg_id id)
{
	return (unsigned)id < MSG__COUNT ? hints[id] : NULL;
}

/* One conversion of fmt: flags, width, precision, length, conversion. */
static size_t spec_length(const char *f)
{
	size_t i = 1;

	while (f[i] && strchr("-+ #0'", f[i]))
		i++;
	while (f[i] == '*' || (f[i] >= '0' && f[i] <= '9'))
		i++;
	if (f[i] == '.') {
		i++;
		while (f[i] == '*' || (f[i] >= '0' && f[i] <= '9'))
			i++;
	}
	while (f[i] && strchr("hlLqjzt", f[i]))
		i++;
	return f[i] ? i + 1 : i;
}

/* vfprintf, with each %s argument escaped for a terminal. */
void msg_vfprint_escaped(FILE *out, const char *fmt, va_list ap)
{
	const char *f = fmt;

	while (*f) {
		char spec[32], conv;
		const char *pct = strchr(f, '%');
		int stars[2], nstars = 0;
		size_t len;

		if (!pct) {
			fputs(f, out);
			return;
		}
		fwrite(f, 1, (size_t)(pct - f), out);
		len = spec_length(pct);
		if (len < 2 || len >= sizeof(spec)) {
			fputs(pct, out);
			return;
		}
		memcpy(spec, pct, len);
		spec[len] = '\0';
		f = pct + len;
		conv = spec[len - 1];
		if (conv == '%') {
			fputc('%', out);
			continue;
		}
		for (size_t i = 1; i < len; i++)
			if (spec[i] == '*' && nstars < 2)
				stars[nstars++] = va_arg(ap, int);
#define PRINT(value)                                                                 \
	do {                                                                         \
		if (nstars == 2)                                                     \
			fprintf(out, spec, stars[0], stars[1], value);               \
		else if (nstars == 1)                                                \
			fprintf(out, spec, stars[0], value);                         \
		else                                                                 \
			fprintf(out, spec, value);                                   \
	} while (0)
		if (conv == 's') {
			const char *s = va_arg(ap, const char *);
			char *e = text__is_clean(s) ? NULL : text__escape(s);

			PRINT(e ? e : s ? s : "");
			free(e);
		} else if (strchr("fFeEgGaA", conv)) {
			if (strchr(spec, 'L'))
				PRINT(va_arg(ap, long double));
			else
				PRINT(va_arg(ap, double));
		} else if (conv == 'c') {
			PRINT(va_arg(ap, int));
		} else if (conv == 'p') {
			PRINT(va_arg(ap, void *));
		} else if (strstr(spec, "ll") || strchr(spec, 'j') || strchr(spec, 'q')) {
			PRINT(va_arg(ap, long long));
		} else if (strchr(spec, 'l') || strchr(spec, 'z') || strchr(spec, 't')) {
			PRINT(va_arg(ap, long));
		} else {
			PRINT(va_arg(ap, int));
		}
#undef PRINT
	}
}

void msg_set_json(bool on)
{
	json_mode = on;
}

const char *msg_last_error(const char **hint)
{
	if (hint)
		*hint = last_hint;
	return last_error;
}

void msg_verror(enum msg_id id, va_list ap)
{
	const char *hint = msg_hint(id);

	if (json_mode && !last_error) {
		va_list copy;

		va_copy(copy, ap);
		if (vasprintf(&last_error, msg_text(id), copy) < 0)
			last_error = NULL;
		va_end(copy);
		last_hint = hint;
	}
	fputs("slideops: ", stderr);
	msg_vfprint_escaped(stderr, msg_text(id), ap);
	if (hint) {
		fputs(". ", stderr);
		fputs(hint, stderr);
	}
	fputc('\n', stderr);
}

void msg_error_text(enum msg_id id, const char *text)
{
	const char *hint = msg_hint(id);
	char *escaped = text__is_clean(text) ? NULL : text__escape(text);

	if (json_mode && !last_error) {
		last_error = strdup(text);
		last_hint = hint;
	}
	fputs("slideops: ", stderr);
	fputs(escaped ? escaped : text, stderr);
	if (hint) {
		fputs(". ", stderr);
		fputs(hint, stderr);
	}
	fputc('\n', stderr);
	free(escaped);
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
	msg_vfprint_escaped(stdout, msg_text(id), ap);
	va_end(ap);
	putchar('\n');
}

void msg_fprint(FILE *out, enum msg_id id, ...)
{
	va_list ap;

	va_start(ap, id);
	msg_vfprint_escaped(out, msg_text(id), ap);
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

void msg_fputs(const char *s, FILE *out)
{
	char *e = text__is_clean(s) ? NULL : text__escape(s);

	fputs(e ? e : s, out);
	free(e);
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
