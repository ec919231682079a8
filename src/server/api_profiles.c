// SPDX-License-Identifier: MIT
/*
 * The API's profiles and debug symbols (docs/api.md): pages of the list, a profile as it
 * reads today, its flame graph and exports, comparisons, uploads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "views/analysis_view.h"
#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "server/api_call.h"
#include "server/api_profiles.h"
#include "store/store.h"
#include "symbols/symtab.h"
#include "util/json_text.h"

/* ---- profiles ---- */

/* A page of the profiles, from the index alone: ?question=Q&server=HOST&limit=N, then
 * &offset=K or &after=CURSOR (the document's next). */
void api__list_profiles(struct call *c, const char *server)
{
	struct profile_query q = { .question = -1,
				   .server = server ? server : api__arg(c, "server"),
				   .limit = PAGE_DEFAULT };
	struct profile_entry *e;
	struct views_page page;
	long limit = PAGE_DEFAULT, offset = 0;
	struct store *s;
	uint64_t total;
	size_t n;
	int err;

	if (api__arg(c, "question")) {
		q.question = question__parse(api__arg(c, "question"));
		if (q.question < 0) {
			api__unknown_question(c, api__arg(c, "question"));
			return;
		}
	}
	if ((api__arg(c, "limit") &&
	     api__number(c, "limit", api__arg(c, "limit"), 1, PAGE_MAX, &limit)) ||
	    (api__arg(c, "offset") &&
	     api__number(c, "offset", api__arg(c, "offset"), 0, LONG_MAX, &offset)))
		return;
	q.limit = (uint64_t)limit;
	q.offset = (uint64_t)offset;
	q.after = api__arg(c, "after");
	if (q.after && (q.offset || strlen(q.after) >= STORE_CURSOR_MAX)) {
		reply__msg(c->r, 400, MSG_API_BAD_CURSOR, q.offset ? "offset" : "its length");
		return;
	}
	s = api__open_store(c);
	if (!s)
		return;
	err = store__query_profiles(s, &q, &e, &n, &total);
	store__close(s);
	if (err == -EINVAL && q.after) {
		reply__msg(c->r, 400, MSG_API_BAD_CURSOR, "its form");
		return;
	}
	if (err) {
		reply__msg(c->r, 500, MSG_PROFILES_LIST_FAILED, c->srv->data_dir, strerror(-err));
		return;
	}
	page = (struct views_page){ .total = total, .offset = q.offset, .limit = q.limit,
				    .by_cursor = q.after != NULL };
	api__ok(c, views__profiles(e, n, &page));
	profile_entries__free(e, n);
}

/* The profile a request names (/profiles/ID/...), as it reads today. */
struct loaded {
	struct store *s;
	struct profile *p;
	struct analysis *a;
};

/* Opens the workspace and loads the profile: true, or false with the error replied. */
static bool load(struct call *c, struct loaded *l)
{
	struct view_error e;

	*l = (struct loaded){ .s = api__open_store(c) };
	if (!l->s)
		return false;
	if (views__load_profile(l->s, c->parts[1], &l->p, &l->a, &e)) {
		api__fail(c, &e);
		store__close(l->s);
		l->s = NULL;
		return false;
	}
	return true;
}

static void unload(struct loaded *l)
{
	analysis__free(l->a);
	profile__free(l->p);
	store__close(l->s);
}

void api__show(struct call *c)
{
	struct loaded l;
	long top = -1;

	if (api__arg(c, "top") && api__number(c, "top", api__arg(c, "top"), 0, TOP_MAX, &top))
		return;
	if (!load(c, &l))
		return;
	api__ok(c, top >= 0 ? analysis_view__to_json_top(l.a, c->parts[1], (size_t)top) :
			 analysis_view__to_json(l.a, c->parts[1]));
	unload(&l);
}

void api__delete_profile(struct call *c)
{
	struct store *s = api__open_store(c);
	int err;

	if (!s)
		return;
	err = store__delete_profile(s, c->parts[1]);
	store__close(s);
	if (err == -ENOENT)
		reply__msg(c->r, 404, MSG_SHOW_NO_SUCH_PROFILE, c->parts[1]);
	else if (err)
		reply__msg(c->r, 500, MSG_PROFILES_DELETE_FAILED, c->parts[1], strerror(-err));
	else
		api__ok(c, json_pack("{s:o}", "deleted", json_text(c->parts[1])));
}

/* A document too large for jansson's tree (the flame graph): written to memory. */
static void raw_json(struct call *c, char *text, size_t len)
{
	json_t *doc = json_loadb(text, len, 0, NULL);

	/* Parsed back: one reply path for every document. Flame graph trees are a few MB. */
	free(text);
	api__ok(c, doc);
}

void api__flamegraph(struct call *c)
{
	enum flamegraph_colour colour = FLAMEGRAPH_COLOUR_LANGUAGE;
	struct loaded l;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int err;

	if (api__arg(c, "colour")) {
		int parsed = flamegraph_colour__parse(api__arg(c, "colour"));

		if (parsed < 0) {
			reply__msg(c->r, 400, MSG_API_BAD_COLOUR, api__arg(c, "colour"));
			return;
		}
		colour = (enum flamegraph_colour)parsed;
	}
	if (!load(c, &l))
		return;
	out = open_memstream(&text, &len);
	if (!out) {
		reply__msg(c->r, 500, MSG_OUT_OF_MEMORY);
		goto out;
	}
	err = flamegraph__write_data(l.p, out, colour);
	if (fclose(out) || err) {
		free(text);
		reply__msg(c->r, 500, MSG_SHOW_WRITE_FAILED, "flamegraph",
			   strerror(err ? -err : EIO));
		goto out;
	}
	raw_json(c, text, len);
out:
	unload(&l);
}

