/* SPDX-License-Identifier: MIT */
/* What the server's files share: the server, a request, a reply. */
#ifndef SLIDEOPS_SERVER_INTERNAL_H
#define SLIDEOPS_SERVER_INTERNAL_H

#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/capture_job.h"
#include "views/views.h"

#define SERVER_TOKEN_HEX 64
#define THIS_SERVER_ID "local"
/* A JSON request body: a capture's options, nothing large. */
#define SERVER_BODY_MAX (64 * 1024)

struct server {
	char data_dir[PATH_MAX];
	char token[SERVER_TOKEN_HEX + 1];
	char hostname[256];
	struct capture_job job;  /* this server's; agents bring their own later */
};

/* The upload being streamed to disk: a file without a name, gone when closed. */
struct upload {
	int fd;
	uint64_t bytes;
	bool too_large;          /* over the cap: the rest is read and dropped */
	int write_err;
};

struct request {
	bool checked;            /* auth and Origin passed */
	bool cookie_auth;
	char *body;              /* JSON bodies, up to SERVER_BODY_MAX */
	size_t body_len;
	bool body_too_large;
	struct upload *upload;
};

/* What a handler answers: a JSON document, or a file (export). */
struct reply {
	int status;
	json_t *doc;             /* owned */
	int fd;                  /* a file to send instead of doc; -1: none */
	const char *content_type;
	char file_name[128];     /* Content-Disposition for downloads */
	char allow[64];          /* 405: the methods the path allows ("GET, HEAD") */
};

/* The API: fills r for method and url. The request's body and upload are complete. */
void api__handle(struct server *srv, struct MHD_Connection *conn, const char *method,
		 const char *url, struct request *req, struct reply *r);
/* True when url is an upload (its body is streamed to disk, not kept). */
bool api__is_upload(const char *method, const char *url);

void reply__error(struct reply *r, const struct view_error *e);
void reply__msg(struct reply *r, int status, enum msg_id id, ...);

/* ---- upload streaming (upload.c) ---- */
struct upload *upload__new(const char *data_dir);
/* Appends a chunk, counting it against the 1 GB cap. */
void upload__write(struct upload *u, const char *data, size_t len);
void upload__free(struct upload *u);

/* ---- embedded assets (assets.c) ---- */
struct asset {
	const char *path;        /* "/app.js" */
	const char *content_type;
	const char *data;
	size_t size;
};

bool asset__find(const char *path, struct asset *out);

#endif
