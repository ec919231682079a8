/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 POSTs of protocol messages to the workspace (libcurl; docs/protocol.md,
 * Transport). One transport is one connection, used by one thread at a time; every
 * thread that talks to the workspace has its own. TLS is checked against the system's
 * CAs, or the file given.
 */
#ifndef SLIDEOPS_AGENT_TRANSPORT_H
#define SLIDEOPS_AGENT_TRANSPORT_H

#include <signal.h>
#include <stddef.h>

#define TRANSPORT_ERROR_MAX 256

struct transport;

struct http_reply {
	long status;           /* the HTTP status; 0 when no reply came */
	char *body;            /* malloc'd, NUL-terminated (len excludes the NUL) */
	size_t len;
	char error[TRANSPORT_ERROR_MAX]; /* when no reply came: why, in curl's words */
};

/* Once, before any thread starts. 0 or -errno. */
int transport__global_init(void);

/* A transport to the workspace at base_url ("http://127.0.0.1:7070"). ca_file: the CA
 * certificate(s) to trust instead of the system's (NULL: the system's). NULL on error. */
struct transport *transport__new(const char *base_url, const char *ca_file);
void transport__free(struct transport *t);

/* The credential sent as Authorization: Bearer on every request (NULL: none). */
void transport__set_credential(struct transport *t, const char *credential);

/*
 * POSTs body (len bytes) to path. Waits at most timeout_ms for the whole exchange and
 * gives up when *cancel becomes non-zero (NULL: never). 0 when the workspace replied
 * (any status: reply->status), or -errno when it did not (-ECONNREFUSED, -ETIMEDOUT,
 * -ECANCELED, -EIO ...; reply->error says why). Release reply with http_reply__release.
 */
int transport__post(struct transport *t, const char *path, const void *body, size_t len,
		    long timeout_ms, volatile sig_atomic_t *cancel, struct http_reply *reply);

void http_reply__release(struct http_reply *r);

#endif
