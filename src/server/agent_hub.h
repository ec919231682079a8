/* SPDX-License-Identifier: MIT */
/*
 * The workspace's side of its agents (docs/protocol.md): for each agent's server, the
 * commands waiting for its next poll, their replies, and its capture's progress (in the
 * same document a capture on this server has, capture_job.h) are kept in the store, so
 * that every process of a shared workspace sees them; the poll an agent holds open is
 * kept in memory by the process it reached (parked: its connection suspended, no thread
 * waiting with it).
 *
 * A poll is parked until a command is queued for its server or its wait ends: a command
 * queued by this process wakes it at once; one queued by another process is found by
 * the main loop's sweep, about once a second. Then its reply is written and its
 * connection resumed, from whichever thread got there. An API request waiting for an
 * agent's reply or progress is woken when it comes to this process, and reads the store
 * five times a second for what comes to another.
 */
#ifndef SLIDEOPS_SERVER_AGENT_HUB_H
#define SLIDEOPS_SERVER_AGENT_HUB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "views/views.h"

struct agent_hub;
struct reply;
struct request;
struct server_entry;

/* The protocol version this workspace speaks, and the oldest it accepts. */
#define AGENT_PROTOCOL_VERSION 2
#define AGENT_PROTOCOL_OLDEST 1
/* From this version on, a removed server's credential gets 410 on every path; before it,
 * 401, and REMOVED in its poll. */
#define AGENT_PROTOCOL_GONE 2
/* An agent not heard from for this long is unreachable. */
#define AGENT_UNREACHABLE_NS (90 * 1000000000LL)
/* How long an API request waits for an agent's reply to a command. Check loads every
 * question's programs to know what works (over 10 s on a loaded machine) and an agent
 * answers its commands in turn, so a Performance tab's check and top, asked at once, may
 * take that long together. */
#define AGENT_REPLY_WAIT_NS (45 * 1000000000LL)
/* An agent's first check verifies a program of every question, as this server's own
 * check does with no limit: on a loaded server (a load of 20 on 2 CPUs) more than 45 s.
 * It answers later checks from what it found. */
#define AGENT_CHECK_WAIT_NS (150 * 1000000000LL)
/* The longest a poll is held open. */
#define AGENT_POLL_WAIT_MAX_MS 30000

enum agent_command {
	AGENT_CAPTURE = 1,
	AGENT_STOP = 2,
	AGENT_CHECK = 3,
	AGENT_TOP = 4,
	AGENT_REMOVE_PROFILER = 5,
	AGENT_REMOVED = 6,
};

/* What an agent's request is, for its admission (agent_hub__admit). */
enum agent_request_kind {
	AGENT_REQUEST_OTHER,      /* progress, a command's reply, symbols-wanted */
	AGENT_REQUEST_POLL,
	AGENT_REQUEST_BATCH,
};
/* One agent's requests answered at once, at most: its poll (and, for a moment, the one
 * that replaces it), one batch (its sender delivers one at a time), and three others
 * (a capture's progress and symbols-wanted, a command's reply). */
#define AGENT_OTHERS_MAX 3
/* A new poll replaces the one held for its server only after this long: an agent whose
 * connection was lost polls again after a second or more; an agent polling faster is
 * refused (429) before its message is read. */
#define AGENT_POLL_REPLACE_NS (2 * 1000000000LL)

/* The hub of the workspace at data_dir (or store__url's). */
struct agent_hub *agent_hub__new(const char *data_dir);
/* Answers every parked poll (empty) and every waiting call (503): before the HTTP
 * daemon stops. */
void agent_hub__stop(struct agent_hub *h);
void agent_hub__free(struct agent_hub *h);
/* Answers the parked polls whose wait has ended. About once a second. */
void agent_hub__sweep(struct agent_hub *h, int64_t now_ns);

/*
 * A poll from the server srv (authenticated), of protocol version. When commands wait
 * (or the server was removed), req's reply is written and false returned; else req is
 * parked, to be answered and resumed later by the hub, and true returned: the caller
 * must not touch req again. running_capture: the capture the agent runs now ("" none).
 */
bool agent_hub__poll(struct agent_hub *h, const struct server_entry *srv,
		     const char *running_capture, uint32_t wait_ms, uint32_t version,
		     struct request *req);
/* The reply to a removed server's poll of protocol version: 410 and why, or REMOVED for
 * a version before AGENT_PROTOCOL_GONE. */
void agent_hub__removed_reply(struct reply *r, uint32_t version);

/*
 * Queues a CHECK, TOP (of top processes) or REMOVE_PROFILER for server id and waits (up to
 * AGENT_REPLY_WAIT_NS) for the agent's reply: 0 and its status and document (JSON text,
 * malloc'd); -EHOSTUNREACH when the agent is not polling (e set: 503); -ETIMEDOUT (e
 * set: 504); -EBUSY a capture runs and REMOVE_PROFILER was asked (e set: 409).
 */
int agent_hub__call(struct agent_hub *h, const struct server_entry *srv,
		    enum agent_command kind, unsigned top, int *status, char **doc,
		    struct view_error *e);
/* An agent's CommandReply (document: its bytes, len). */
void agent_hub__reply(struct agent_hub *h, const char *server_id, const char *command_id,
		      int status, const void *doc, size_t len);

/* Starts a capture on an agent's server: 0 and the progress document in *status; -1
 * with e set (409 one runs; 503 unreachable; 504 no answer; the agent's refusal). */
int agent_hub__capture(struct agent_hub *h, const struct server_entry *srv, enum question q,
		       unsigned seconds, unsigned hz, json_t **status, struct view_error *e);
int agent_hub__stop_capture(struct agent_hub *h, const struct server_entry *srv,
			    struct view_error *e);
/* The capture's progress document (as capture_job__status). */
json_t *agent_hub__capture_status(struct agent_hub *h, const char *server_id);
/* An agent's Progress of capture_id. phase: sampling, reading, saving, done, failed. */
void agent_hub__progress(struct agent_hub *h, const char *server_id, const char *capture_id,
			 const char *phase, uint64_t done, uint64_t total, const char *error,
			 const char *note);
/* When the workspace asked for capture_id (realtime), or 0 when it is not the server's
 * last capture. */
int64_t agent_hub__asked_at(struct agent_hub *h, const char *server_id, const char *capture_id);
/* capture_id's batch was refused (why): the capture failed, saying so. */
void agent_hub__refused(struct agent_hub *h, const char *server_id, const char *capture_id,
			const char *why);
/* capture_id's batch was stored as profile_id (its spool drops are counted in the store,
 * with the batch). */
void agent_hub__delivered(struct agent_hub *h, const char *server_id, const char *capture_id,
			  const char *profile_id);
/* What the hub knows of a server for its listing: polling now, a capture running. */
void agent_hub__state(struct agent_hub *h, const char *server_id, bool *polling,
		      bool *capturing);
/*
 * An authenticated request of server_id's agent, of kind, before its body is read:
 * 0 when it may be answered (agent_hub__release when it ends); -EBUSY when its agent
 * already holds a poll (younger than AGENT_POLL_REPLACE_NS), a batch, or
 * AGENT_OTHERS_MAX other requests here; -ENOMEM.
 */
int agent_hub__admit(struct agent_hub *h, const char *server_id, enum agent_request_kind kind,
		     int64_t now_ns);
void agent_hub__release(struct agent_hub *h, const char *server_id,
			enum agent_request_kind kind);
/* The server was removed: a parked poll gets its removed reply now, waiting calls
 * fail. */
void agent_hub__remove(struct agent_hub *h, const char *server_id);

#endif
