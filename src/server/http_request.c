// SPDX-License-Identifier: MIT
/*
 * The workspace server's request handler (libmicrohttpd's callbacks): a connection's
 * requests and their bodies, agents' bodies held within what they may hold together, an
 * agent's request admitted before its body is read, uploads, and the embedded UI; /api/
 * and /agent/ handed to the workers (workers.h). Listening and starting: server.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "server/agent_hub.h"
#include "server/conn_guard.h"
#include "server/http.h"
#include "server/workers.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/messages.h"

/* ---- agents' bodies: what they hold together ---- */

/* n more bytes for req's body: false when the agents' bodies would hold more than
 * AGENT_BODIES_HELD_MAX. */
static bool bodies__reserve(struct server *srv, struct request *req, uint64_t n)
{
	bool ok;

	pthread_mutex_lock(&srv->bodies_lock);
	ok = srv->bodies_held + n <= AGENT_BODIES_HELD_MAX;
	if (ok) {
		srv->bodies_held += n;
		req->held += n;
	}
	pthread_mutex_unlock(&srv->bodies_lock);
	return ok;
}

static void bodies__release(struct server *srv, struct request *req)
{
	if (!req->held)
		return;
	pthread_mutex_lock(&srv->bodies_lock);
	srv->bodies_held -= req->held;
	pthread_mutex_unlock(&srv->bodies_lock);
	req->held = 0;
}

/* ---- the request handler ---- */

static void request__free(struct http *h, struct request *req)
{
	if (!req)
		return;
	bodies__release(&h->srv, req);
	if (req->admitted)
		agent_hub__release(h->srv.hub, req->server_id, req->kind);
	free(req->raw_path);
	free(req->body);
	upload__free(req->upload);
	json_decref(req->reply.doc);
	free(req->reply.data);
	free(req);
}

static struct conn_slot *slot_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Before the request line is decoded: its URI as sent, which is where a %00 still shows
 * and where its length is its length. What it returns is the request's *con_cls. */
void *http__on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct request *req = calloc(1, sizeof(*req));
	size_t len = strlen(uri);

	(void)cls;
	(void)conn;
	if (!req)
		return NULL;
	req->uri_too_long = len > SERVER_URI_MAX;
	req->uri_nul = strstr(uri, "%00") != NULL;
	if (!req->uri_too_long)
		req->raw_path = strdup(uri);
	return req;
}

void http__on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			       enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;

	(void)toe;
	request__free(h, *con_cls);
	*con_cls = NULL;
	/* Kept alive for another request: its header is due as a new connection's is. */
	conn_guard__idle(h->guard, slot_of(conn), clock__monotonic_ns());
}

void http__on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
				enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *fd, *addr;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		conn_guard__close(h->guard, *socket_context);
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	*socket_context = fd ? conn_guard__open(h->guard, fd->connect_fd,
						addr ? addr->client_addr : NULL,
						clock__monotonic_ns()) : NULL;
}

/*
 * Room for need bytes of body (and a NUL). An agent's body is allocated once at the
 * length it said, which it holds of the agents' budget (reserved when its credential
 * passed); one whose length was not said (chunked) grows, doubling, each step reserved.
 * False only when out of memory; over the budget, req->over_budget and the rest dropped.
 */
static bool body__room(struct server *srv, struct request *req, size_t need)
{
	size_t cap = req->body_cap;
	char *grown;

	if (need + 1 <= cap)
		return true;
	if (req->agent && req->declared && need <= req->declared)
		cap = req->declared + 1;
	else
		cap = need + 1 > 2 * cap ? need + 1 : 2 * cap;
	if (req->agent && cap > req->held && !bodies__reserve(srv, req, cap - req->held)) {
		req->over_budget = true;
		return true;
	}
	grown = realloc(req->body, cap);
	if (!grown)
		return false;
	req->body = grown;
	req->body_cap = cap;
	return true;
}

static bool read_body(struct server *srv, struct request *req, const char *data, size_t len)
{
	size_t max = req->body_max ? req->body_max : SERVER_BODY_MAX;

	/* A revoked credential's body: its first bytes, for its version; the rest dropped. */
	if (req->gate == GATE_REVOKED) {
		max = REVOKED_BODY_KEPT;
		if (req->body_len + len > max)
			len = req->body_len < max ? max - req->body_len : 0;
	}
	if (req->body_too_large || req->over_budget || req->body_len + len > max) {
		req->body_too_large |= req->gate != GATE_REVOKED && !req->over_budget;
		return true;
	}
	if (!body__room(srv, req, req->body_len + len))
		return false;
	if (req->over_budget)
		return true;
	memcpy(req->body + req->body_len, data, len);
	req->body_len += len;
	req->body[req->body_len] = '\0';
	return true;
}

/* ---- an agent's request before its body ---- */

/* The credential passed: the request is admitted for its server (one poll, one batch,
 * a few others), and its declared length held of the bodies' budget; the connection is
 * then an authenticated one, which the guard never drops. */
static enum MHD_Result agent_admit(struct http *h, struct MHD_Connection *conn,
				   struct request *req)
{
	static const enum msg_id busy[] = {
		[AGENT_REQUEST_OTHER] = MSG_AGENT_BUSY_OTHER,
		[AGENT_REQUEST_POLL] = MSG_AGENT_BUSY_POLL,
		[AGENT_REQUEST_BATCH] = MSG_AGENT_BUSY_BATCH,
	};
	int err = agent_hub__admit(h->srv.hub, req->server_id, req->kind, clock__monotonic_ns());

