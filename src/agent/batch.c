// SPDX-License-Identifier: MIT
/*
 * A finished capture as one Batch (batch.h). Symbol tables go only for the builds the
 * workspace lacks, and the builds it has or is sent are remembered
 * (agent__workspace_has), so the next capture does not read their symbols again. Line tables always go: each holds
 * only this capture's sampled addresses, which the workspace merges into what it keeps.
 */
#include "agent/batch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_state.h"
#include "agent/transport.h"
#include "pipeline/pipeline.h"
#include "profile/pprof.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"

#define SYMBOLS_WANTED_TIMEOUT_MS 10000

struct wanted {
	char **ids;       /* the build ids the workspace lacks; NULL: all (not asked) */
	size_t n;
};

static bool is_wanted(const struct wanted *w, const char *build_id)
{
	if (!w->ids)
		return true;
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->ids[i], build_id) == 0)
			return true;
	return false;
}

static void wanted__release(struct wanted *w)
{
	for (size_t i = 0; w->ids && i < w->n; i++)
		free(w->ids[i]);
	free(w->ids);
	memset(w, 0, sizeof(*w));
}

/* Asks the workspace which of the builds r read it lacks. Whatever goes wrong, w says
 * "all": the batch then carries every table. */
static void ask_wanted(struct transport *t, struct agent *a, const struct pipeline_result *r,
		       struct wanted *w)
{
	Slideops__Agent__SymbolsWanted ask = SLIDEOPS__AGENT__SYMBOLS_WANTED__INIT, *reply;
	size_t n = r->nsymbols, len;
	struct http_reply hr;
	uint8_t *body;
	char **ids;
	int err;

	memset(w, 0, sizeof(*w));
	if (!n)
		return;
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return;
	for (size_t i = 0; i < r->nsymbols; i++)
		ids[ask.n_build_ids++] = (char *)r->symbols[i].build_id;
	ask.protocol_version = AGENT_PROTOCOL_VERSION;
	ask.build_ids = ids;
	len = slideops__agent__symbols_wanted__get_packed_size(&ask);
	body = malloc(len ? len : 1);
	if (!body) {
		free(ids);
		return;
	}
	slideops__agent__symbols_wanted__pack(&ask, body);
	free(ids);
	err = transport__post(t, "/agent/symbols-wanted", body, len, SYMBOLS_WANTED_TIMEOUT_MS,
			      &a->fatal, &hr);
	free(body);
	if (err)
		return;
	/* 401, 410, 426 end the agent whichever request meets them first. */
	if (!agent__reply_allows(a, &hr) || hr.status != 200) {
		http_reply__release(&hr);
		return;
	}
	reply = slideops__agent__symbols_wanted__unpack(NULL, hr.len, (uint8_t *)hr.body);
	http_reply__release(&hr);
	if (!reply)
		return;
	w->ids = calloc(reply->n_build_ids ? reply->n_build_ids : 1, sizeof(*w->ids));
	for (size_t i = 0; w->ids && i < reply->n_build_ids; i++) {
		w->ids[i] = strdup(reply->build_ids[i]);
		if (!w->ids[i]) {
			wanted__release(w);
			break;
		}
		w->n++;
	}
	slideops__agent__symbols_wanted__free_unpacked(reply, NULL);
	if (!w->ids)
		return;
	/* What it did not ask for, it has: the next capture need not read those. */
	for (size_t i = 0; i < r->nsymbols; i++)
		if (!is_wanted(w, r->symbols[i].build_id))
			agent__workspace_has(a, r->symbols[i].build_id);
}

/* The messages one symbol table becomes; freed by free_tables. */
static int symbol_table(const struct pipeline_symbols *ps, Slideops__Agent__SymbolTable *out)
{
	const struct symtab *tab = ps->tab;
	Slideops__Agent__Symbol *syms;

	slideops__agent__symbol_table__init(out);
	out->build_id = (char *)ps->build_id;
	out->from_symtab = ps->from_symtab;
	out->file_name = (char *)"";
	syms = calloc(tab->nsyms ? tab->nsyms : 1, sizeof(*syms));
	out->symbols = calloc(tab->nsyms ? tab->nsyms : 1, sizeof(*out->symbols));
	if (!syms || !out->symbols) {
		free(syms);
		free(out->symbols);
		out->symbols = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < tab->nsyms; i++) {
		slideops__agent__symbol__init(&syms[i]);
		syms[i].address = tab->syms[i].addr;
		syms[i].size = tab->syms[i].size;
		syms[i].name = tab->names + tab->syms[i].name;
		out->symbols[i] = &syms[i];
	}
	out->n_symbols = tab->nsyms;
	return 0;
}

