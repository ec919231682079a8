// SPDX-License-Identifier: MIT
/*
 * A stored profile as it reads today: names are looked up now, so a debug-symbol upload
 * names profiles captured before it; the stored answer is refreshed to match. And the
 * comparison of two such profiles.
 */
#include "views/views.h"

#include <errno.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "profile/profile.h"
#include "store/store.h"

int views__load_profile(struct store *s, const char *id, struct profile **out_p,
			struct analysis **out_a, struct view_error *e)
{
	struct symbol_lookup names;
	struct server_names by_server;
	char server_id[STORE_ID_MAX];
	struct profile *p = NULL;
	struct analysis *a;
	int err;

	err = store__load_profile(s, id, &p);
	if (err == -ENOENT) {
		view_error__set(e, 404, MSG_SHOW_NO_SUCH_PROFILE, id);
		return -1;
	}
	if (err == -ENODATA) {
		view_error__set(e, 500, MSG_SHOW_MISSING_BLOB, id, store__dir(s), id);
		return -1;
	}
	if (err == -EBADMSG) {
		view_error__set(e, 500, MSG_SHOW_DAMAGED_PROFILE, id, id);
		return -1;
	}
	if (err) {
		view_error__set(e, 500, MSG_SHOW_LOAD_FAILED, id, strerror(-err));
		return -1;
	}
	/* An agent's server's profile is named by its own tables, never another agent's. */
	if (store__profile_server(s, id, server_id))
		server_id[0] = '\0';
	names = store__server_symbol_lookup(&by_server, s, server_id);
	err = profile__symbolize(p, &names);
	if (err) {
		view_error__set(e, 500, MSG_SHOW_SYMBOLIZE_FAILED, id, strerror(-err));
		profile__free(p);
		return -1;
	}
	a = analysis__new(p);
	if (!a) {
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		profile__free(p);
		return -1;
	}
	/* What `profiles` lists follows the names known now; a read-only workspace keeps
	 * the old sentence, which is no reason to fail. */
	store__refresh_answer(s, id, a->answer);
	*out_p = p;
	*out_a = a;
	return 0;
}

json_t *views__compare(struct store *s, const char *id_a, const char *id_b, size_t top,
		       struct view_error *e)
{
	struct profile *p[2] = { NULL, NULL };
	struct analysis *a[2] = { NULL, NULL };
	const char *ids[2] = { id_a, id_b };
	struct comparison *c;
	json_t *doc = NULL;

	for (int i = 0; i < 2; i++)
		if (views__load_profile(s, ids[i], &p[i], &a[i], e))
			goto out_free;
	if (p[0]->header.question != p[1]->header.question) {
		view_error__set(e, 400, MSG_COMPARE_DIFFERENT_QUESTIONS, ids[0],
				question__id(p[0]->header.question), ids[1],
				question__id(p[1]->header.question));
		goto out_free;
	}
	c = comparison__new(a[0], a[1], top);
	if (c)
		doc = comparison__to_json(c, ids[0], ids[1]);
	if (!doc)
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
	comparison__free(c);
out_free:
	for (int i = 0; i < 2; i++) {
		analysis__free(a[i]);
		profile__free(p[i]);
	}
	return doc;
}
