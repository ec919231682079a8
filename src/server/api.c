// SPDX-License-Identifier: MIT
/*
 * The JSON API (docs/api.md): the same documents the command line prints with --json,
 * built by the same functions (src/views), and its errors in the same words. Each
 * request opens the workspace for itself: SQLite in WAL mode lets readers go on while a
 * capture is being saved. This file: the routes, above what answers them:
 * api_servers.c for servers and their captures, api_profiles.c for profiles and debug
 * symbols, and api_call.c's helpers every answer uses.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "profile/profile.h"
#include "server/api_call.h"
#include "server/api_profiles.h"
#include "server/api_servers.h"
#include "store/store.h"
#include "util/json_text.h"

/* ---- questions ---- */

/* The questions a profile answers, from their one table (src/questions/): the UI's words
 * for them and what their pages show come from here, not from a copy in the UI. */
static json_t *question_json(const struct question_plugin *q)
{
	json_t *views = json_array();

	for (const char *const *v = q->views; views && *v; v++)
		if (json_array_append_new(views, json_text(*v))) {
			json_decref(views);
			views = NULL;
		}
	if (!views)
		return NULL;
	return json_pack("{s:o, s:o, s:b, s:b, s:o}", "id", json_text(q->id), "title",
			 json_text(q->title), "has_duration", !q->snapshot, "share_of_server",
			 q->share_of_server, "views", views);
}

static void list_questions(struct call *c)
{
	json_t *list = json_array();

	for (int q = 0; list && q < QUESTION__COUNT; q++)
		if (json_array_append_new(list, question_json(question__get(q)))) {
			json_decref(list);
			list = NULL;
		}
	api__ok(c, list ? json_pack("{s:o}", "questions", list) : NULL);
}

/* Only this server answers today; agents bring the others. */

/* ---- dispatch ---- */

bool api__is_upload(const char *method, const char *url)
{
	return strcmp(method, "POST") == 0 && strcmp(url, "/api/symbols") == 0;
}

static void every_profile(struct call *c)
{
	api__list_profiles(c, NULL);
}

/* The server a /servers/ID/... path names, into c->target: this one, or an agent's (a
 * removed one too: it is still listed, and its profiles stay). False with 404 replied. */
static bool known_server(struct call *c)
{
	const char *id = c->parts[1];
	struct store *s;
	int err;

	if (strcmp(id, THIS_SERVER_ID) == 0) {
		c->target = calloc(1, sizeof(*c->target));
		if (c->target) {
			snprintf(c->target->id, sizeof(c->target->id), "%s", THIS_SERVER_ID);
			c->target->this_server = true;
			c->target->hostname = strdup(c->srv->hostname);
			c->target->name = strdup(c->srv->hostname);
		}
		if (!c->target || !c->target->hostname || !c->target->name) {
			reply__msg(c->r, 500, MSG_OUT_OF_MEMORY);
			return false;
		}
		return true;
	}
	s = api__open_store(c);
	if (!s)
		return false;
	err = store__get_server(s, id, &c->target);
	store__close(s);
	if (err == -ENOENT)
		reply__msg(c->r, 404, MSG_API_NO_SUCH_SERVER, id);
	else if (err)
		reply__msg(c->r, 500, MSG_DATA_DIR_UNUSABLE, c->srv->data_dir, strerror(-err));
	return err == 0;
}

/* One row an endpoint: the path after /api/ in nparts parts, where NULL matches any one
 * part (an id). HEAD is answered wherever GET is, with the same headers and no body. */
struct route {
	const char *method;
	int nparts;
	const char *parts[PATH_PARTS];
	void (*handle)(struct call *c);
};

#define ID NULL

