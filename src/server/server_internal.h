/* SPDX-License-Identifier: MIT */
/* What the server's files share: the server, a request, a reply. */
#ifndef SLIDEOPS_SERVER_INTERNAL_H
#define SLIDEOPS_SERVER_INTERNAL_H

#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/agent_gate.h"
#include "server/agent_hub.h"
#include "server/capture_job.h"
#include "server/server.h"
#include "util/pb_limits.h"
#include "views/views.h"

#define SERVER_TOKEN_HEX 64
#define THIS_SERVER_ID "local"
/* A JSON request body: a capture's options, nothing large. */
#define SERVER_BODY_MAX (64 * 1024)
/* An agent's message: a batch is a capture's profile with its symbol and line tables. */
#define AGENT_BODY_MAX (64ULL << 20)
/* An enrolment: its token and what the agent says of itself, a few hundred bytes. It is
 * the one agent request read before any credential is known valid. */
#define ENROL_BODY_MAX 4096
/* What the bodies of agents' requests being read hold together, at most: past it, a
 * request is answered 503 before its body is read (a batch is held only when its whole
 * length fits). */
#define AGENT_BODIES_HELD_MAX (192ULL << 20)
/* Unpacking an agent's message takes at most this many times its size, and 1 MB
 * (protobuf-c's own allocations, counted: pb_limits.h); all of them at once, at most
 * AGENT_DECODE_POOL_MAX (503 past it, to be sent again). An honest batch of symbol
 * tables takes 2 to 7 times its size. */
#define AGENT_DECODE_FACTOR 8
#define AGENT_DECODE_POOL_MAX (512ULL << 20)
/* What is kept of a body sent with a revoked credential: its protocol version, to say
 * 410 or 401 as that version expects; the rest is read and dropped. */
#define REVOKED_BODY_KEPT 64
/* A request's URI as sent, path and query: longer is refused (414), never cut. */
#define SERVER_URI_MAX 4096
/* The bytes every upload being read at once may hold on disk together: two whole ones. */
#define SERVER_UPLOADS_HELD_MAX (2ULL * VIEWS_UPLOAD_MAX_BYTES)

/* What the uploads being read hold on disk, together; shared by every connection. */
struct upload_budget {
	pthread_mutex_t lock;
	uint64_t held;
};

struct agent_hub;

struct server {
	char data_dir[PATH_MAX];
	char token[SERVER_TOKEN_HEX + 1];
	char hostname[256];
	struct capture_job job;  /* this server's; agents' captures are in the hub */
	struct agent_hub *hub;   /* agents' commands, polls and captures (agent_hub.h) */
	/* This machine's installed profiler (DATA/profiler): its programs stay loaded
	 * between the job's captures; Remove the profiler unloads them. */
	struct profiler *profiler;
	struct upload_budget uploads;
	/* Agents (agent_gate.h): credentials known, addresses failing them; the bytes
	 * their bodies hold (under uploads.lock's sibling), and what unpacking them takes. */
	struct agent_gate *gate;
	pthread_mutex_t bodies_lock;
	uint64_t bodies_held;
	struct pb_pool decode_pool;
};

/* The upload being streamed to disk: a file without a name, gone when closed. */
struct upload {
	int fd;
	uint64_t bytes;
	bool too_large;          /* over the cap: the rest is read and dropped */
	bool over_budget;        /* other uploads hold the disk: the rest is dropped */
	int write_err;
	struct upload_budget *budget;
	uint64_t reserved;       /* bytes of the budget this upload holds */
};

/* What a handler answers: a JSON document, or bytes to download (an export). */
struct reply {
	int status;
	json_t *doc;             /* owned */
	char *data;              /* owned (malloc); sent instead of doc when set */
	size_t len;
	const char *content_type;
	char file_name[128];     /* Content-Disposition for downloads */
	char allow[64];          /* 405: the methods the path allows ("GET, HEAD") */
	unsigned retry_after;    /* 429, 503: Retry-After, seconds (0: the default) */
};

