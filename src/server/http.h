/* SPDX-License-Identifier: MIT */
/*
 * What the HTTP side of the workspace server shares between its files: server.c
 * (listening, starting), http_request.c (connections, requests and their bodies),
 * http_reply.c (replies and the headers every one carries) and http_auth.c (the token,
 * signing in, Host, Origin, and what a request must carry before anything acts on it).
 */
#ifndef SLIDEOPS_SERVER_HTTP_H
#define SLIDEOPS_SERVER_HTTP_H

#include "server/server_internal.h"

/* What the HTTP side keeps besides the server api.c sees. */
struct http {
	struct server srv;
	struct conn_guard *guard;
	struct workers *workers;        /* /api/: the UI and the CLI */
	struct workers *agent_workers;  /* /agent/: agents' batches, progress, replies */
	/* Strangers' work: checking an agent's credential before its body, enrolments. */
	struct workers *gate_workers;
	const char *allowed_hosts[SERVER_ALLOWED_HOSTS_MAX];
	int nallowed_hosts;
	/* libmicrohttpd's first complaint while starting: why it did not start. */
	pthread_mutex_t log_lock;
	bool started;
	char start_error[256];
};

/* ---- replies (http_reply.c) ---- */
bool http__is_tls(struct MHD_Connection *conn);
/* The headers of every response: CSP, nosniff, no referrer, no frames; HSTS over TLS. */
void http__add_common_headers(struct MHD_Connection *conn, struct MHD_Response *resp);
/* A reply from memory; allow (may be NULL or ""): the Allow header of a 405. */
enum MHD_Result http__send_buffer(struct MHD_Connection *conn, int status, const char *type,
				  void *data, size_t len, enum MHD_ResponseMemoryMode mode,
				  const char *allow, unsigned retry_after);
/* r's document, or its bytes (a download, an agent's message). */
enum MHD_Result http__send_reply(struct MHD_Connection *conn, struct reply *r);
/* A message of the table as the error document. */
enum MHD_Result http__send_error(struct MHD_Connection *conn, int status, enum msg_id id, ...);
/* The same with Retry-After: retry_after seconds (a 429 or a 503). */
enum MHD_Result http__send_retry(struct MHD_Connection *conn, int status, unsigned retry_after,
				 enum msg_id id, ...);
enum MHD_Result http__send_asset(struct MHD_Connection *conn, const struct asset *a);

/* ---- who is asking (http_auth.c) ---- */
/* Reads the workspace token, or makes one (0600) on first start. 0 or -errno. */
int http__load_token(const char *dir, char token[SERVER_TOKEN_HEX + 1]);
/* The first call for a request: is it well formed, who asks, and may they. -1: go on;
 * else the refusal was queued (or failed) and this is its result. */
int http__first_call(struct http *h, struct MHD_Connection *conn, const char *url,
		     const char *method, const char *version, struct request *req);

/* ---- requests (http_request.c): libmicrohttpd's callbacks, cls the struct http ---- */
/* A request begins: its struct request, NULL when there is no memory for it. */
void *http__on_uri(void *cls, const char *uri, struct MHD_Connection *conn);
/* A request is over: its struct request freed. */
void http__on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			enum MHD_RequestTerminationCode toe);
/* A connection opens or closes (conn_guard.h keeps them). */
void http__on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			 enum MHD_ConnectionNotificationCode code);
/* A request's header, then its body in pieces, then the end: answered or handed on. */
enum MHD_Result http__on_request(void *cls, struct MHD_Connection *conn, const char *url,
				 const char *method, const char *version,
				 const char *upload_data, size_t *upload_data_size, void **con_cls);

#endif
