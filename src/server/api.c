// SPDX-License-Identifier: MIT
/*
 * The JSON API (docs/api.md): the same documents the command line prints with --json,
 * built by the same functions (src/views), and its errors in the same words. Each
 * request opens the workspace for itself: SQLite in WAL mode lets readers go on while a
 * capture is being saved.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "util/json_text.h"
#include "capture/capture.h"
#include "capture/profiler.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "server/server_internal.h"
#include "store/store.h"
#include "symbols/symtab.h"

#define PATH_PARTS 6
#define TOP_DEFAULT 10
#define TOP_MAX 100000
#define SECONDS_MAX 3600
#define HZ_DEFAULT 99
#define HZ_MAX 1000
/* Profiles a page: the first page of a workspace of 10k costs what one of 100 does. */
#define PAGE_DEFAULT 100
#define PAGE_MAX 1000

struct call {
	struct server *srv;
	struct MHD_Connection *conn;
	const char *method;
	const char *url;
	struct request *req;
	struct reply *r;
	char *parts[PATH_PARTS]; /* the path after /api/ as sent, split at '/', then decoded */
	int nparts;
	char *buf;               /* what parts point into */
};

static const char *arg(const struct call *c, const char *name)
{
	return MHD_lookup_connection_value(c->conn, MHD_GET_ARGUMENT_KIND, name);
}

/* 400: not a question, and which are (the table's ids). */
static void reply__unknown_question(struct call *c, const char *id)
{
	char ids[QUESTION_LIST_MAX];

	question__list_ids(ids, sizeof(ids));
	reply__msg(c->r, 400, MSG_CAPTURE_UNKNOWN_QUESTION, id, ids);
}

static void ok(struct call *c, json_t *doc)
{
	c->r->status = doc ? 200 : 500;
	c->r->doc = doc;
}

static void fail(struct call *c, const struct view_error *e)
{
	reply__error(c->r, e);
}

/* What a view builder gave: its document, or (NULL) the error it set in e. */
static void answer(struct call *c, json_t *doc, const struct view_error *e)
{
	if (doc)
		ok(c, doc);
	else
		fail(c, e);
}

static int number(struct call *c, const char *name, const char *text, long min, long max,
		  long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text ? text : "", &end, 10);
	if (!text || !*text || *end || errno || v < min || v > max) {
		reply__msg(c->r, 400, MSG_API_BAD_NUMBER, text ? text : "", min, max, name);
		return -1;
	}
	*out = v;
	return 0;
}

/* The workspace, opened per request (SQLite connections are not shared between the
 * connections' threads); serve checked it whole at start. */
static struct store *open_store(struct call *c)
{
	struct store *s = store__open_again(c->srv->data_dir);

	/* A shared workspace's database: said as the database, not as the directory. */
	if (!s && store__url() && errno == EPROTO)
		reply__msg(c->r, 500, MSG_STORE_PG_NEWER, store__url());
	else if (!s && store__url())
		reply__msg(c->r, 503, MSG_STORE_PG_FAILED, store__url(),
			   *store__problem(NULL) ? store__problem(NULL) : strerror(errno));
	else if (!s && errno == EPROTO)
		reply__msg(c->r, 500, MSG_STORE_NEWER_WORKSPACE, c->srv->data_dir);
	else if (!s)
		reply__msg(c->r, 500, MSG_DATA_DIR_UNUSABLE, c->srv->data_dir, strerror(errno));
	return s;
}

/* ---- servers ---- */

static json_t *server_json(const struct server_entry *e)
{
	char when[32];

	views__format_time(e->added_at_ns, when);
	return json_pack("{s:s, s:s, s:s, s:b, s:s}", "id", e->id, "name",
			 e->this_server ? "this server" : e->hostname, "hostname", e->hostname,
			 "this_server", e->this_server, "added_at", when);
}

static void list_servers(struct call *c)
{
	struct server_entry *e;
	struct store *s = open_store(c);
	json_t *list;
	size_t n;
	int err;

	if (!s)
		return;
	err = store__list_servers(s, &e, &n);
	store__close(s);
	if (err) {
		reply__msg(c->r, 500, MSG_DATA_DIR_UNUSABLE, c->srv->data_dir, strerror(-err));
		return;
	}
	list = json_array();
	for (size_t i = 0; list && i < n; i++)
		if (json_array_append_new(list, server_json(&e[i]))) {
			json_decref(list);
			list = NULL;
		}
	server_entries__free(e, n);
	ok(c, list ? json_pack("{s:o}", "servers", list) : NULL);
}

