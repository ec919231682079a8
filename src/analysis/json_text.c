// SPDX-License-Identifier: MIT
/* Text into JSON strings, invalid UTF-8 replaced. See json_text.h. */
#include "analysis/json_text.h"

#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_sequence(const unsigned char *s)
{
	size_t n;
	unsigned min;
	unsigned cp;

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
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

json_t *json_text(const char *s)
{
	const unsigned char *in = (const unsigned char *)(s ? s : "");
	json_t *j = json_string((const char *)in);
	char *out, *o;

	if (j)
		return j;
	/* Each bad byte becomes the three bytes of U+FFFD. */
	out = malloc(strlen((const char *)in) * 3 + 1);
	if (!out)
		return NULL;
	o = out;
	while (*in) {
		size_t n = utf8_sequence(in);

		if (n) {
			memcpy(o, in, n);
			o += n;
			in += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			in++;
		}
	}
	*o = '\0';
	j = json_string(out);
	free(out);
	return j;
}
