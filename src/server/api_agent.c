// SPDX-License-Identifier: MIT
/*
 * The agent protocol's side in the workspace (docs/protocol.md): /agent/enrol,
 * /agent/poll, /agent/progress, /agent/reply, /agent/symbols-wanted and /agent/batch,
 * each a POST of one protocol buffer message, answered with one. Every byte an agent
 * sends is hostile input (docs/security.md): its credential is checked before its body
 * is read (agent__gate, on a worker of the gate's), an enrolment's token before anything
 * of it is unpacked; messages are unpacked within a byte budget (util/pb_limits.h),
 * strings are cut and cleaned before they are kept, a batch's profile is read within
 * ingest's caps and believed within its rules (ingest.h), its tables with caps on counts
 * and name lengths, kept as its server's own; an agent's credential reaches only its own
 * server.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.pb-c.h"
#include "analysis/analysis.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "server/agent_hub.h"
#include "server/api_agent_internal.h"
#include "server/ingest.h"
#include "server/server_internal.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/pb_limits.h"
#include "util/server_name.h"

/* What an agent may say of itself, at most (bytes); FIELD_SHORT: api_agent_internal.h. */
#define FIELD_NAME 255           /* name, hostname, kernel */
/* Any other message: a command's reply document, a list of build ids. */
#define AGENT_MESSAGE_MAX (1u << 20)


size_t agent__body_max(const char *url)
{
	if (strcmp(url, "/agent/enrol") == 0)
		return ENROL_BODY_MAX;
	return strcmp(url, "/agent/batch") == 0 ? AGENT_BODY_MAX : AGENT_MESSAGE_MAX;
}

enum agent_request_kind agent__kind(const char *url)
{
	if (strcmp(url, "/agent/poll") == 0)
		return AGENT_REQUEST_POLL;
	if (strcmp(url, "/agent/batch") == 0)
		return AGENT_REQUEST_BATCH;
	return AGENT_REQUEST_OTHER;
}

/* A copy of what an agent sent, at most max bytes, control characters as '?'. */
static char *clean(const char *in, size_t max)
{
	size_t n = in ? strnlen(in, max) : 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)in[i] < 0x20 || in[i] == 0x7f ? '?' : in[i];
	out[n] = '\0';
	return out;
}

/* ---- before the body: the credential ---- */

void agent__gate(struct server *srv, struct MHD_Connection *conn, struct request *req)
{
	int64_t now = clock__monotonic_ns();
	struct server_entry *e = NULL;
	struct store *s;
	int err;

	req->gate = GATE_REFUSED;
	s = server__open_store(srv, &req->reply);
	if (!s)
		return;
	err = store__authenticate(s, agent_call__credential(conn), &e);
	store__close(s);
	if (err == 0) {
		snprintf(req->server_id, sizeof(req->server_id), "%s", e->id);
		agent_gate__learn(srv->gate, req->cred_hash, e->id, now);
		req->gate = GATE_PASSED;
	} else if (err == -EKEYREVOKED) {
		/* Its version says how it hears of it (410, or 401): its first bytes. */
		req->gate = GATE_REVOKED;
	} else if (err == -EACCES) {
		agent_gate__failed(srv->gate, &req->from, now);
		reply__msg(&req->reply, 401, MSG_AGENT_BAD_CREDENTIAL);
	} else {
		reply__msg(&req->reply, 500, MSG_AGENT_BATCH_FAILED, strerror(-err));
	}
	server_entries__free(e, e ? 1 : 0);
}

/*
 * A removed server's request, of which only the first bytes were kept: its protocol
 * version, read where it lies, says the answer (version 2: 410 everywhere; version 1:
 * REMOVED in its poll, 401 elsewhere). Nothing else of it is read.
 */
static void revoked(struct agent_call *a, const char *url)
{
	uint64_t version = 0;

	if (pb_peek_varint(a->req->body, a->req->body_len, 1, &version) || version > UINT32_MAX)
		version = 0;
	if (!agent_call__version_ok(a, (uint32_t)version))
		return;
	if (version >= AGENT_PROTOCOL_GONE || strcmp(url, "/agent/poll") == 0)
		agent_hub__removed_reply(a->r, (uint32_t)version);
	else
		reply__msg(a->r, 401, MSG_AGENT_BAD_CREDENTIAL);
}

/* ---- enrolment ---- */

/*
 * The enrolment token, read where it lies in the message and checked against the store
 * (read only) before anything else of the message is unpacked: 0, or -1 with the refusal
 * replied. A wrong token counts against its address (agent_gate.h).
 */
