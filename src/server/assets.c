// SPDX-License-Identifier: MIT
/* The web UI's files, embedded at build time: nothing is fetched from elsewhere, and the
 * binary is the whole product. Which files: every one under web/ui/, listed when the
 * binary is built (web/assets.py writes the table and the files' bytes). */
#include <string.h>

#include "server/server_internal.h"

/* A row of web/assets.py's table; the last is all zeros. Each file's bytes run from
 * start to end, followed by a NUL. */
struct web_asset {
	const char *path; /* "/app.js", "/" for index.html */
	const char *content_type;
	const char *start, *end;
};

extern const struct web_asset web_assets[];

bool asset__find(const char *path, struct asset *out)
{
	for (const struct web_asset *a = web_assets; a->path; a++) {
		if (strcmp(path, a->path) != 0)
			continue;
		*out = (struct asset){ a->path, a->content_type, a->start,
				       (size_t)(a->end - a->start) };
		return true;
	}
	return false;
}
