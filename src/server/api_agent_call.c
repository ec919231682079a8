// SPDX-License-Identifier: MIT
/*
 * What every /agent/ handler does with its request (api_agent_internal.h), below them
 * all (api_agent.c's, api_agent_batch.c's): check its version, unpack its message within
 * a budget, find its server by its credential.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "agent.pb-c.h"
#include "server/api_agent_internal.h"
#include "server/server_internal.h"
#include "store/store.h"
#include "util/pb_limits.h"

/* The protocol version a message carries: true when this workspace speaks it, else the
 * 426 is replied. */
bool agent_call__version_ok(struct agent_call *a, uint32_t version)
{
	if (version >= AGENT_PROTOCOL_OLDEST && version <= AGENT_PROTOCOL_VERSION)
		return true;
	reply__msg(a->r, 426, MSG_AGENT_BAD_VERSION, version, AGENT_PROTOCOL_OLDEST,
		   AGENT_PROTOCOL_VERSION);
	return false;
}

/*
 * The request's message, unpacked within AGENT_DECODE_FACTOR times its size and 1 MB
 * (and the pool every message being read draws from): NULL with the refusal replied,
 * 413 past its own cap (for good), 503 when the pool is spent (to be sent again).
 * Freed with agent_call__release().
 */
ProtobufCMessage *agent_call__unpack(struct agent_call *a, const ProtobufCMessageDescriptor *d,
				     const char *what)
{
	const char *body = a->req->body ? a->req->body : "";
	size_t len = a->req->body_len;
	ProtobufCMessage *m;

	pb_budget__init(&a->budget, AGENT_DECODE_FACTOR * len + (1u << 20), &a->srv->decode_pool);
	m = protobuf_c_message_unpack(d, &a->budget.allocator, len, (const uint8_t *)body);
	if (m)
		return m;
	if (a->budget.pool_refused) {
		reply__msg(a->r, 503, MSG_AGENT_DECODE_BUSY);
		a->r->retry_after = 5;
	} else if (a->budget.refused) {
		reply__msg(a->r, 413, MSG_AGENT_MESSAGE_TOO_LARGE, what,
			   (unsigned long long)(a->budget.cap >> 20),
			   (unsigned long long)AGENT_DECODE_FACTOR);
	} else {
		reply__msg(a->r, 400, MSG_AGENT_BAD_MESSAGE, what);
	}
	return NULL;
}

void agent_call__release(struct agent_call *a, ProtobufCMessage *m)
{
	if (m)
		protobuf_c_message_free_unpacked(m, &a->budget.allocator);
}

struct store *agent_call__open_store(struct agent_call *a)
{
	return server__open_store(a->srv, a->r);
}

const char *agent_call__credential(struct MHD_Connection *conn)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

	if (!h || strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t'))
		return NULL;
	return h + 6 + strspn(h + 6, " \t");
}

/*
 * The server whose agent sends this request, of protocol version: 0 and *out; else -1
 * with the refusal replied. A removed server's credential gets one answer on every path:
 * 410. A version before AGENT_PROTOCOL_GONE knew only 401 for it (and REMOVED in its
 * poll): that is replied, and -EKEYREVOKED returned for the poll to replace it.
 */
int agent_call__authenticate(struct agent_call *a, struct store *s, uint32_t version,
			     struct server_entry **out)
{
	int err = store__authenticate(s, agent_call__credential(a->conn), out);

	if (err == -EKEYREVOKED && version >= AGENT_PROTOCOL_GONE) {
		reply__msg(a->r, 410, MSG_AGENT_SERVER_GONE);
		return -1;
	}
	if (err == -EACCES || err == -EKEYREVOKED) {
		reply__msg(a->r, 401, MSG_AGENT_BAD_CREDENTIAL);
		return err == -EKEYREVOKED ? err : -1;
	}
	if (err) {
		reply__msg(a->r, 500, MSG_AGENT_BATCH_FAILED, strerror(-err));
		return -1;
	}
	return 0;
}

/* The server of an authenticated request of protocol version, s closed after: 0, or -1
 * replied. */
int agent_call__who(struct agent_call *a, uint32_t version, struct server_entry **srv)
{
	struct store *s = agent_call__open_store(a);
	int err;

	if (!s)
		return -1;
	err = agent_call__authenticate(a, s, version, srv);
	store__close(s);
	return err ? -1 : 0;
}
