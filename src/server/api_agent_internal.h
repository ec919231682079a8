// SPDX-License-Identifier: MIT
/*
 * One agent request being answered (struct agent_call) and what every /agent/ handler
 * does with it: check its version, unpack its message within a budget, find its server
 * by its credential (api_agent_call.c). Shared by api_agent.c (enrol, poll, progress,
 * reply) and api_agent_batch.c (symbols-wanted, batch).
 */
#ifndef SLIDEOPS_SERVER_API_AGENT_INTERNAL_H
#define SLIDEOPS_SERVER_API_AGENT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "util/pb_limits.h"

struct MHD_Connection;
struct reply;
struct request;
struct server;
struct server_entry;
struct store;

/* What an agent may say of itself, at most (bytes): machine id, boot id, capture id,
 * version. */
#define FIELD_SHORT 64

struct agent_call {
	struct server *srv;
	struct MHD_Connection *conn;
	struct request *req;
	struct reply *r;
	struct pb_budget budget;  /* what unpacking the message may take */
};

/* The protocol version a message carries: true when this workspace speaks it, else the
 * 426 is replied. */
bool agent_call__version_ok(struct agent_call *a, uint32_t version);
/* The request's message, unpacked within its budget: NULL with the refusal replied
 * (api_agent.c says which). Freed with agent_call__release(). */
ProtobufCMessage *agent_call__unpack(struct agent_call *a, const ProtobufCMessageDescriptor *d,
				     const char *what);
void agent_call__release(struct agent_call *a, ProtobufCMessage *m);
struct store *agent_call__open_store(struct agent_call *a);
/* The server whose agent sends this request: 0 and *out; else -1 (or -EKEYREVOKED) with
 * the refusal replied. */
int agent_call__authenticate(struct agent_call *a, struct store *s, uint32_t version,
			     struct server_entry **out);
/* agent_call__authenticate with a store of its own: 0 and *srv, else -1. */
int agent_call__who(struct agent_call *a, uint32_t version, struct server_entry **srv);
/* The credential of "Authorization: Bearer CREDENTIAL", or NULL. */
const char *agent_call__credential(struct MHD_Connection *conn);

/* /agent/symbols-wanted and /agent/batch (api_agent_batch.c). */
void agent__symbols_wanted(struct agent_call *a);
void agent__batch(struct agent_call *a);

#endif
