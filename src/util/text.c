// SPDX-License-Identifier: MIT
/* Escaping text for terminals and JSON. See text.h. */
#include "util/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t text__utf8_sequence(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned min, cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	/* A NUL ends the string before the sequence does: (0 & 0xc0) != 0x80. */
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A control character a terminal acts on: C0, DEL, and C1 (U+0080..U+009F, which some
 * terminals take as CSI and friends). */
static bool is_control(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

static char *escape(const char *str, bool controls)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len = strlen((const char *)s);
	char *out, *o;

	/* Each byte becomes at most four. */
	if (len > (SIZE_MAX - 1) / 4)
		return NULL;
	out = malloc(len * 4 + 1);
	if (!out)
		return NULL;
	o = out;
	while (*s) {
		size_t n = text__utf8_sequence((const char *)s);

		if (n && !(controls && is_control(s, n))) {
			memcpy(o, s, n);
			o += n;
			s += n;
			continue;
		}
		/* An invalid byte alone; a control character as all its bytes. */
		for (size_t i = 0; i < (n ? n : 1); i++)
			o += sprintf(o, "\\x%02x", s[i]);
		s += n ? n : 1;
	}
	*o = '\0';
	return out;
}

char *text__escape(const char *s)
{
	return escape(s, true);
}

char *text__utf8(const char *s)
{
	return escape(s, false);
}

bool text__is_clean(const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	while (*s) {
		size_t n = text__utf8_sequence((const char *)s);

		if (!n || is_control(s, n))
			return false;
		s += n;
	}
	return true;
}
