// SPDX-License-Identifier: MIT
/*
 * The agent protocol's side in the workspace (docs/protocol.md): /agent/enrol,
 * /agent/poll, /agent/progress, /agent/reply, /agent/symbols-wanted and /agent/batch,
 * each a POST of one protocol buffer message, answered with one. Every byte an agent
 * sends is hostile input: messages are unpacked within a size cap, strings are cut and
 * cleaned before they are kept, a batch's profile is read with the checks of a stored
 * profile, its tables with caps on counts and name lengths, and an agent's credential
 * reaches only its own server.
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
#include "server/server_internal.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"

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
};

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

size_t agent__body_max(const char *url)
{
	return strcmp(url, "/agent/batch") == 0 ? AGENT_BODY_MAX : AGENT_MESSAGE_MAX;
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

/* The request's message: NULL with the refusal replied. */
static ProtobufCMessage *unpack(struct agent_call *a, const ProtobufCMessageDescriptor *d,
				const char *what)
{
	const char *body = a->req->body ? a->req->body : "";
	ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, a->req->body_len,
							(const uint8_t *)body);

	if (!m)
		reply__msg(a->r, 400, MSG_AGENT_BAD_MESSAGE, what);
	return m;
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

/* ---- enrolment ---- */

static void enrol(struct agent_call *a)
{
	Slideops__Agent__EnrolRequest *m;
	Slideops__Agent__EnrolReply reply = SLIDEOPS__AGENT__ENROL_REPLY__INIT;
	char cred[STORE_SECRET_HEX + 1];
	struct server_entry srv = { 0 };
	char *given;
	struct store *s;
	int err;

	m = (void *)unpack(a, &slideops__agent__enrol_request__descriptor, "EnrolRequest");
	if (!m)
		return;
	if (!version_ok(a, m->protocol_version))
		goto out;
	srv.hostname = clean(m->hostname, FIELD_NAME);
	given = clean(*m->name ? m->name : m->hostname, FIELD_NAME);
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
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "EnrolRequest", "name", "empty");
		goto out_free;
	}
	s = open_store(a);
	if (!s)
		goto out_free;
	err = store__enrol(s, m->enrolment_token, &srv, cred);
	store__close(s);
	if (err == -EACCES) {
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
	protobuf_c_message_free_unpacked(&m->base, NULL);
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
	protobuf_c_message_free_unpacked(&m->base, NULL);
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
	protobuf_c_message_free_unpacked(&m->base, NULL);
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
	if (m->http_status < 200 || m->http_status > 599)
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "CommandReply", "http_status",
			   "not an HTTP status");
	else {
		agent_hub__reply(a->srv->hub, srv->id, m->command_id, (int)m->http_status,
				 m->document_json.data, m->document_json.len);
		ack(a);
	}
out:
	server_entries__free(srv, srv ? 1 : 0);
	protobuf_c_message_free_unpacked(&m->base, NULL);
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
	/* Wanted: a build the workspace knows no full names of (no upload, no .symtab). */
	for (size_t i = 0; i < m->n_build_ids; i++)
		if (store__keeps_full_names(s, m->build_ids[i]) != 1)
			wanted[n++] = m->build_ids[i];
	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply.n_build_ids = n;
	reply.build_ids = wanted;
	reply__message(a->r, 200, &reply.base);
out:
	free(wanted);
	store__close(s);
	server_entries__free(srv, srv ? 1 : 0);
	protobuf_c_message_free_unpacked(&m->base, NULL);
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
 * Keeps the batch's tables for builds the workspace has none of (an agent cannot
 * replace what an upload or another server gave): checked whole first, so a batch with
 * one bad table keeps nothing. 0, or -1 with the refusal replied.
 */
static int keep_tables(struct agent_call *a, struct store *s, const Slideops__Agent__Batch *b)
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

		if (store__keeps_full_names(s, t->build_id) == 1 ||
		    store__has_symbols(s, t->build_id, src) == 1)
			continue;
		store__put_symbols(s, t->build_id, src, NULL, tabs[i]);
	}
	for (size_t i = 0; i < b->n_lines; i++) {
		struct line_table *kept = NULL;

		if (store__get_lines(s, b->lines[i]->build_id, &kept) == -ENOENT)
			store__put_lines(s, b->lines[i]->build_id, lines[i]);
		line_table__free(kept);
	}
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

static void batch(struct agent_call *a)
{
	Slideops__Agent__Batch *m;
	Slideops__Agent__BatchReply reply = SLIDEOPS__AGENT__BATCH_REPLY__INIT;
	struct server_entry *srv = NULL;
	struct symbol_lookup names;
	struct analysis *an = NULL;
	struct profile *p = NULL;
	struct batch_key key;
	struct store *s = NULL;
	char id[STORE_ID_MAX];
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
	err = pprof__decode(m->profile.data, m->profile.len, &p);
	if (err) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_PROFILE,
			   err == -EBADMSG ? "damaged or cut short" : strerror(-err));
		goto out;
	}
	if (keep_tables(a, s, m))
		goto out;
	/* Every view names a profile's server by its name in the workspace (the agent's
	 * --name, else its hostname, made unique), as the list does. */
	p->header.hostname = profile__intern(p, srv->name);
	if (p->header.hostname == UINT32_MAX) {
		reply__msg(a->r, 500, MSG_OUT_OF_MEMORY);
		goto out;
	}
	/* Named and answered as a capture on this server is (pipeline_result__save). */
	names = store__symbol_lookup(s);
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
	protobuf_c_message_free_unpacked(&m->base, NULL);
}

bool agent__handle(struct server *srv, struct MHD_Connection *conn, const char *url,
		   struct request *req)
{
	struct agent_call a = { .srv = srv, .conn = conn, .req = req, .r = &req->reply };

	req->reply.status = 500;
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
