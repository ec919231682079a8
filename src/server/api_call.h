/* SPDX-License-Identifier: MIT */
/* One API request as the files that answer it see it, and the helpers every answer uses
 * (api_call.c). */
#ifndef SLIDEOPS_SERVER_API_CALL_H
#define SLIDEOPS_SERVER_API_CALL_H

#include "server/server_internal.h"

struct server_entry;

#define PATH_PARTS 6
#define TOP_DEFAULT 10
#define TOP_MAX 100000
#define SECONDS_MAX 3600
#define HZ_DEFAULT 99
#define HZ_MAX 1000
/* Profiles a page: the first page of a workspace of 10k costs what one of 100 does. */
#define PAGE_DEFAULT 100
#define PAGE_MAX 1000

struct call {
	struct server *srv;
	struct MHD_Connection *conn;
	const char *method;
	const char *url;
	struct request *req;
	struct reply *r;
	char *parts[PATH_PARTS]; /* the path after /api/ as sent, split at '/', then decoded */
	int nparts;
	char *buf;               /* what parts point into */
	/* /servers/ID/...: the server ID names (dispatch looks it up); NULL elsewhere */
	struct server_entry *target;
};

const char *api__arg(const struct call *c, const char *name);
void api__ok(struct call *c, json_t *doc);
void api__fail(struct call *c, const struct view_error *e);
/* What a view builder gave: its document, or (NULL) the error it set in e. */
void api__answer(struct call *c, json_t *doc, const struct view_error *e);
/* A whole number of a query argument: 0, or -1 with the 400 replied. */
int api__number(struct call *c, const char *name, const char *text, long min, long max,
		long *out);
struct store *api__open_store(struct call *c);
/* 400: id is not a question; the message lists those that are. */
void api__unknown_question(struct call *c, const char *id);

#endif