static const struct route routes[] = {
	{ "GET", 1, { "questions" }, list_questions },
	{ "GET", 1, { "servers" }, api__list_servers },
	{ "POST", 1, { "enrolments" }, api__new_enrolment },
	{ "GET", 2, { "servers", ID }, api__get_server },
	{ "DELETE", 2, { "servers", ID }, api__delete_server },
	{ "GET", 3, { "servers", ID, "check" }, api__check },
	{ "GET", 3, { "servers", ID, "top" }, api__top },
	{ "GET", 3, { "servers", ID, "profiles" }, api__servers_profiles },
	{ "GET", 3, { "servers", ID, "capture" }, api__capture_status },
	{ "POST", 3, { "servers", ID, "capture" }, api__start_capture },
	{ "POST", 4, { "servers", ID, "capture", "stop" }, api__stop_capture },
	{ "POST", 3, { "servers", ID, "remove" }, api__remove_profiler },
	{ "GET", 1, { "profiles" }, every_profile },
	{ "GET", 2, { "profiles", ID }, api__show },
	{ "DELETE", 2, { "profiles", ID }, api__delete_profile },
	{ "GET", 3, { "profiles", ID, "flamegraph" }, api__flamegraph },
	{ "GET", 3, { "profiles", ID, "export" }, api__export },
	{ "GET", 1, { "compare" }, api__compare },
	{ "GET", 1, { "symbols" }, api__list_uploads },
	{ "POST", 1, { "symbols" }, api__upload },
	{ "DELETE", 2, { "symbols", ID }, api__delete_upload },
};

#undef ID

static bool route__path_matches(const struct route *rt, const struct call *c)
{
	if (rt->nparts != c->nparts)
		return false;
	for (int i = 0; i < rt->nparts; i++)
		if (rt->parts[i] && strcmp(rt->parts[i], c->parts[i]) != 0)
			return false;
	return true;
}

static bool route__method_matches(const struct route *rt, const char *method)
{
	return strcmp(rt->method, method) == 0 ||
	       (strcmp(method, "HEAD") == 0 && strcmp(rt->method, "GET") == 0);
}

static void dispatch(struct call *c)
{
	size_t len = 0;

	/* A server's paths: an id that is no server's is none, whatever the method. */
	if (c->nparts >= 2 && strcmp(c->parts[0], "servers") == 0 && !known_server(c))
		return;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (route__path_matches(&routes[i], c) &&
		    route__method_matches(&routes[i], c->method))
			return routes[i].handle(c);
	/* The path is there but not for this method: 405, with what it allows. */
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const char *m = routes[i].method;

		if (!route__path_matches(&routes[i], c))
			continue;
		len += (size_t)snprintf(c->r->allow + len, sizeof(c->r->allow) - len, "%s%s",
					len ? ", " : "", m);
		if (strcmp(m, "GET") == 0)
			len += (size_t)snprintf(c->r->allow + len, sizeof(c->r->allow) - len,
						", HEAD");
	}
	if (len)
		reply__msg(c->r, 405, MSG_API_METHOD, c->method, c->url);
	else
		reply__msg(c->r, 404, MSG_API_NOT_FOUND, c->url);
}

void api__handle(struct server *srv, struct MHD_Connection *conn, const char *method,
		 const char *url, struct request *req, struct reply *r)
{
	struct call c = { .srv = srv, .conn = conn, .method = method, .url = url, .req = req,
			  .r = r };
	char *rest, *part, *query;

	r->status = 500;
	if (req->body_too_large) {
		reply__msg(r, 413, MSG_API_BAD_BODY, url, "too large");
		return;
	}
	/* The path as it was sent, split first and each part decoded after: an id holding
	 * "%2F" is that id, never two parts. */
	c.buf = req->raw_path ? strdup(req->raw_path) : NULL;
	if (!c.buf) {
		reply__msg(r, 500, MSG_OUT_OF_MEMORY);
		return;
	}
	query = strchr(c.buf, '?');
	if (query)
		*query = '\0';
	if (strncmp(c.buf, "/api/", 5) != 0) {
		reply__msg(r, 404, MSG_API_NOT_FOUND, url);
		goto out;
	}
	/* Every part there as sent: "a//b" or "a/" is no path here, not "a/b" or "a". */
	for (rest = c.buf + 5; (part = strsep(&rest, "/"));) {
		if (c.nparts == PATH_PARTS || !*part) {
			reply__msg(r, 404, MSG_API_NOT_FOUND, url);
			goto out;
		}
		MHD_http_unescape(part);
		c.parts[c.nparts++] = part;
	}
	dispatch(&c);
out:
	server_entries__free(c.target, c.target ? 1 : 0);
	free(c.buf);
}
