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
#include <strings.h>

#include "agent.pb-c.h"
#include "analysis/analysis.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "server/agent_hub.h"
#include "server/ingest.h"
#include "server/server_internal.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/pb_limits.h"
#include "util/server_name.h"

/* What an agent may say of itself, at most (bytes). */
#define FIELD_SHORT 64           /* machine id, boot id, capture id, version */
#define FIELD_NAME 255           /* name, hostname, kernel */
/* A batch's tables: how many, and how large each. */
#define BATCH_TABLES_MAX 4096
#define TABLE_SYMBOLS_MAX (8u << 20)
#define SYMBOL_NAME_MAX 4096
#define WANTED_MAX 4096
/* Any other message: a command's reply document, a list of build ids. */
#define AGENT_MESSAGE_MAX (1u << 20)

struct agent_call {
	struct server *srv;
	struct MHD_Connection *conn;
	struct request *req;
	struct reply *r;
	struct pb_budget budget;  /* what unpacking the message may take */
};

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

/* The protocol version a message carries: true when this workspace speaks it, else the
 * 426 is replied. */
static bool version_ok(struct agent_call *a, uint32_t version)
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
 * Freed with release().
 */
static ProtobufCMessage *unpack(struct agent_call *a, const ProtobufCMessageDescriptor *d,
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

static void release(struct agent_call *a, ProtobufCMessage *m)
{
	if (m)
		protobuf_c_message_free_unpacked(m, &a->budget.allocator);
}

static struct store *open_store(struct agent_call *a)
{
	return server__open_store(a->srv, a->r);
}

/* The credential of "Authorization: Bearer CREDENTIAL", or NULL. */
static const char *credential(struct MHD_Connection *conn)
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
static int authenticate(struct agent_call *a, struct store *s, uint32_t version,
			struct server_entry **out)
{
	int err = store__authenticate(s, credential(a->conn), out);

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
	err = store__authenticate(s, credential(conn), &e);
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
	if (!version_ok(a, (uint32_t)version))
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
		s = open_store(a);
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
	m = (void *)unpack(a, &slideops__agent__enrol_request__descriptor, "EnrolRequest");
	if (!m)
		return;
	if (!version_ok(a, m->protocol_version))
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
	s = open_store(a);
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
	release(a, &m->base);
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

	m = (void *)unpack(a, &slideops__agent__poll_request__descriptor, "PollRequest");
	if (!m)
		return false;
	if (!version_ok(a, m->protocol_version))
		goto out;
	s = open_store(a);
	if (!s)
		goto out;
	err = authenticate(a, s, m->protocol_version, &srv);
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
	release(a, &m->base);
	return parked;
}

static void ack(struct agent_call *a)
{
	Slideops__Agent__Ack reply = SLIDEOPS__AGENT__ACK__INIT;

	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply__message(a->r, 200, &reply.base);
}

/* The server of an authenticated request of protocol version, s closed after: 0, or -1
 * replied. */
static int who(struct agent_call *a, uint32_t version, struct server_entry **srv)
{
	struct store *s = open_store(a);
	int err;

	if (!s)
		return -1;
	err = authenticate(a, s, version, srv);
	store__close(s);
	return err ? -1 : 0;
}

static void progress(struct agent_call *a)
{
	Slideops__Agent__Progress *m;
	struct server_entry *srv = NULL;

	m = (void *)unpack(a, &slideops__agent__progress__descriptor, "Progress");
	if (!m)
		return;
	if (version_ok(a, m->protocol_version) && who(a, m->protocol_version, &srv) == 0) {
		agent_hub__progress(a->srv->hub, srv->id, m->capture_id, m->phase, m->done,
				    m->total, m->error, m->note);
		ack(a);
	}
	server_entries__free(srv, srv ? 1 : 0);
	release(a, &m->base);
}

static void command_reply(struct agent_call *a)
{
	Slideops__Agent__CommandReply *m;
	struct server_entry *srv = NULL;

	m = (void *)unpack(a, &slideops__agent__command_reply__descriptor, "CommandReply");
	if (!m)
		return;
	if (!version_ok(a, m->protocol_version) || who(a, m->protocol_version, &srv))
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
	release(a, &m->base);
}

/* ---- names ---- */

/* A build id as the store keys it: hex digits, at most BUILD_ID_HEX_MAX. */
static bool build_id_ok(const char *bid)
{
	size_t n = strlen(bid);

	return n >= 2 && n <= BUILD_ID_HEX_MAX && strspn(bid, "0123456789abcdefABCDEF") == n;
}

static void symbols_wanted(struct agent_call *a)
{
	Slideops__Agent__SymbolsWanted *m, reply = SLIDEOPS__AGENT__SYMBOLS_WANTED__INIT;
	struct server_entry *srv = NULL;
	struct store *s = NULL;
	char **wanted = NULL;
	size_t n = 0;

	m = (void *)unpack(a, &slideops__agent__symbols_wanted__descriptor, "SymbolsWanted");
	if (!m)
		return;
	if (!version_ok(a, m->protocol_version) || who(a, m->protocol_version, &srv))
		goto out;
	if (m->n_build_ids > WANTED_MAX) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "SymbolsWanted", "build_ids",
			   "more than 4096");
		goto out;
	}
	for (size_t i = 0; i < m->n_build_ids; i++)
		if (!build_id_ok(m->build_ids[i])) {
			reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "SymbolsWanted", "build_ids",
				   "not hex build ids");
			goto out;
		}
	s = open_store(a);
	wanted = calloc(m->n_build_ids + 1, sizeof(*wanted));
	if (!s || !wanted) {
		if (s)
			reply__msg(a->r, 500, MSG_OUT_OF_MEMORY);
		goto out;
	}
	/* Wanted: a build this server's profiles have no full names of (no upload, no .symtab
	 * its agent sent): another server's tables never name them. */
	for (size_t i = 0; i < m->n_build_ids; i++)
		if (store__server_keeps_full_names(s, srv->id, m->build_ids[i]) != 1)
			wanted[n++] = m->build_ids[i];
	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply.n_build_ids = n;
	reply.build_ids = wanted;
	reply__message(a->r, 200, &reply.base);