static int enrol_token_ok(struct agent_call *a)
{
	char token[STORE_SECRET_HEX + 1] = "";
	const uint8_t *p;
	struct store *s;
	size_t n;
	int ok = 0;

	if (!pb_peek_bytes(a->req->body, a->req->body_len, 2, &p, &n) && n == STORE_SECRET_HEX) {
		memcpy(token, p, n);
		token[n] = '\0';
		s = agent_call__open_store(a);
		if (!s)
			return -1;
		ok = store__enrolment_valid(s, token);
		store__close(s);
		explicit_bzero(token, sizeof(token));
	}
	if (ok == 1)
		return 0;
	if (ok < 0) {
		reply__msg(a->r, 500, MSG_AGENT_BATCH_FAILED, strerror(-ok));
		return -1;
	}
	agent_gate__failed(a->srv->gate, &a->req->from, clock__monotonic_ns());
	reply__msg(a->r, 401, MSG_AGENT_BAD_TOKEN);
	return -1;
}

static void enrol(struct agent_call *a)
{
	Slideops__Agent__EnrolRequest *m;
	Slideops__Agent__EnrolReply reply = SLIDEOPS__AGENT__ENROL_REPLY__INIT;
	char cred[STORE_SECRET_HEX + 1];
	struct server_entry srv = { 0 };
	char *given;
	struct store *s;
	int err;

	if (enrol_token_ok(a))
		return;
	m = (void *)agent_call__unpack(a, &slideops__agent__enrol_request__descriptor, "EnrolRequest");
	if (!m)
		return;
	if (!agent_call__version_ok(a, m->protocol_version))
		goto out;
	srv.hostname = clean(m->hostname, FIELD_NAME);
	/* The name it is listed by: normalized (NFC, nothing invisible), and unique by how
	 * it looks among every server, removed ones included (util/server_name.h). */
	errno = 0;
	given = server_name__normalize(*m->name ? m->name : m->hostname);
	if (!given && errno == EINVAL)
		given = strdup("");
	srv.name = given;
	srv.machine_id = clean(m->machine_id, FIELD_SHORT);
	srv.kernel = clean(m->kernel, FIELD_NAME);
	srv.agent_version = clean(m->agent_version, FIELD_SHORT);
	srv.boot_id = clean(m->boot_id, FIELD_SHORT);
	srv.cpus = m->cpus;
	if (!srv.hostname || !given || !srv.machine_id || !srv.kernel || !srv.agent_version ||
	    !srv.boot_id) {
		reply__msg(a->r, 500, MSG_OUT_OF_MEMORY);
		goto out_free;
	}
	if (!*given) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "EnrolRequest", "name",
			   "empty, or nothing but invisible characters");
		goto out_free;
	}
	s = agent_call__open_store(a);
	if (!s)
		goto out_free;
	err = store__enrol(s, m->enrolment_token, &srv, cred);
	store__close(s);
	if (err == -EACCES) {
		/* Used meanwhile by another request: not a guess. */
		reply__msg(a->r, 401, MSG_AGENT_BAD_TOKEN);
	} else if (err) {
		reply__msg(a->r, 500, MSG_AGENT_BATCH_FAILED, strerror(-err));
	} else {
		reply.protocol_version = AGENT_PROTOCOL_VERSION;
		reply.server_id = srv.id;
		reply.credential = cred;
		reply.name = srv.name;
		reply__message(a->r, 200, &reply.base);
		explicit_bzero(cred, sizeof(cred));
	}
out_free:
	if (srv.name != given)
		free(srv.name);
	free(given);
	free(srv.hostname);
	free(srv.machine_id);
	free(srv.kernel);
	free(srv.agent_version);
	free(srv.boot_id);
out:
	agent_call__release(a, &m->base);
}

/* ---- commands ---- */

/* True when parked. */
static bool agent_poll(struct agent_call *a)
{
	Slideops__Agent__PollRequest *m;
	struct server_entry *srv = NULL;
	char *kernel = NULL, *version = NULL, *boot = NULL;
	struct store *s;
	bool parked = false;
	int err;

	m = (void *)agent_call__unpack(a, &slideops__agent__poll_request__descriptor, "PollRequest");
	if (!m)
		return false;
	if (!agent_call__version_ok(a, m->protocol_version))
		goto out;
	s = agent_call__open_store(a);
	if (!s)
		goto out;
	err = agent_call__authenticate(a, s, m->protocol_version, &srv);
	if (err == -EKEYREVOKED) {
		/* The server was removed: its agent removes the profiler and exits. */
		agent_hub__removed_reply(a->r, m->protocol_version);
		store__close(s);
		goto out;
	}
	if (err) {
		store__close(s);
		goto out;
	}
	kernel = *m->kernel ? clean(m->kernel, FIELD_NAME) : NULL;
	version = *m->agent_version ? clean(m->agent_version, FIELD_SHORT) : NULL;
	boot = *m->boot_id ? clean(m->boot_id, FIELD_SHORT) : NULL;
	/* Heard from: best effort, a poll is answered even when this cannot be kept. */
	store__server_seen(s, srv->id, kernel, version, boot);
	store__close(s);
	parked = agent_hub__poll(a->srv->hub, srv, m->capture_id, m->wait_ms,
				 m->protocol_version, a->req);
out:
	free(kernel);
	free(version);
	free(boot);
	server_entries__free(srv, srv ? 1 : 0);
	agent_call__release(a, &m->base);
	return parked;
}

