// SPDX-License-Identifier: MIT
/*
 * What every answer of the API uses (api_call.h): its arguments, its document or error,
 * numbers within bounds, the workspace opened for the request, the refusal of an unknown
 * question. Below the routes (api.c) and the files that answer (api_servers.c,
 * api_profiles.c), and the agent protocol's side (api_agent.c).
 */
#include "server/api_call.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

const char *api__arg(const struct call *c, const char *name)
{
	return MHD_lookup_connection_value(c->conn, MHD_GET_ARGUMENT_KIND, name);
}

void api__ok(struct call *c, json_t *doc)
{
	c->r->status = doc ? 200 : 500;
	c->r->doc = doc;
}

void api__fail(struct call *c, const struct view_error *e)
{
	reply__error(c->r, e);
}

/* What a view builder gave: its document, or (NULL) the error it set in e. */
void api__answer(struct call *c, json_t *doc, const struct view_error *e)
{
	if (doc)
		api__ok(c, doc);
	else
		api__fail(c, e);
}

int api__number(struct call *c, const char *name, const char *text, long min, long max,
		  long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text ? text : "", &end, 10);
	if (!text || !*text || *end || errno || v < min || v > max) {
		reply__msg(c->r, 400, MSG_API_BAD_NUMBER, text ? text : "", min, max, name);
		return -1;
	}
	*out = v;
	return 0;
}

/* The workspace, opened per request (SQLite connections are not shared between the
 * connections' threads); serve checked it whole at start. */
struct store *server__open_store(struct server *srv, struct reply *r)
{
	struct store *s = store__open_again(srv->data_dir);

	/* A shared workspace's database: said as the database, not as the directory. */
	if (!s && store__url() && errno == EPROTO)
		reply__msg(r, 500, MSG_STORE_PG_NEWER, store__url());
	else if (!s && store__url())
		reply__msg(r, 503, MSG_STORE_PG_FAILED, store__url(),
			   *store__problem(NULL) ? store__problem(NULL) : strerror(errno));
	else if (!s && errno == EPROTO)
		reply__msg(r, 500, MSG_STORE_NEWER_WORKSPACE, srv->data_dir);
	else if (!s)
		reply__msg(r, 500, MSG_DATA_DIR_UNUSABLE, srv->data_dir, strerror(errno));
	return s;
}

struct store *api__open_store(struct call *c)
{
	return server__open_store(c->srv, c->r);
}

/* 400: not a question, and which are (the table's ids). */
void api__unknown_question(struct call *c, const char *id)
{
	char ids[QUESTION_LIST_MAX];

	question__list_ids(ids, sizeof(ids));
	reply__msg(c->r, 400, MSG_CAPTURE_UNKNOWN_QUESTION, id, ids);
}