out:
	free(wanted);
	store__close(s);
	server_entries__free(srv, srv ? 1 : 0);
	release(a, &m->base);
}

/* A batch's symbol table as a symtab: NULL with why in *why. */
static struct symtab *table_of(const Slideops__Agent__SymbolTable *t, const char **why)
{
	struct symtab *tab;

	if (!build_id_ok(t->build_id)) {
		*why = "not a hex build id";
		return NULL;
	}
	if (t->n_symbols > TABLE_SYMBOLS_MAX) {
		*why = "more than 8M symbols";
		return NULL;
	}
	tab = symtab__new();
	if (!tab) {
		*why = "out of memory";
		return NULL;
	}
	for (size_t i = 0; i < t->n_symbols; i++) {
		const Slideops__Agent__Symbol *sym = t->symbols[i];
		size_t len = strnlen(sym->name, SYMBOL_NAME_MAX + 1);

		if (len > SYMBOL_NAME_MAX) {
			*why = "a name longer than 4096 bytes";
			goto fail;
		}
		if (symtab__add(tab, sym->address, sym->size, sym->name, len)) {
			*why = "out of memory";
			goto fail;
		}
	}
	if (symtab__finish(tab)) {
		*why = "out of memory";
		goto fail;
	}
	return tab;
fail:
	symtab__free(tab);
	return NULL;
}

/*
 * Keeps the batch's tables as its server's own (store.h: they name that server's profiles
 * alone), for builds no upload names and the server sent none of: checked whole first,
 * so a batch with one bad table keeps nothing. 0, or -1 with the refusal replied.
 */
