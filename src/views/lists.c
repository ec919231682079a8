// SPDX-License-Identifier: MIT
/* The list documents: past profiles (`profiles --json`) and uploads (`symbols list`). */
#include "views/views.h"

#include "util/json_text.h"
#include "store/store.h"

/* Whole seconds, rounded: a capture ended early by Ctrl-C says how long it ran. */
static long long whole_seconds(uint64_t ns)
{
	return (long long)((ns + 500000000ULL) / 1000000000ULL);
}

json_t *views__profiles(const struct profile_entry *e, size_t n, const struct views_page *page)
{
	struct views_page whole = { .total = n, .offset = 0 };
	char when[32], cursor[STORE_CURSOR_MAX];
	json_t *list = json_array();
	bool more;
	uint64_t next;

	if (!page)
		page = &whole;
	/* Rows a later slideops wrote are passed over, so a page may hold fewer than asked:
	 * the next starts after what the index held, not after what was shown. */
	next = page->offset + n;
	/* A full page may have more after it; the cursor says where, whatever is saved in
	 * the meantime. */
	more = page->by_cursor ? page->limit && n == page->limit : next < page->total;
	if (more && n)
		store__cursor(&e[n - 1], cursor);
	more = more && n;

	for (size_t i = 0; list && i < n; i++) {
		json_t *item;

		views__format_time(e[i].started_at_ns, when);
		item = json_pack("{s:o, s:s, s:o, s:s, s:I, s:o}", "id", json_text(e[i].id), "question",
				 question__id(e[i].question), "server", json_text(e[i].server),
				 "started_at", when, "seconds",
				 (json_int_t)whole_seconds(e[i].duration_ns), "answer",
				 json_text(e[i].answer));
		if (!item || json_array_append_new(list, item)) {
			json_decref(list);
			list = NULL;
		}
	}
	return list ? json_pack("{s:o, s:I, s:I, s:o, s:o}", "profiles", list, "total",
				(json_int_t)page->total, "offset", (json_int_t)page->offset,
				"next_offset",
				!page->by_cursor && next < page->total ?
					json_integer((json_int_t)next) : json_null(),
				"next", more ? json_text(cursor) : json_null()) :
		      NULL;
}

json_t *views__uploads(const struct upload_entry *e, size_t n)
{
	json_t *list = json_array();
	char when[32];

	for (size_t i = 0; list && i < n; i++) {
		json_t *item;

		views__format_time(e[i].uploaded_at_ns, when);
		item = json_pack("{s:o, s:I, s:o, s:s}", "file_name", json_text(e[i].file_name),
				 "functions", (json_int_t)e[i].functions, "build_id",
				 json_text(e[i].build_id), "uploaded_at", when);
		if (!item || json_array_append_new(list, item)) {
			json_decref(list);
			list = NULL;
		}
	}
	return list ? json_pack("{s:o}", "uploads", list) : NULL;
}
