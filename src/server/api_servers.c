// SPDX-License-Identifier: MIT
/*
 * The API's servers (docs/api.md): the list with each server's status, adding one (an
 * enrolment token and the agent command to run), removing one, and on any of them
 * check, top, capture, Stop and Remove the profiler. This server answers in-process; an
 * agent's server answers through its agent (agent_hub.h), with the same documents and
 * the same refusals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/profiler.h"
#include "profile/profile.h"
#include "server/agent_hub.h"
#include "server/api_call.h"
#include "server/api_profiles.h"
#include "server/api_servers.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/json_text.h"

/* A time of the documents, or null for 0 (never). */
static json_t *time_json(int64_t ns)
{
	char when[32];

	if (!ns)
		return json_null();
	views__format_time(ns, when);
	return json_text(when);
}

/* connected, unreachable or removed. */
static const char *status_of(const struct server_entry *e, bool polling)
{
	if (e->removed_at_ns)
		return "removed";
	if (e->this_server || polling ||
	    (e->last_seen_ns && clock__realtime_ns() - e->last_seen_ns < AGENT_UNREACHABLE_NS))
		return "connected";
	return "unreachable";
}

/* A server as the list shows it. Everything an agent said of itself is hostile: kept as
 * written, made valid UTF-8 here, escaped where shown. */
static json_t *server_json(struct call *c, const struct server_entry *e)
{
	bool polling = false, capturing = false;
	struct utsname u;
	const char *kernel = e->kernel ? e->kernel : "";
	const char *version = e->agent_version ? e->agent_version : "";
	int64_t seen = e->last_seen_ns;
	uint32_t cpus = e->cpus;

	if (e->this_server) {
		kernel = uname(&u) == 0 ? u.release : "";
		version = SLIDEOPS_VERSION;
		seen = clock__realtime_ns();
		capturing = capture_job__running(&c->srv->job);
		cpus = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) : 0;
	} else {
		agent_hub__state(c->srv->hub, e->id, &polling, &capturing);
	}
	/* The name its profiles carry: this server's are by its hostname, as ever. Batches of
	 * its agent refused for what they held: how many, and the last one's reason. */
	return json_pack("{s:o, s:o, s:o, s:b, s:o, s:s, s:o, s:o, s:o, s:I, s:o, s:b, s:I, s:o,"
			 " s:I, s:o}",
			 "id", json_text(e->id), "name",
			 json_text(e->this_server ? "this server" : e->name), "hostname",
			 json_text(e->hostname ? e->hostname : ""), "this_server", e->this_server,
			 "added_at", time_json(e->added_at_ns), "status", status_of(e, polling),
			 "last_seen", time_json(seen), "kernel", json_text(kernel),
			 "agent_version", json_text(version), "cpus", (json_int_t)cpus,
			 "profiles_server",
			 json_text(e->this_server ? (e->hostname ? e->hostname : "") : e->name),
			 "capturing", capturing, "spool_dropped", (json_int_t)e->spool_dropped,
			 "removed_at", time_json(e->removed_at_ns), "batches_refused",
			 (json_int_t)e->batches_refused, "last_refusal",
			 e->batches_refused ?
				 json_pack("{s:o, s:o}", "error",
					   json_text(e->last_refusal ? e->last_refusal : ""), "at",
					   time_json(e->last_refusal_ns)) :
				 json_null());
}

void api__list_servers(struct call *c)
{
	struct server_entry *e;
	struct store *s = api__open_store(c);
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
		if (json_array_append_new(list, server_json(c, &e[i]))) {
			json_decref(list);
			list = NULL;
		}
	server_entries__free(e, n);
	api__ok(c, list ? json_pack("{s:o}", "servers", list) : NULL);
}

void api__get_server(struct call *c)
{
	api__ok(c, server_json(c, c->target));
}

/* An agent's server, for what acts on it: false with the refusal replied when it was
 * removed. */
static bool can_act(struct call *c)
{
	if (!c->target->removed_at_ns)
		return true;
	reply__msg(c->r, 410, MSG_API_SERVER_REMOVED, c->target->name);
	return false;
}

void api__delete_server(struct call *c)
{
	struct store *s;
	int err;

	if (c->target->this_server) {
		reply__msg(c->r, 409, MSG_API_THIS_SERVER_STAYS);
		return;
	}
	s = api__open_store(c);
	if (!s)
		return;
	err = store__remove_server(s, c->target->id);
	store__close(s);
	if (err == -ENOENT) {
		reply__msg(c->r, 410, MSG_API_SERVER_REMOVED, c->target->name);
		return;
	}
	if (err) {
		reply__msg(c->r, 500, MSG_API_SERVER_REMOVE_FAILED, c->target->name,
			   strerror(-err));
		return;
	}
	/* Its poll, if it holds one, gets REMOVED now; its credential is refused from now. */
	agent_gate__forget_server(c->srv->gate, c->target->id);
	agent_hub__remove(c->srv->hub, c->target->id);
	api__ok(c, json_pack("{s:o}", "removed", json_text(c->target->id)));
}

/* POST /api/enrolments: a one-use token for a new server, and the command to run there
 * with this workspace's address as the browser reached it. */