static int keep_tables(struct agent_call *a, struct store *s, const char *server_id,
		       const Slideops__Agent__Batch *b)
{
	struct symtab **tabs = NULL;
	struct line_table **lines = NULL;
	const char *why = NULL;
	int ret = -1;

	if (b->n_symbols > BATCH_TABLES_MAX || b->n_lines > BATCH_TABLES_MAX) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "Batch", "symbols or lines",
			   "more than 4096 tables");
		return -1;
	}
	tabs = calloc(b->n_symbols + 1, sizeof(*tabs));
	lines = calloc(b->n_lines + 1, sizeof(*lines));
	if (!tabs || !lines) {
		reply__msg(a->r, 500, MSG_OUT_OF_MEMORY);
		goto out;
	}
	for (size_t i = 0; i < b->n_symbols; i++) {
		tabs[i] = table_of(b->symbols[i], &why);
		if (!tabs[i]) {
			reply__msg(a->r, 400, MSG_AGENT_BAD_TABLE, "symbol",
				   build_id_ok(b->symbols[i]->build_id) ? b->symbols[i]->build_id :
									  "?", why);
			goto out;
		}
	}
	for (size_t i = 0; i < b->n_lines; i++) {
		if (!build_id_ok(b->lines[i]->build_id))
			lines[i] = NULL;
		else
			lines[i] = line_table__deserialize(b->lines[i]->table.data,
							   b->lines[i]->table.len);
		if (!lines[i]) {
			reply__msg(a->r, 400, MSG_AGENT_BAD_TABLE, "line",
				   build_id_ok(b->lines[i]->build_id) ? b->lines[i]->build_id : "?",
				   "not a line table");
			goto out;
		}
	}
	for (size_t i = 0; i < b->n_symbols; i++) {
		const Slideops__Agent__SymbolTable *t = b->symbols[i];
		enum symbol_source src = t->from_symtab ? SYMBOLS_SYMTAB : SYMBOLS_DYNSYM;

		if (store__has_symbols(s, t->build_id, SYMBOLS_UPLOAD) == 1 ||
		    store__has_server_symbols(s, server_id, t->build_id, src) == 1)
			continue;
		store__put_server_symbols(s, server_id, t->build_id, src, tabs[i]);
	}
	for (size_t i = 0; i < b->n_lines; i++)
		store__put_server_lines(s, server_id, b->lines[i]->build_id, lines[i]);
	ret = 0;
out:
	for (size_t i = 0; tabs && i < b->n_symbols; i++)
		symtab__free(tabs[i]);
	for (size_t i = 0; lines && i < b->n_lines; i++)
		line_table__free(lines[i]);
	free(tabs);
	free(lines);
	return ret;
}

/* ---- captures ---- */

/* A batch refused for what its profile holds: counted with its server, the reason kept
 * for the server's page, and the capture it answered fails, saying why. */
static void batch_refused(struct agent_call *a, struct store *s,
			  const struct server_entry *srv, const char *capture_id, const char *why)
{
	char text[VIEW_ERROR_MAX];

	msg_format(text, sizeof(text), MSG_AGENT_PROFILE_REFUSED, why);
	store__server_refused(s, srv->id, text);
	agent_hub__refused(a->srv->hub, srv->id, capture_id, text);
}