/* The questions a profile answers, from their one table (src/questions/): the UI's words
 * for them and what their pages show come from here, not from a copy in the UI. */
static json_t *question_json(const struct question_plugin *q)
{
	json_t *views = json_array();

	for (const char *const *v = q->views; views && *v; v++)
		if (json_array_append_new(views, json_text(*v))) {
			json_decref(views);
			views = NULL;
		}
	if (!views)
		return NULL;
	return json_pack("{s:o, s:o, s:b, s:b, s:o}", "id", json_text(q->id), "title",
			 json_text(q->title), "has_duration", !q->snapshot, "share_of_server",
			 q->share_of_server, "views", views);
}

static void list_questions(struct call *c)
{
	json_t *list = json_array();

	for (int q = 0; list && q < QUESTION__COUNT; q++)
		if (json_array_append_new(list, question_json(question__get(q)))) {
			json_decref(list);
			list = NULL;
		}
	ok(c, list ? json_pack("{s:o}", "questions", list) : NULL);
}

/* Only this server answers today; agents bring the others. */
static bool known_server(struct call *c, const char *id)
{
	if (strcmp(id, THIS_SERVER_ID) == 0)
		return true;
	reply__msg(c->r, 404, MSG_API_NO_SUCH_SERVER, id);
	return false;
}

static void get_server(struct call *c)
{
	struct server_entry e = { .id = THIS_SERVER_ID, .hostname = c->srv->hostname,
				  .this_server = true };

	if (known_server(c, c->parts[1]))
		ok(c, server_json(&e));
}

static void check(struct call *c)
{
	struct check_result r;

	capture__check(&r);
	ok(c, views__check(&r));
}

static void top(struct call *c)
{
	struct service *svc = NULL;
	struct top_row *rows;
	size_t n, nsvc = 0;
	long limit = TOP_DEFAULT;
	struct store *s;
	int err;

	if (arg(c, "n") && number(c, "n", arg(c, "n"), 1, TOP_MAX, &limit))
		return;
	/* A workspace that cannot be read costs the Service groups, not the listing. */
	s = store__open_again(c->srv->data_dir);
	if (s && store__list_services(s, &svc, &nsvc)) {
		svc = NULL;
		nsvc = 0;
	}
	store__close(s);
	err = views__top_read(svc, nsvc, (size_t)limit, &rows, &n);
	services__free(svc, nsvc);
	if (err) {
		reply__msg(c->r, 500, MSG_PROC_UNREADABLE, "/proc", strerror(-err));
		return;
	}
	ok(c, views__top(rows, n));
	free(rows);
}

/* ---- profiles ---- */

/* A page of the profiles, from the index alone: ?question=Q&server=HOST&limit=N, then
 * &offset=K or &after=CURSOR (the document's next). */