/* An agent's request before its body (agent_gate.h). */
enum gate_state {
	GATE_NONE,               /* not an agent's credential path, or not checked yet */
	GATE_PASSED,             /* a credential of a server of the workspace */
	GATE_REVOKED,            /* its server was removed: only its version is read */
	GATE_REFUSED,            /* the reply says why */
};

struct request {
	bool seen;               /* the handler has been called for it */
	bool uri_nul;            /* the URI as sent holds %00 */
	bool uri_too_long;       /* longer than SERVER_URI_MAX */
	char *raw_path;          /* the path as sent, before decoding ('/'-split first) */
	bool checked;            /* auth and Origin passed */
	bool cookie_auth;
	char *body;              /* JSON bodies, up to SERVER_BODY_MAX; agents' up to body_max */
	size_t body_len;
	size_t body_max;         /* 0: SERVER_BODY_MAX */
	bool agent;              /* a path of the agent protocol (/agent/...) */
	bool enrol;              /* /agent/enrol: no credential, its token in the body */
	bool body_too_large;
	bool over_budget;        /* other agents' bodies hold AGENT_BODIES_HELD_MAX */
	size_t body_cap;         /* bytes allocated for body */
	uint64_t declared;       /* Content-Length; 0: not said */
	uint64_t held;           /* bytes of srv->bodies_held this request holds */
	/* Its credential, checked before its body is read (agent_gate.h). */
	enum gate_state gate;
	bool gate_pending;       /* a worker checks it; the handler is called again after */
	unsigned char cred_hash[32];
	char server_id[STORE_ID_MAX]; /* GATE_PASSED: its server */
	enum agent_request_kind kind;
	bool admitted;           /* agent_hub__admit'ed: released when it is freed */
	struct gate_addr from;
	struct upload *upload;
	/* Handed to a worker (server.c): the connection waits, suspended, for the reply. */
	struct server *srv;
	struct MHD_Connection *conn;
	const char *method, *url;
	struct reply reply;
	bool replied;            /* reply is ready to be sent */
	struct request *next;    /* the workers' queue */
};

/* The API: fills r for method and url (req->raw_path: the path as sent). The request's
 * body and upload are complete. Runs on a worker thread, the connection suspended. */
void api__handle(struct server *srv, struct MHD_Connection *conn, const char *method,
		 const char *url, struct request *req, struct reply *r);
/* True when url is an upload (its body is streamed to disk, not kept). */
bool api__is_upload(const char *method, const char *url);
/* The agent protocol (api_agent.c): fills req->reply for a POST to /agent/...; true
 * when the request was parked (a poll held open), to be answered and resumed by the
 * hub: the caller must not touch req again. Runs on a worker thread. */
bool agent__handle(struct server *srv, struct MHD_Connection *conn, const char *url,
		   struct request *req);
/* "/agent/..." needs a body of at most this many bytes. */
size_t agent__body_max(const char *url);
/* A worker's check of req's credential (req->cred_hash, of the Authorization header)
 * before its body is read: req->gate and server_id set, the refusal replied. */
void agent__gate(struct server *srv, struct MHD_Connection *conn, struct request *req);
/* The kind of an agent path, for its admission. */
enum agent_request_kind agent__kind(const char *url);

struct store;
/* The workspace, opened for one request: NULL with the error replied into r. */
struct store *server__open_store(struct server *srv, struct reply *r);

void reply__error(struct reply *r, const struct view_error *e);
void reply__msg(struct reply *r, int status, enum msg_id id, ...);
struct ProtobufCMessage;
/* A protocol buffer message as the reply (application/x-protobuf). */
void reply__message(struct reply *r, int status, const struct ProtobufCMessage *m);

/* ---- upload streaming (upload.c) ---- */
/* An upload of declared bytes (0: not said, counted as it streams) into data_dir; NULL
 * with errno set, EBUSY when other uploads hold the budget. */
struct upload *upload__new(const char *data_dir, struct upload_budget *budget,
			   uint64_t declared);
/* Appends a chunk, counting it against the 1 GB cap and the budget. */
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