int batch__build(struct transport *t, struct agent *a, const struct pipeline_result *r,
		 const char *capture_id, uint64_t sequence, uint64_t dropped, void **out,
		 size_t *len, struct batch_counts *counts)
{
	Slideops__Agent__Batch b = SLIDEOPS__AGENT__BATCH__INIT;
	Slideops__Agent__SymbolTable *tables = NULL, **table_ptrs = NULL;
	Slideops__Agent__LineTable *lines = NULL, **line_ptrs = NULL;
	struct wanted w;
	void *profile = NULL;
	size_t profile_len = 0;
	int err;

	*out = NULL;
	*len = 0;
	memset(counts, 0, sizeof(*counts));
	err = pprof__encode(r->profile, false, &profile, &profile_len);
	if (err)
		return err;
	ask_wanted(t, a, r, &w);

	tables = calloc(r->nsymbols + 1, sizeof(*tables));
	table_ptrs = calloc(r->nsymbols + 1, sizeof(*table_ptrs));
	lines = calloc(r->nlines + 1, sizeof(*lines));
	line_ptrs = calloc(r->nlines + 1, sizeof(*line_ptrs));
	if (!tables || !table_ptrs || !lines || !line_ptrs) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->nsymbols && !err; i++) {
		if (!r->symbols[i].tab || !r->symbols[i].tab->nsyms ||
		    !is_wanted(&w, r->symbols[i].build_id))
			continue;
		err = symbol_table(&r->symbols[i], &tables[b.n_symbols]);
		/* Read again, a build's table would be the same (.symtab or .dynsym; a debug
		 * file installed later is read at the next start), and the workspace keeps
		 * what a batch brings it lacks: once sent, it is not read again while the
		 * agent runs, as `serve` does not read again what its store keeps. (Asking
		 * the workspace instead left every .symtab read twice: the capture after the
		 * one that sent it read it again before asking.) */
		if (!err)
			agent__workspace_has(a, r->symbols[i].build_id);
		if (!err) {
			table_ptrs[b.n_symbols] = &tables[b.n_symbols];
			b.n_symbols++;
		}
	}
	for (size_t i = 0; i < r->nlines && !err; i++) {
		void *blob;
		size_t blob_len;

		if (!r->lines[i].table)
			continue;
		/* A table that cannot be serialized costs the export its lines only. */
		if (line_table__serialize(r->lines[i].table, &blob, &blob_len))
			continue;
		slideops__agent__line_table__init(&lines[b.n_lines]);
		lines[b.n_lines].build_id = (char *)r->lines[i].build_id;
		lines[b.n_lines].table.data = blob;
		lines[b.n_lines].table.len = blob_len;
		line_ptrs[b.n_lines] = &lines[b.n_lines];
		b.n_lines++;
	}
	if (err)
		goto out;
	b.protocol_version = AGENT_PROTOCOL_VERSION;
	b.boot_id = a->identity.boot_id;
	b.sequence = sequence;
	b.capture_id = (char *)(capture_id ? capture_id : "");
	b.profile.data = profile;
	b.profile.len = profile_len;
	b.symbols = table_ptrs;
	b.lines = line_ptrs;
	b.spool_dropped = dropped;
	*len = slideops__agent__batch__get_packed_size(&b);
	*out = malloc(*len ? *len : 1);
	if (!*out) {
		*len = 0;
		err = -ENOMEM;
		goto out;
	}
	slideops__agent__batch__pack(&b, *out);
	counts->symbol_tables = b.n_symbols;
	counts->line_tables = b.n_lines;
	for (size_t i = 0; i < b.n_symbols; i++)
		counts->symbols += tables[i].n_symbols;
out:
	for (size_t i = 0; tables && i < b.n_symbols; i++) {
		if (tables[i].n_symbols)
			free(tables[i].symbols[0]);
		free(tables[i].symbols);
	}
	for (size_t i = 0; lines && i < b.n_lines; i++)
		free(lines[i].table.data);
	free(tables);
	free(table_ptrs);
	free(lines);
	free(line_ptrs);
	wanted__release(&w);
	free(profile);
	return err;
}

uint64_t batch__spool_dropped(void *ctx, const void *data, size_t len)
{
	Slideops__Agent__Batch *b = slideops__agent__batch__unpack(NULL, len, data);
	uint64_t n = b ? b->spool_dropped : 0;

	(void)ctx;
	slideops__agent__batch__free_unpacked(b, NULL);
	return n;
}