static void list_profiles(struct call *c, const char *server)
{
	struct profile_query q = { .question = -1, .server = server ? server : arg(c, "server"),
				   .limit = PAGE_DEFAULT };
	struct profile_entry *e;
	struct views_page page;
	long limit = PAGE_DEFAULT, offset = 0;
	struct store *s;
	uint64_t total;
	size_t n;
	int err;

	if (arg(c, "question")) {
		q.question = question__parse(arg(c, "question"));
		if (q.question < 0) {
			reply__unknown_question(c, arg(c, "question"));
			return;
		}
	}
	if ((arg(c, "limit") && number(c, "limit", arg(c, "limit"), 1, PAGE_MAX, &limit)) ||
	    (arg(c, "offset") && number(c, "offset", arg(c, "offset"), 0, LONG_MAX, &offset)))
		return;
	q.limit = (uint64_t)limit;
	q.offset = (uint64_t)offset;
	q.after = arg(c, "after");
	if (q.after && (q.offset || strlen(q.after) >= STORE_CURSOR_MAX)) {
		reply__msg(c->r, 400, MSG_API_BAD_CURSOR, q.offset ? "offset" : "its length");
		return;
	}
	s = open_store(c);
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
	ok(c, views__profiles(e, n, &page));
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

	*l = (struct loaded){ .s = open_store(c) };
	if (!l->s)
		return false;
	if (views__load_profile(l->s, c->parts[1], &l->p, &l->a, &e)) {
		fail(c, &e);
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

static void show(struct call *c)
{
	struct loaded l;
	long top = -1;

	if (arg(c, "top") && number(c, "top", arg(c, "top"), 0, TOP_MAX, &top))
		return;
	if (!load(c, &l))
		return;
	ok(c, top >= 0 ? analysis__to_json_top(l.a, c->parts[1], (size_t)top) :
			 analysis__to_json(l.a, c->parts[1]));
	unload(&l);
}

static void delete_profile(struct call *c)
{
	struct store *s = open_store(c);
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
		ok(c, json_pack("{s:o}", "deleted", json_text(c->parts[1])));
}

/* A document too large for jansson's tree (the flame graph): written to memory. */
static void raw_json(struct call *c, char *text, size_t len)
{
	json_t *doc = json_loadb(text, len, 0, NULL);

	/* Parsed back: one reply path for every document. Flame graph trees are a few MB. */
	free(text);
	ok(c, doc);
}

static void flamegraph(struct call *c)
{
	enum flamegraph_colour colour = FLAMEGRAPH_COLOUR_LANGUAGE;
	struct loaded l;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int err;

	if (arg(c, "colour")) {
		int parsed = flamegraph_colour__parse(arg(c, "colour"));

		if (parsed < 0) {
			reply__msg(c->r, 400, MSG_API_BAD_COLOUR, arg(c, "colour"));
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
		reply__msg(c->r, 500, MSG_SHOW_WRITE_FAILED, "flamegraph", strerror(err ? -err : EIO));
		goto out;
	}
	raw_json(c, text, len);
out:
	unload(&l);
}

/* The export, made in memory and sent from there: nothing is written to the workspace,
 * so a read-only or full one exports as the command line does. */
static void export(struct call *c)
{
	const char *format = arg(c, "format") ? arg(c, "format") : "";
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
		/* Lines where the workspace keeps them; without, the export has names only. */
		err = store__add_lines(l.s, l.p);
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

static void compare(struct call *c)
{
	const char *a = arg(c, "a"), *b = arg(c, "b");
	struct view_error e;
	struct store *s;
	long top = TOP_DEFAULT;
	json_t *doc;

	if (!a || !b) {
		reply__msg(c->r, 400, MSG_USAGE_MISSING_ARGUMENT, "compare",
			   msg_text(MSG_COMPARE_ARGUMENT_IDS), "compare");
		return;
	}
	if (arg(c, "top") && number(c, "top", arg(c, "top"), 0, TOP_MAX, &top))
		return;
	s = open_store(c);
	if (!s)
		return;
	doc = views__compare(s, a, b, (size_t)top, &e);
	store__close(s);
	answer(c, doc, &e);
}

/* ---- captures ---- */

/* A whole number from 1 to max in a JSON body: 0, or -1 with the refusal naming the value
 * as it was sent. */
static int body_number(struct call *c, const char *name, json_t *v, long max)
{
	char *sent;

	if (json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= max)
		return 0;
	sent = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	reply__msg(c->r, 400, MSG_API_BAD_NUMBER, sent ? sent : "?", 1L, max, name);
	free(sent);
	return -1;
}

static void start_capture(struct call *c)
{
	json_t *body = c->req->body ? json_loads(c->req->body, 0, NULL) : NULL;
	const char *qid = json_string_value(json_object_get(body, "question"));
	json_t *secs = json_object_get(body, "seconds"), *hz = json_object_get(body, "hz");
	struct view_error e;
	long seconds = 30, rate = HZ_DEFAULT;
	int q;

	if (!json_is_object(body) || !qid) {
		reply__msg(c->r, 400, MSG_API_BAD_BODY, "a capture",
			   "{\"question\": \"cpu\", \"seconds\": 30}");
		goto out;
	}
	q = question__parse(qid);
	if (q < 0) {
		reply__unknown_question(c, qid);
		goto out;
	}
	if (secs && body_number(c, "seconds", secs, SECONDS_MAX))
		goto out;
	if (hz && body_number(c, "hz", hz, HZ_MAX))
		goto out;
	if (secs)
		seconds = (long)json_integer_value(secs);
	if (hz)
		rate = (long)json_integer_value(hz);
	if (capture_job__start(&c->srv->job, (enum question)q, (unsigned)seconds, (unsigned)rate,
			       &e)) {
		fail(c, &e);
		goto out;
	}
	ok(c, capture_job__status(&c->srv->job));
	c->r->status = 202;
out:
	json_decref(body);
}

static void stop_capture(struct call *c)
{
	struct view_error e;

	if (capture_job__stop(&c->srv->job, &e))
		fail(c, &e);
	else
		ok(c, capture_job__status(&c->srv->job));
}

static void remove_profiler(struct call *c)
{
	struct remove_report rep = { 0 };
	struct view_error e;
	struct store *s;
	char when[32];
	int err;

	/* A running capture is using the profiler it would remove. */
	if (capture_job__running(&c->srv->job)) {
		views__format_time(c->srv->job.started_at_ns, when);
		view_error__set(&e, 409, MSG_API_CAPTURE_BUSY, c->srv->hostname,
				question__title(c->srv->job.question), when);
		fail(c, &e);
		return;
	}
	s = open_store(c);
	if (!s)
		return;
	/* Unloaded first: nothing of it stays in the kernel, then its files go. A capture
	 * that started since holds it (-EBUSY): refused as above. */
	if (profiler__unload(c->srv->profiler) == -EBUSY) {
		store__close(s);
		views__format_time(c->srv->job.started_at_ns, when);
		view_error__set(&e, 409, MSG_API_CAPTURE_BUSY, c->srv->hostname,
				question__title(c->srv->job.question), when);
		fail(c, &e);
		return;
	}
	err = views__remove_profiler(s, &rep);
	store__close(s);
	if (err && json_array_size(rep.failed)) {
		json_t *first = json_array_get(rep.failed, 0);

		reply__msg(c->r, 500, MSG_REMOVE_FAILED,
			   json_string_value(json_object_get(first, "path")),
			   json_string_value(json_object_get(first, "error")));
	} else if (err) {
		reply__msg(c->r, 500, MSG_OUT_OF_MEMORY);
	} else {
		ok(c, views__remove_document(c->srv->data_dir, &rep));
	}
	json_decref(rep.removed);
	json_decref(rep.failed);
}

/* ---- debug symbols ---- */

static void list_uploads(struct call *c)
{
	struct upload_entry *e;
	struct store *s = open_store(c);
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
	ok(c, views__uploads(e, n));
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

static void upload(struct call *c)
{
	struct upload *u = c->req->upload;
	const char *given = arg(c, "name");
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
		fail(c, &e);
		return;
	}
	s = open_store(c);
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
	answer(c, doc, &e);
}

static void delete_upload(struct call *c)
{
	struct view_error e;
	struct store *s = open_store(c);
	json_t *doc;

	if (!s)
		return;
	doc = views__delete_upload(s, c->parts[1], &e);
	store__close(s);
	answer(c, doc, &e);
}

/* ---- dispatch ---- */

bool api__is_upload(const char *method, const char *url)
{
	return strcmp(method, "POST") == 0 && strcmp(url, "/api/symbols") == 0;
}

static void capture_status(struct call *c)
{
	ok(c, capture_job__status(&c->srv->job));
}

static void this_servers_profiles(struct call *c)
{
	list_profiles(c, c->srv->hostname);
}

static void every_profile(struct call *c)
{
	list_profiles(c, NULL);
}

/* One row an endpoint: the path after /api/ in nparts parts, where NULL matches any one
 * part (an id). HEAD is answered wherever GET is, with the same headers and no body. */
struct route {
	const char *method;
	int nparts;
	const char *parts[PATH_PARTS];
	void (*handle)(struct call *c);
};

#define ID NULL

static const struct route routes[] = {
	{ "GET", 1, { "questions" }, list_questions },
	{ "GET", 1, { "servers" }, list_servers },
	{ "GET", 2, { "servers", ID }, get_server },
	{ "GET", 3, { "servers", ID, "check" }, check },
	{ "GET", 3, { "servers", ID, "top" }, top },
	{ "GET", 3, { "servers", ID, "profiles" }, this_servers_profiles },
	{ "GET", 3, { "servers", ID, "capture" }, capture_status },
	{ "POST", 3, { "servers", ID, "capture" }, start_capture },
	{ "POST", 4, { "servers", ID, "capture", "stop" }, stop_capture },
	{ "POST", 3, { "servers", ID, "remove" }, remove_profiler },
	{ "GET", 1, { "profiles" }, every_profile },
	{ "GET", 2, { "profiles", ID }, show },
	{ "DELETE", 2, { "profiles", ID }, delete_profile },
	{ "GET", 3, { "profiles", ID, "flamegraph" }, flamegraph },
	{ "GET", 3, { "profiles", ID, "export" }, export },
	{ "GET", 1, { "compare" }, compare },
	{ "GET", 1, { "symbols" }, list_uploads },
	{ "POST", 1, { "symbols" }, upload },
	{ "DELETE", 2, { "symbols", ID }, delete_upload },
};

#undef ID

static bool route__path_matches(const struct route *rt, const struct call *c)
{
	if (rt->nparts != c->nparts)
		return false;
	for (int i = 0; i < rt->nparts; i++)
		if (rt->parts[i] && strcmp(rt->parts[i], c->parts[i]) != 0)
			return false;
	return true;
}

static bool route__method_matches(const struct route *rt, const char *method)
{
	return strcmp(rt->method, method) == 0 ||
	       (strcmp(method, "HEAD") == 0 && strcmp(rt->method, "GET") == 0);
}

static void dispatch(struct call *c)
{
	size_t len = 0;

	/* Only this server answers today; any other id is no server, whatever the method. */
	if (c->nparts >= 2 && strcmp(c->parts[0], "servers") == 0 && !known_server(c, c->parts[1]))
		return;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (route__path_matches(&routes[i], c) &&
		    route__method_matches(&routes[i], c->method))
			return routes[i].handle(c);
	/* The path is there but not for this method: 405, with what it allows. */
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const char *m = routes[i].method;

		if (!route__path_matches(&routes[i], c))
			continue;
		len += (size_t)snprintf(c->r->allow + len, sizeof(c->r->allow) - len, "%s%s",
					len ? ", " : "", m);
		if (strcmp(m, "GET") == 0)
			len += (size_t)snprintf(c->r->allow + len, sizeof(c->r->allow) - len,
						", HEAD");
	}
	if (len)
		reply__msg(c->r, 405, MSG_API_METHOD, c->method, c->url);
	else
		reply__msg(c->r, 404, MSG_API_NOT_FOUND, c->url);
}

void api__handle(struct server *srv, struct MHD_Connection *conn, const char *method,
		 const char *url, struct request *req, struct reply *r)
{
	struct call c = { .srv = srv, .conn = conn, .method = method, .url = url, .req = req,
			  .r = r };
	char *rest, *part, *query;

	r->status = 500;
	if (req->body_too_large) {
		reply__msg(r, 413, MSG_API_BAD_BODY, url, "too large");
		return;
	}
	/* The path as it was sent, split first and each part decoded after: an id holding
	 * "%2F" is that id, never two parts. */
	c.buf = req->raw_path ? strdup(req->raw_path) : NULL;
	if (!c.buf) {
		reply__msg(r, 500, MSG_OUT_OF_MEMORY);
		return;
	}
	query = strchr(c.buf, '?');
	if (query)
		*query = '\0';
	if (strncmp(c.buf, "/api/", 5) != 0) {
		reply__msg(r, 404, MSG_API_NOT_FOUND, url);
		goto out;
	}
	/* Every part there as sent: "a//b" or "a/" is no path here, not "a/b" or "a". */
	for (rest = c.buf + 5; (part = strsep(&rest, "/"));) {
		if (c.nparts == PATH_PARTS || !*part) {
			reply__msg(r, 404, MSG_API_NOT_FOUND, url);
			goto out;
		}
		MHD_http_unescape(part);
		c.parts[c.nparts++] = part;
	}
	dispatch(&c);
out:
	free(c.buf);
}