static void ack(struct agent_call *a)
{
	Slideops__Agent__Ack reply = SLIDEOPS__AGENT__ACK__INIT;

	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply__message(a->r, 200, &reply.base);
}

static void progress(struct agent_call *a)
{
	Slideops__Agent__Progress *m;
	struct server_entry *srv = NULL;

	m = (void *)agent_call__unpack(a, &slideops__agent__progress__descriptor, "Progress");
	if (!m)
		return;
	if (agent_call__version_ok(a, m->protocol_version) &&
	    agent_call__who(a, m->protocol_version, &srv) == 0) {
		agent_hub__progress(a->srv->hub, srv->id, m->capture_id, m->phase, m->done,
				    m->total, m->error, m->note);
		ack(a);
	}
	server_entries__free(srv, srv ? 1 : 0);
	agent_call__release(a, &m->base);
}

static void command_reply(struct agent_call *a)
{
	Slideops__Agent__CommandReply *m;
	struct server_entry *srv = NULL;

	m = (void *)agent_call__unpack(a, &slideops__agent__command_reply__descriptor, "CommandReply");
	if (!m)
		return;
	if (!agent_call__version_ok(a, m->protocol_version) ||
	    agent_call__who(a, m->protocol_version, &srv))
		goto out;
	if (m->http_status < 200 || m->http_status > 599) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "CommandReply", "http_status",
			   "not an HTTP status");
	} else if (ingest__reply_status(m->http_status) != (int)m->http_status) {
		/* Not a status the API gives for a command: its caller gets 502, and why. */
		struct view_error e;
		json_t *j;
		char *text;

		view_error__set(&e, 502, MSG_AGENT_BAD_STATUS, srv->name, m->http_status);
		j = view_error__json(&e);
		text = j ? json_dumps(j, JSON_COMPACT) : NULL;
		agent_hub__reply(a->srv->hub, srv->id, m->command_id, 502, text ? text : "{}",
				 text ? strlen(text) : 2);
		free(text);
		json_decref(j);
		ack(a);
	} else {
		agent_hub__reply(a->srv->hub, srv->id, m->command_id, (int)m->http_status,
				 m->document_json.data, m->document_json.len);
		ack(a);
	}
out:
	server_entries__free(srv, srv ? 1 : 0);
	agent_call__release(a, &m->base);
}

bool agent__handle(struct server *srv, struct MHD_Connection *conn, const char *url,
		   struct request *req)
{
	struct agent_call a = { .srv = srv, .conn = conn, .req = req, .r = &req->reply };

	req->reply.status = 500;
	if (req->gate == GATE_REVOKED) {
		revoked(&a, url);
		return false;
	}
	if (req->body_too_large && agent__body_max(url) < (1u << 20)) {
		reply__msg(a.r, 413, MSG_AGENT_BODY_TOO_LARGE_KB,
			   (unsigned long long)(agent__body_max(url) >> 10));
		return false;
	}
	if (req->body_too_large) {
		reply__msg(a.r, 413, MSG_AGENT_BODY_TOO_LARGE,
			   (unsigned long long)(agent__body_max(url) >> 20));
		return false;
	}
	if (strcmp(url, "/agent/enrol") == 0)
		enrol(&a);
	else if (strcmp(url, "/agent/poll") == 0)
		return agent_poll(&a);
	else if (strcmp(url, "/agent/progress") == 0)
		progress(&a);
	else if (strcmp(url, "/agent/reply") == 0)
		command_reply(&a);
	else if (strcmp(url, "/agent/symbols-wanted") == 0)
		agent__symbols_wanted(&a);
	else if (strcmp(url, "/agent/batch") == 0)
		agent__batch(&a);
	else
		reply__msg(a.r, 404, MSG_API_NOT_FOUND, url);
	return false;
}
