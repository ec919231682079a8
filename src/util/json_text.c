// SPDX-License-Identifier: MIT
/* Text into JSON strings, invalid UTF-8 as \xNN. See json_text.h. */
#include "util/json_text.h"

#include <stdlib.h>

#include "util/text.h"

json_t *json_text(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *clean;

	if (j)
		return j;
	clean = text__utf8(s);
	if (!clean)
		return NULL;
	j = json_string(clean);
	free(clean);
	return j;
}