static void batch(struct agent_call *a)
{
	Slideops__Agent__Batch *m;
	Slideops__Agent__BatchReply reply = SLIDEOPS__AGENT__BATCH_REPLY__INIT;
	struct server_entry *srv = NULL;
	struct symbol_lookup names;
	struct server_names by_server;
	struct analysis *an = NULL;
	struct profile *p = NULL;
	struct batch_key key;
	struct store *s = NULL;
	char id[STORE_ID_MAX], why[VIEW_ERROR_MAX];
	struct pprof_limits limits;
	const char *which;
	int err;

	m = (void *)unpack(a, &slideops__agent__batch__descriptor, "Batch");
	if (!m)
		return;
	if (!version_ok(a, m->protocol_version))
		goto out;
	if (!*m->boot_id || strlen(m->boot_id) > FIELD_SHORT ||
	    strlen(m->capture_id) > FIELD_SHORT) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "Batch", "boot_id or capture_id",
			   "empty, or longer than 64 bytes");
		goto out;
	}
	s = open_store(a);
	if (!s)
		goto out;
	if (authenticate(a, s, m->protocol_version, &srv))
		goto out;
	key = (struct batch_key){ .server_id = srv->id, .boot_id = m->boot_id,
				  .sequence = m->sequence, .spool_dropped = m->spool_dropped };
	/* Seen before: its profile, nothing stored and its spool drops not counted again
	 * (the reply to the first was lost). */
	if (store__find_batch(s, &key, id) == 0)
		goto reply;
	/* Read within what a capture holds; believed within what its length allows. */
	limits = ingest__pprof_limits(&a->srv->decode_pool);
	err = pprof__decode_within(m->profile.data, m->profile.len, &limits, &p, &which);
	if (err == -EBUSY) {
		reply__msg(a->r, 503, MSG_AGENT_DECODE_BUSY);
		a->r->retry_after = 5;
		goto out;
	}
	if (err == -E2BIG) {
		msg_format(why, sizeof(why), MSG_AGENT_PROFILE_TOO_LARGE, which);
		reply__msg(a->r, 413, MSG_AGENT_PROFILE_REFUSED, why);
		batch_refused(a, s, srv, m->capture_id, why);
		goto out;
	}
	if (err) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_PROFILE,
			   err == -EBADMSG ? "damaged or cut short" : strerror(-err));
		goto out;
	}
	if (ingest__check(p, clock__realtime_ns(),
			  agent_hub__asked_at(a->srv->hub, srv->id, m->capture_id), why,
			  sizeof(why))) {
		reply__msg(a->r, 422, MSG_AGENT_PROFILE_REFUSED, why);
		batch_refused(a, s, srv, m->capture_id, why);
		goto out;
	}
	if (keep_tables(a, s, srv->id, m))
		goto out;
	/* Every view names a profile's server by its name in the workspace (the agent's
	 * --name, else its hostname, made unique), as the list does. */
	p->header.hostname = profile__intern(p, srv->name);
	if (p->header.hostname == UINT32_MAX) {
		reply__msg(a->r, 500, MSG_OUT_OF_MEMORY);
		goto out;
	}
	/* Named and answered as a capture on this server is (pipeline_result__save). */
	names = store__server_symbol_lookup(&by_server, s, srv->id);
	err = profile__symbolize(p, &names);
	an = err ? NULL : analysis__new(p);
	if (!an) {
		reply__msg(a->r, 500, MSG_OUT_OF_MEMORY);
		goto out;
	}
	err = store__save_batch(s, p, an->answer, srv->name, &key, id);
	if (err < 0) {
		reply__msg(a->r, err == -ENOSPC ? 507 : 500, MSG_AGENT_BATCH_FAILED,
			   strerror(-err));
		goto out;
	}
	reply.duplicate = err == 1;
	if (err == 0)
		agent_hub__delivered(a->srv->hub, srv->id, m->capture_id, id);
	goto reply_now;
reply:
	reply.duplicate = true;
	agent_hub__delivered(a->srv->hub, srv->id, m->capture_id, id);
reply_now:
	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply.profile_id = id;
	reply__message(a->r, 200, &reply.base);
out:
	analysis__free(an);
	profile__free(p);
	store__close(s);
	server_entries__free(srv, srv ? 1 : 0);
	release(a, &m->base);
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
		symbols_wanted(&a);
	else if (strcmp(url, "/agent/batch") == 0)
		batch(&a);
	else
		reply__msg(a.r, 404, MSG_API_NOT_FOUND, url);
	return false;
}
