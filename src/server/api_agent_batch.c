// SPDX-License-Identifier: MIT
/*
 * The agent protocol's /agent/symbols-wanted and /agent/batch in the workspace: which
 * symbol tables the workspace lacks, and a batch (a capture's profile with its tables)
 * read within ingest's caps, its tables checked and kept as its server's own
 * (docs/protocol.md; what is believed of it: docs/security.md, ingest.h).
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

/* A batch's tables: how many, and how large each. */
#define BATCH_TABLES_MAX 4096
#define TABLE_SYMBOLS_MAX (8u << 20)
#define SYMBOL_NAME_MAX 4096
#define WANTED_MAX 4096

/* ---- names ---- */

/* A build id as the store keys it: hex digits, at most BUILD_ID_HEX_MAX. */
static bool build_id_ok(const char *bid)
{
	size_t n = strlen(bid);

	return n >= 2 && n <= BUILD_ID_HEX_MAX && strspn(bid, "0123456789abcdefABCDEF") == n;
}

void agent__symbols_wanted(struct agent_call *a)
{
	Slideops__Agent__SymbolsWanted *m, reply = SLIDEOPS__AGENT__SYMBOLS_WANTED__INIT;
	struct server_entry *srv = NULL;
	struct store *s = NULL;
	char **wanted = NULL;
	size_t n = 0;

	m = (void *)agent_call__unpack(a, &slideops__agent__symbols_wanted__descriptor,
				       "SymbolsWanted");
	if (!m)
		return;
	if (!agent_call__version_ok(a, m->protocol_version) ||
	    agent_call__who(a, m->protocol_version, &srv))
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
	s = agent_call__open_store(a);
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
	agent_call__release(a, &m->base);
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

void agent__batch(struct agent_call *a)
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

	m = (void *)agent_call__unpack(a, &slideops__agent__batch__descriptor, "Batch");
	if (!m)
		return;
	if (!agent_call__version_ok(a, m->protocol_version))
		goto out;
	if (!*m->boot_id || strlen(m->boot_id) > FIELD_SHORT ||
	    strlen(m->capture_id) > FIELD_SHORT) {
		reply__msg(a->r, 400, MSG_AGENT_BAD_FIELD, "Batch", "boot_id or capture_id",
			   "empty, or longer than 64 bytes");
		goto out;
	}
	s = agent_call__open_store(a);
	if (!s)
		goto out;
	if (agent_call__authenticate(a, s, m->protocol_version, &srv))
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
	agent_call__release(a, &m->base);
}
