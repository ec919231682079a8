/* The web assets, embedded into the binary (each NUL-terminated, with an _end label
 * before the NUL for its size). Nothing is fetched from elsewhere at run time.
 * flamegraph.html is build/gen/web's: web/flamegraph.html with the UI's flame graph
 * modules inlined (web/bundle.py). */
	.section .rodata
	.global flamegraph_html
flamegraph_html:
	.incbin "flamegraph.html"
	.byte 0

	.macro asset name, file
	.global \name, \name\()_end
\name:
	.incbin "\file"
\name\()_end:
	.byte 0
	.endm

	asset web_index_html, "ui/index.html"
	asset web_app_js, "ui/app.js"
	asset web_app_css, "ui/app.css"
	asset web_flame_js, "ui/flame.js"
	asset web_flame_model_js, "ui/flame_model.js"
	asset web_dom_js, "ui/dom.js"
	asset web_api_js, "ui/api.js"
	asset web_nav_js, "ui/nav.js"
	asset web_format_js, "ui/format.js"
	asset web_servers_js, "ui/servers.js"
	asset web_add_server_js, "ui/add_server.js"
	asset web_capture_js, "ui/capture.js"
	asset web_symbols_js, "ui/symbols.js"
	asset web_profiles_js, "ui/profiles.js"
	asset web_profile_js, "ui/profile.js"
	asset web_compare_js, "ui/compare.js"
	.section .note.GNU-stack,"",@progbits
