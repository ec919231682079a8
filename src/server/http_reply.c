// SPDX-License-Identifier: MIT
/* Replies, and the headers every response carries (http.h). */
#include "server/http.h"

#include <dlfcn.h>
#include <protobuf-c/protobuf-c.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HSTS "max-age=31536000"

/* Scripts, styles and requests only to here; nothing inline, no frames, no plugins. */
static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
			  "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
			  "frame-ancestors 'none'; base-uri 'none'";

/* ---- replies ---- */

void reply__error(struct reply *r, const struct view_error *e)
{
	json_decref(r->doc);
	r->status = e->status;
	r->doc = view_error__json(e);
}

void reply__msg(struct reply *r, int status, enum msg_id id, ...)
{
	struct view_error e;
	va_list ap;

	va_start(ap, id);
	view_error__vset(&e, status, id, ap);
	va_end(ap);
	reply__error(r, &e);
}

/* A protocol buffer message as the reply: the agent protocol's (api_agent.c, agent_hub.c). */
void reply__message(struct reply *r, int status, const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	char *data = malloc(len ? len : 1);

	json_decref(r->doc);
	r->doc = NULL;
	free(r->data);
	r->data = NULL;
	if (!data) {
		reply__msg(r, 500, MSG_OUT_OF_MEMORY);
		return;
	}
	protobuf_c_message_pack(m, (uint8_t *)data);
	r->status = status;
	r->data = data;
	r->len = len;
	r->content_type = "application/x-protobuf";
	r->file_name[0] = '\0';
}

bool http__is_tls(struct MHD_Connection *conn)
{
	return MHD_get_connection_info(conn, MHD_CONNECTION_INFO_PROTOCOL) != NULL;
}

void http__add_common_headers(struct MHD_Connection *conn, struct MHD_Response *resp)
{
	/* Over TLS, the browser comes back over TLS only. */
	if (http__is_tls(conn))
		MHD_add_response_header(resp, "Strict-Transport-Security", HSTS);
	MHD_add_response_header(resp, "Content-Security-Policy", csp);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* The token may be in the URL of the first request: never send it on. */
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Cross-Origin-Opener-Policy", "same-origin");
	MHD_add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
}

/*
 * libmicrohttpd's own responses (a request line it cannot parse: 400; a header past its
 * buffer: 431; a bad chunk: 400 ...) are made and queued inside the library, and 0.9.75
 * has no hook for their headers. Its calls to MHD_queue_response go through its PLT, so
 * this definition, exported by the executable, is the one they reach: every response
 * gets the headers every one of ours carries (once: ours have them already), then the
 * library's own function queues it. serve_hostile_pages.sh checks that its pages do.
 */
typedef enum MHD_Result (*queue_fn)(struct MHD_Connection *, unsigned int,
				    struct MHD_Response *);
static queue_fn real_queue;
static pthread_once_t real_queue_once = PTHREAD_ONCE_INIT;

static void find_real_queue(void)
{
	real_queue = (queue_fn)dlsym(RTLD_NEXT, "MHD_queue_response");
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *conn, unsigned int status,
				   struct MHD_Response *resp)
{
	pthread_once(&real_queue_once, find_real_queue);
	if (!real_queue)
		return MHD_NO;
	if (resp && !MHD_get_response_header(resp, "Content-Security-Policy"))
		http__add_common_headers(conn, resp);
	return real_queue(conn, status, resp);
}

/* A reply from memory; allow (may be NULL or ""): the Allow header of a 405. A HEAD
 * request gets the same headers, Content-Length included, and libmicrohttpd sends no
 * body. */
enum MHD_Result http__send_buffer(struct MHD_Connection *conn, int status, const char *type,
				   void *data, size_t len, enum MHD_ResponseMemoryMode mode,
				   const char *allow, unsigned retry_after)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, data, mode);
	enum MHD_Result ret;
	char retry[16];

	if (!resp)
		return MHD_NO;
	http__add_common_headers(conn, resp);
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (allow && *allow)
		MHD_add_response_header(resp, "Allow", allow);
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE || status == MHD_HTTP_TOO_MANY_REQUESTS) {
		snprintf(retry, sizeof(retry), "%u", retry_after ? retry_after : 10);
		MHD_add_response_header(resp, "Retry-After", retry);
	}
	/* A request whose framing or address was refused: nothing more is read from it. */
	if (status == MHD_HTTP_BAD_REQUEST || status == MHD_HTTP_URI_TOO_LONG)
		MHD_add_response_header(resp, "Connection", "close");
	/* A 401 says how to authenticate (RFC 9110): the token, as a Bearer token. */
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer realm=\"SlideOps\"");
	ret = MHD_queue_response(conn, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result http__send_reply(struct MHD_Connection *conn, struct reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char *text;

	if (r->data) {
		char disp[200];

		json_decref(r->doc);
		r->doc = NULL;
		resp = MHD_create_response_from_buffer(r->len, r->data, MHD_RESPMEM_MUST_FREE);
		if (!resp) {
			free(r->data);
			r->data = NULL;
			return MHD_NO;
		}
		r->data = NULL;
		http__add_common_headers(conn, resp);
		MHD_add_response_header(resp, "Content-Type", r->content_type);
		MHD_add_response_header(resp, "Cache-Control", "no-store");
		/* A download (an export); an agent's message is none. */
		snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", r->file_name);
		if (r->file_name[0])
			MHD_add_response_header(resp, "Content-Disposition", disp);
		ret = MHD_queue_response(conn, (unsigned)r->status, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	if (!r->doc) {
		r->status = 500;
		r->doc = json_pack("{s:s}", "error", msg_text(MSG_OUT_OF_MEMORY));
	}
	text = r->doc ? json_dumps(r->doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
						   JSON_REAL_PRECISION(10)) : NULL;
	json_decref(r->doc);
	r->doc = NULL;
	if (!text)
		return MHD_NO;
	return http__send_buffer(conn, r->status, "application/json; charset=utf-8", text,
				 strlen(text), MHD_RESPMEM_MUST_FREE, r->allow, r->retry_after);
}

enum MHD_Result http__send_error(struct MHD_Connection *conn, int status, enum msg_id id, ...)
{
	struct reply r = { 0 };
	struct view_error e;
	va_list ap;

	/* Outside /api/, everything is a page or a file of the UI: only read. */
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		snprintf(r.allow, sizeof(r.allow), "GET, HEAD");

	va_start(ap, id);
	view_error__vset(&e, status, id, ap);
	va_end(ap);
	reply__error(&r, &e);
	return http__send_reply(conn, &r);
}

enum MHD_Result http__send_retry(struct MHD_Connection *conn, int status, unsigned retry_after,
				 enum msg_id id, ...)
{
	struct reply r = { .retry_after = retry_after };
	struct view_error e;
	va_list ap;

	va_start(ap, id);
	view_error__vset(&e, status, id, ap);
	va_end(ap);
	reply__error(&r, &e);
	return http__send_reply(conn, &r);
}

enum MHD_Result http__send_asset(struct MHD_Connection *conn, const struct asset *a)
{
	return http__send_buffer(conn, 200, a->content_type, (void *)a->data, a->size,
				 MHD_RESPMEM_PERSISTENT, NULL, 0);
}
