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
ASSET(web_api_js)
ASSET(web_nav_js)
ASSET(web_format_js)
ASSET(web_servers_js)
ASSET(web_add_server_js)
ASSET(web_capture_js)
ASSET(web_symbols_js)
ASSET(web_profiles_js)
ASSET(web_profile_js)
ASSET(web_compare_js)
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
	JS("/api.js", web_api_js),
	JS("/nav.js", web_nav_js),
	JS("/format.js", web_format_js),
	JS("/servers.js", web_servers_js),
	JS("/add_server.js", web_add_server_js),
	JS("/capture.js", web_capture_js),
	JS("/symbols.js", web_symbols_js),
	JS("/profiles.js", web_profiles_js),
	JS("/profile.js", web_profile_js),
	JS("/compare.js", web_compare_js),
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
