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
ASSET(web_dom_js)
#undef ASSET

#define A(path, type, sym) { path, type, sym, 0 }

static const struct asset assets[] = {
	A("/", "text/html; charset=utf-8", web_index_html),
	A("/app.js", "text/javascript; charset=utf-8", web_app_js),
	A("/flame.js", "text/javascript; charset=utf-8", web_flame_js),
	A("/dom.js", "text/javascript; charset=utf-8", web_dom_js),
	A("/app.css", "text/css; charset=utf-8", web_app_css),
};

static const char *const ends[] = { web_index_html_end, web_app_js_end, web_flame_js_end,
				    web_dom_js_end, web_app_css_end };

bool asset__find(const char *path, struct asset *out)
{
	for (size_t i = 0; i < sizeof(assets) / sizeof(assets[0]); i++) {
		if (strcmp(path, assets[i].path) != 0)
			continue;
		*out = assets[i];
		/* Sizes from the labels around each file. */
		out->size = (size_t)(ends[i] - assets[i].data);
		return true;
	}
	return false;
}