void api__new_enrolment(struct call *c)
{
	const char *host = MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, "Host");
	bool tls = MHD_get_connection_info(c->conn, MHD_CONNECTION_INFO_PROTOCOL) != NULL;
	char token[STORE_SECRET_HEX + 1], command[512];
	int64_t expires;
	struct store *s;
	int err;

	s = api__open_store(c);
	if (!s)
		return;
	err = store__new_enrolment(s, token, &expires);
	store__close(s);
	if (err) {
		reply__msg(c->r, 500, MSG_API_ENROL_FAILED, strerror(-err));
		return;
	}
	/* Host passed host_ok: an address, localhost, this machine's or an allowed name. */
	snprintf(command, sizeof(command), "slideops agent --workspace %s://%s --enrol-token %s",
		 tls ? "https" : "http", host ? host : "127.0.0.1:7070", token);
	api__ok(c, json_pack("{s:s, s:o, s:o}", "token", token, "expires_at", time_json(expires),
			     "command", json_text(command)));
	explicit_bzero(token, sizeof(token));
	c->r->status = 201;
}

/* An agent's reply to a command, as this server's answer would be. */
static void agent_answer(struct call *c, enum agent_command kind, unsigned top)
{
	struct view_error e;
	int status = 0;
	char *text = NULL;
	json_t *doc;

	if (!can_act(c))
		return;
	if (agent_hub__call(c->srv->hub, c->target, kind, top, &status, &text, &e)) {
		api__fail(c, &e);
		return;
	}
	doc = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	if (!doc) {
		reply__msg(c->r, 502, MSG_AGENT_BAD_REPLY, c->target->name);
		return;
	}
	c->r->status = status;
	c->r->doc = doc;
}

void api__check(struct call *c)
{
	struct check_result r;

	if (!c->target->this_server) {
		agent_answer(c, AGENT_CHECK, 0);
		return;
	}
	capture__check(&r);
	api__ok(c, views__check(&r));
}

void api__top(struct call *c)
{
	struct service *svc = NULL;
	struct top_row *rows;
	size_t n, nsvc = 0;
	long limit = TOP_DEFAULT;
	struct store *s;
	int err;

	if (api__arg(c, "n") && api__number(c, "n", api__arg(c, "n"), 1, TOP_MAX, &limit))
		return;
	if (!c->target->this_server) {
		agent_answer(c, AGENT_TOP, (unsigned)limit);
		return;
	}
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
	api__ok(c, views__top(rows, n));
	free(rows);
}

void api__servers_profiles(struct call *c)
{
	api__list_profiles(c, c->target->this_server ? c->srv->hostname : c->target->name);
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

void api__start_capture(struct call *c)
{
	json_t *body = c->req->body ? json_loads(c->req->body, 0, NULL) : NULL;
	const char *qid = json_string_value(json_object_get(body, "question"));
	json_t *secs = json_object_get(body, "seconds"), *hz = json_object_get(body, "hz");
	json_t *status = NULL;
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
		api__unknown_question(c, qid);
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
	if (!c->target->this_server) {
		if (!can_act(c))
			goto out;
		if (agent_hub__capture(c->srv->hub, c->target, (enum question)q, (unsigned)seconds,
				       (unsigned)rate, &status, &e)) {
			api__fail(c, &e);
			goto out;
		}
	} else if (capture_job__start(&c->srv->job, (enum question)q, (unsigned)seconds,
				      (unsigned)rate, &e)) {
		api__fail(c, &e);
		goto out;
	} else {
		status = capture_job__status(&c->srv->job);
	}
	api__ok(c, status);
	c->r->status = 202;
out:
	json_decref(body);
}

void api__stop_capture(struct call *c)
{
	struct view_error e;

	if (!c->target->this_server) {
		if (agent_hub__stop_capture(c->srv->hub, c->target, &e))
			api__fail(c, &e);
		else
			api__ok(c, agent_hub__capture_status(c->srv->hub, c->target->id));
		return;
	}
	if (capture_job__stop(&c->srv->job, &e))
		api__fail(c, &e);
	else
		api__ok(c, capture_job__status(&c->srv->job));
}

void api__capture_status(struct call *c)
{
	if (!c->target->this_server)
		api__ok(c, agent_hub__capture_status(c->srv->hub, c->target->id));
	else
		api__ok(c, capture_job__status(&c->srv->job));
}

void api__remove_profiler(struct call *c)
{
	struct remove_report rep = { 0 };
	struct view_error e;
	struct store *s;
	char when[32];
	int err;

	if (!c->target->this_server) {
		agent_answer(c, AGENT_REMOVE_PROFILER, 0);
		return;
	}
	/* A running capture is using the profiler it would remove. */
	if (capture_job__running(&c->srv->job)) {
		views__format_time(c->srv->job.started_at_ns, when);
		view_error__set(&e, 409, MSG_API_CAPTURE_BUSY, c->srv->hostname,
				question__title(c->srv->job.question), when);
		api__fail(c, &e);
		return;
	}
	s = api__open_store(c);
	if (!s)
		return;
	/* Unloaded first: nothing of it stays in the kernel, then its files go. A capture
	 * that started since holds it (-EBUSY): refused as above. */
	if (profiler__unload(c->srv->profiler) == -EBUSY) {
		store__close(s);
		views__format_time(c->srv->job.started_at_ns, when);
		view_error__set(&e, 409, MSG_API_CAPTURE_BUSY, c->srv->hostname,
				question__title(c->srv->job.question), when);
		api__fail(c, &e);
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
		api__ok(c, views__remove_document(c->srv->data_dir, &rep));
	}
	json_decref(rep.removed);
	json_decref(rep.failed);
}