/* The export, made in memory and sent from there: nothing is written to the workspace,
 * so a read-only or full one exports as the command line does. */
void api__export(struct call *c)
{
	const char *format = api__arg(c, "format") ? api__arg(c, "format") : "";
	struct loaded l;
	bool pprof = strcmp(format, "pprof") == 0;
	char *data = NULL;
	size_t len = 0;
	FILE *out;
	int err;

	if (!pprof && strcmp(format, "folded") != 0) {
		reply__msg(c->r, 400, MSG_API_BAD_EXPORT, format);
		return;
	}
	if (!load(c, &l))
		return;
	if (pprof) {
		/* Lines where the workspace keeps them (an agent's own server's, never another
		 * agent's); without, the export has names only. */
		struct server_names by_server;
		struct lines_lookup lines =
			store__profile_lines_lookup(&by_server, l.s, c->parts[1]);

		err = profile__add_lines(l.p, &lines);
		if (!err)
			err = pprof__encode(l.p, true, (void **)&data, &len);
	} else {
		out = open_memstream(&data, &len);
		err = out ? folded__write(l.p, out) : -errno;
		if (out && fclose(out) && !err)
			err = -ENOMEM;
	}
	if (err) {
		free(data);
		reply__msg(c->r, 500, MSG_SHOW_WRITE_FAILED, format, strerror(-err));
		goto out;
	}
	c->r->data = data;
	c->r->len = len;
	c->r->status = 200;
	c->r->content_type = pprof ? "application/octet-stream" : "text/plain; charset=utf-8";
	snprintf(c->r->file_name, sizeof(c->r->file_name), "%s.%s", c->parts[1],
		 pprof ? "pb.gz" : "folded.txt");
out:
	unload(&l);
}

void api__compare(struct call *c)
{
	const char *a = api__arg(c, "a"), *b = api__arg(c, "b");
	struct view_error e;
	struct store *s;
	long top = TOP_DEFAULT;
	json_t *doc;

	if (!a || !b) {
		reply__msg(c->r, 400, MSG_USAGE_MISSING_ARGUMENT, "compare",
			   msg_text(MSG_COMPARE_ARGUMENT_IDS), "compare");
		return;
	}
	if (api__arg(c, "top") && api__number(c, "top", api__arg(c, "top"), 0, TOP_MAX, &top))
		return;
	s = api__open_store(c);
	if (!s)
		return;
	doc = views__compare(s, a, b, (size_t)top, &e);
	store__close(s);
	api__answer(c, doc, &e);
}

/* ---- debug symbols ---- */

void api__list_uploads(struct call *c)
{
	struct upload_entry *e;
	struct store *s = api__open_store(c);
	size_t n;
	int err;

	if (!s)
		return;
	err = store__list_uploads(s, &e, &n);
	store__close(s);
	if (err) {
		reply__msg(c->r, 500, MSG_SYMBOLS_LIST_FAILED, strerror(-err));
		return;
	}
	api__ok(c, views__uploads(e, n));
	upload_entries__free(e, n);
}

/* The file name as shown: its last path component, at most 255 bytes, no controls. */
static void upload_name(const char *given, char out[256])
{
	const char *slash = strrchr(given, '/');
	size_t n = 0;

	given = slash ? slash + 1 : given;
	for (; *given && n < 255; given++)
		out[n++] = (unsigned char)*given < 0x20 ? '?' : *given;
	out[n] = '\0';
}

void api__upload(struct call *c)
{
	struct upload *u = c->req->upload;
	const char *given = api__arg(c, "name");
	struct elf_info info;
	struct view_error e;
	struct symtab *tab;
	struct store *s;
	char name[256];
	json_t *doc;

	if (!u) { /* server.c makes one for every POST here (api__is_upload) */
		reply__msg(c->r, 500, MSG_API_UPLOAD_WRITE, strerror(EINVAL));
		return;
	}

	if (u->too_large) {
		reply__msg(c->r, 413, MSG_UPLOAD_TOO_LARGE);
		return;
	}
	if (u->over_budget) {
		reply__msg(c->r, 503, MSG_API_UPLOADS_BUSY,
			   (unsigned long long)(SERVER_UPLOADS_HELD_MAX >> 20));
		return;
	}
	if (u->write_err) {
		reply__msg(c->r, 500, MSG_API_UPLOAD_WRITE, strerror(u->write_err));
		return;
	}
	if (!given || !*given) {
		reply__msg(c->r, 400, MSG_API_UPLOAD_NO_NAME);
		return;
	}
	upload_name(given, name);
	/* "/", "dir/", "." and ".." name no file: said, never kept as a name. */
	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		reply__msg(c->r, 400, MSG_API_UPLOAD_BAD_NAME, given);
		return;
	}
	if (lseek(u->fd, 0, SEEK_SET) < 0) {
		reply__msg(c->r, 500, MSG_API_UPLOAD_WRITE, strerror(errno));
		return;
	}
	if (views__read_upload(u->fd, name, &info, &tab, &e)) {
		api__fail(c, &e);
		return;
	}
	s = api__open_store(c);
	if (!s) {
		symtab__free(tab);
		return;
	}
	doc = views__keep_upload(s, &info, name, tab, u->fd, &e);
	store__close(s);
	/* The names and lines are read: the file goes now, not when the connection ends. */
	upload__free(u);
	c->req->upload = NULL;
	symtab__free(tab);
	api__answer(c, doc, &e);
}

void api__delete_upload(struct call *c)
{
	struct view_error e;
	struct store *s = api__open_store(c);
	json_t *doc;

	if (!s)
		return;
	doc = views__delete_upload(s, c->parts[1], &e);
	store__close(s);
	api__answer(c, doc, &e);
}