	if (err == -EBUSY)
		return http__send_retry(conn, MHD_HTTP_TOO_MANY_REQUESTS, 1, busy[req->kind],
					AGENT_OTHERS_MAX);
	if (err)
		return http__send_error(conn, 500, MSG_OUT_OF_MEMORY);
	req->admitted = true;
	if (req->declared && !bodies__reserve(&h->srv, req, req->declared + 1))
		return http__send_retry(conn, MHD_HTTP_SERVICE_UNAVAILABLE, 5, MSG_AGENT_BODIES_BUSY,
					(unsigned long long)(AGENT_BODIES_HELD_MAX >> 20));
	conn_guard__busy(h->guard, slot_of(conn));
	return MHD_YES;
}

/* The first call of an agent's request, its header checked (http_auth.c). An enrolment
 * stays an unauthenticated connection (its few bytes due within the header's deadline);
 * a credential known here passes at once; else a worker asks the store, the connection
 * suspended, and the handler is called again (agent_decided). */
static enum MHD_Result agent_first(struct http *h, struct MHD_Connection *conn,
				   struct request *req)
{
	int64_t now = clock__monotonic_ns();
	unsigned wait = agent_gate__wait_s(h->srv.gate, &req->from, now);

	if (req->enrol) {
		if (wait)
			return http__send_retry(conn, MHD_HTTP_TOO_MANY_REQUESTS, wait,
						MSG_AGENT_SLOW_DOWN, wait);
		return MHD_YES;
	}
	if (agent_gate__known(h->srv.gate, req->cred_hash, now, req->server_id)) {
		req->gate = GATE_PASSED;
		return agent_admit(h, conn, req);
	}
	if (wait)
		return http__send_retry(conn, MHD_HTTP_TOO_MANY_REQUESTS, wait, MSG_AGENT_SLOW_DOWN,
					wait);
	req->conn = conn;
	req->gate_pending = true;
	if (!workers__submit(h->gate_workers, req))
		return http__send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, MSG_API_STOPPING);
	return MHD_YES;
}

/* Called again once the worker checked the credential, before any of the body. */
static enum MHD_Result agent_decided(struct http *h, struct MHD_Connection *conn,
				     struct request *req)
{
	req->gate_pending = false;
	if (req->gate == GATE_PASSED)
		return agent_admit(h, conn, req);
	if (req->gate == GATE_REVOKED)
		return MHD_YES;
	req->replied = false;
	return http__send_reply(conn, &req->reply);
}

static int start_upload(struct http *h, struct MHD_Connection *conn, struct request *req)
{
	const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	unsigned long long declared = len ? strtoull(len, NULL, 10) : 0;

	/* Said too large up front: refused before a byte is read. */
	if (declared > VIEWS_UPLOAD_MAX_BYTES)
		return http__send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, MSG_UPLOAD_TOO_LARGE);
	req->upload = upload__new(h->srv.data_dir, &h->srv.uploads, declared);
	if (!req->upload && errno == EBUSY)
		return http__send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, MSG_API_UPLOADS_BUSY,
				  (unsigned long long)(SERVER_UPLOADS_HELD_MAX >> 20));
	if (!req->upload)
		return http__send_error(conn, 500, MSG_API_UPLOAD_WRITE, strerror(errno));
	return -1;
}

enum MHD_Result http__on_request(void *cls, struct MHD_Connection *conn, const char *url,
				 const char *method, const char *version,
				 const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct http *h = cls;
	struct request *req = *con_cls;
	struct asset a;
	int refused;

	if (!req) { /* http__on_uri could not allocate it */
		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		*con_cls = req;
	}
	if (!req->seen) {
		req->seen = true;
		req->srv = &h->srv;
		refused = http__first_call(h, conn, url, method, version, req);
		if (refused < 0 && api__is_upload(method, url))
			refused = start_upload(h, conn, req);
		if (refused >= 0)
			return (enum MHD_Result)refused;
		if (req->agent)
			return agent_first(h, conn, req);
		/* The token passed: never dropped as a connection without one is. */
		conn_guard__busy(h->guard, slot_of(conn));
		return MHD_YES;
	}
	if (req->gate_pending)
		return agent_decided(h, conn, req);
	if (*upload_data_size) {
		if (req->upload)
			upload__write(req->upload, upload_data, *upload_data_size);
		else if (!read_body(&h->srv, req, upload_data, *upload_data_size))
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}

	if (strncmp(url, "/api/", 5) == 0 || req->agent) {
		if (req->replied)
			return http__send_reply(conn, &req->reply);
		if (req->over_budget)
			return http__send_retry(conn, MHD_HTTP_SERVICE_UNAVAILABLE, 5,
						MSG_AGENT_BODIES_BUSY,
						(unsigned long long)(AGENT_BODIES_HELD_MAX >> 20));
		req->conn = conn;
		req->method = method;
		req->url = url;
		/* Enrolments, the one request no credential vouches for, have workers of
		 * their own (the gate's), so strangers never queue before agents or users. */
		if (workers__submit(req->enrol ? h->gate_workers :
				    req->agent ? h->agent_workers : h->workers, req))
			return MHD_YES;
		return http__send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, MSG_API_STOPPING);
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return http__send_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, MSG_API_METHOD, method,
					url);
	/* Every page of the UI is the one page; it reads its place from the path. */
	if (!asset__find(url, &a) && (strchr(url + 1, '.') || !asset__find("/", &a)))
		return http__send_error(conn, MHD_HTTP_NOT_FOUND, MSG_API_NOT_FOUND, "that path");
	return http__send_asset(conn, &a);
}
