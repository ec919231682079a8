// SPDX-License-Identifier: MIT
/* The web UI's files, embedded at build time (web/assets.S): nothing is fetched from
 * elsewhere, and the binary is the whole product. */
#include <string.h>

#include "server/server_internal.h"

#define ASSET(sym) extern const char sym[], sym##_end[];
ASSET(web_index_html)
ASSET(web_app_js)
ASSET(web_app_css)
ASSET(web_flame_js)
ASSET(web_flame_model_js)
ASSET(web_dom_js)
#undef ASSET

/* Each file with the label just past it (its size). */
static const struct {
	const char *path;
	const char *content_type;
	const char *start, *end;
} assets[] = {
#define A(path, type, sym) { path, type, sym, sym##_end }
#define JS(path, sym) A(path, "text/javascript; charset=utf-8", sym)
	A("/", "text/html; charset=utf-8", web_index_html),
	A("/app.css", "text/css; charset=utf-8", web_app_css),
	JS("/app.js", web_app_js),
	JS("/flame.js", web_flame_js),
	JS("/flame_model.js", web_flame_model_js),
	JS("/dom.js", web_dom_js),
#undef JS
#undef A
};

bool asset__find(const char *path, struct asset *out)
{
	for (size_t i = 0; i < sizeof(assets) / sizeof(assets[0]); i++) {
		if (strcmp(path, assets[i].path) != 0)
			continue;
		*out = (struct asset){ assets[i].path, assets[i].content_type, assets[i].start,
				       (size_t)(assets[i].end - assets[i].start) };
		return true;
	}
	return false;
}
