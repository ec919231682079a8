// SPDX-License-Identifier: MIT
/*
 * slideops agent (agent.h): its credential (enrol.c), then the poll loop on the main
 * thread, which does the commands that take a moment (check, top, Remove the profiler)
 * itself and hands captures to the runner (runner.c); the sender (sender.c) posts progress and
 * delivers the spool. The poll is the heartbeat and the probe: while it fails it is
 * retried by its own backoff (first within a second, at most every 40 s), and the
 * first poll after a failure asks for no wait, so that a workspace that returns is
 * known at once and the spool delivered within 60 s of its return.
 */
#include "agent/agent.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_state.h"
#include "agent/batch.h"
#include "agent/installed.h"
#include "agent/spool.h"
#include "agent/transport.h"
#include "capture/capture.h"
#include "util/clock.h"
#include "util/exit_codes.h"
#include "util/messages.h"
#include "views/views.h"

#define POLL_WAIT_MS 30000
#define POLL_SLACK_MS 15000
#define REPLY_TIMEOUT_MS 10000
#define TOP_ROWS 10 /* as top's default */
#define TOP_ROWS_MAX 100000

/* ---- commands ---- */

static void reply(struct agent *a, struct transport *t, const char *command_id, int status,
		  json_t *doc)
{
	Slideops__Agent__CommandReply cr = SLIDEOPS__AGENT__COMMAND_REPLY__INIT;
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	struct http_reply r;
	uint8_t *body;
	size_t len;

	json_decref(doc);
	if (!text) {
		status = 500;
		text = strdup("{\"error\": \"out of memory on the agent\"}");
		if (!text)
			return;
	}
	cr.protocol_version = AGENT_PROTOCOL_VERSION;
	cr.command_id = (char *)(command_id ? command_id : "");
	cr.http_status = (uint32_t)status;
	cr.document_json.data = (uint8_t *)text;
	cr.document_json.len = strlen(text);
	len = slideops__agent__command_reply__get_packed_size(&cr);
	body = malloc(len ? len : 1);
	if (body) {
		slideops__agent__command_reply__pack(&cr, body);
		if (transport__post(t, "/agent/reply", body, len, REPLY_TIMEOUT_MS, a->quit,
				    &r) == 0) {
			agent__reply_allows(a, &r);
			http_reply__release(&r);
		} else {
			msg_error(MSG_AGENT_REPLY_LOST, cr.command_id, r.error);
		}
	}
	free(body);
	free(text);
}

static json_t *error_doc(int *status, int code, enum msg_id id, ...)
{
	struct view_error e;
	va_list ap;

	va_start(ap, id);
	view_error__vset(&e, code, id, ap);
	va_end(ap);
	*status = code;
	return view_error__json(&e);
}

/* check's document: made at the first CHECK (it loads a program of every question:
 * seconds of the kernel's time, which a server whose workspace never asks should not
 * pay), then the same for the agent's life: the kernel and its privileges do not change
 * while it runs. */
static json_t *do_check(struct agent *a, int *status)
{
	if (!a->check) {
		a->check = calloc(1, sizeof(*a->check));
		if (!a->check)
			return error_doc(status, 500, MSG_OUT_OF_MEMORY);
		capture__check(a->check);
	}
	*status = 200;
	return views__check(a->check);
}

static json_t *do_top(const Slideops__Agent__Command *c, int *status)
{
	size_t limit = c->top ? (c->top < TOP_ROWS_MAX ? c->top : TOP_ROWS_MAX) : TOP_ROWS;
	struct top_row *rows;
	size_t n;
	json_t *doc;
	int err = views__top_read(NULL, 0, limit, &rows, &n);

	if (err == -ENOMEM)
		return error_doc(status, 500, MSG_OUT_OF_MEMORY);
	if (err)
		return error_doc(status, 500, MSG_PROC_UNREADABLE, "/proc", strerror(-err));
	doc = views__top(rows, n);
	free(rows);
	*status = 200;
	return doc;
}

static json_t *do_remove(struct agent *a, int *status)
{
	json_t *doc, *failed;
	char when[32];
	bool busy;
	int err;

	pthread_mutex_lock(&a->lock);
	busy = a->capture_running;
	views__format_time(a->capture_started_ns, when);
	pthread_mutex_unlock(&a->lock);
	/* A running capture is using the profiler it would remove. */
	if (busy)
		return error_doc(status, 409, MSG_API_CAPTURE_BUSY, a->cred.name,
				 question__title(a->capture_question), when);
	runner__join(a);
	err = agent_profiler__remove(a->profiler, &doc);
	if (!doc)
		return error_doc(status, 500, MSG_OUT_OF_MEMORY);
	failed = json_array_get(json_object_get(doc, "failed"), 0);
	if (err && failed) {
		json_t *e = error_doc(status, 500, MSG_REMOVE_FAILED,
				      json_string_value(json_object_get(failed, "path")),
				      json_string_value(json_object_get(failed, "error")));

		json_decref(doc);
		return e;
	}
	msg_fprint(stderr, MSG_AGENT_PROFILER_REMOVED, a->opts->data);
	*status = 200;
	return doc;
}

/* One command of a poll. True when the server was removed (a workspace of version 1
 * says so by REMOVED; this one by 410). */
static bool do_command(struct agent *a, struct transport *t, const Slideops__Agent__Command *c)
{
	json_t *doc = NULL;
	int status = 0;

	switch (c->kind) {
	case SLIDEOPS__AGENT__COMMAND__KIND__CAPTURE:
		status = runner__start(a, c, &doc);
		if (status)
			reply(a, t, c->command_id, status, doc);
		return false;
	case SLIDEOPS__AGENT__COMMAND__KIND__STOP:
		runner__stop(a, c->capture_id);
		return false;
	case SLIDEOPS__AGENT__COMMAND__KIND__CHECK:
		doc = do_check(a, &status);
		break;
	case SLIDEOPS__AGENT__COMMAND__KIND__TOP:
		doc = do_top(c, &status);
		break;
	case SLIDEOPS__AGENT__COMMAND__KIND__REMOVE_PROFILER:
		doc = do_remove(a, &status);
		break;
	case SLIDEOPS__AGENT__COMMAND__KIND__REMOVED:
		agent__server_removed(a);
		return true;
	case SLIDEOPS__AGENT__COMMAND__KIND__NONE:
		return false;
	default:
		doc = error_doc(&status, 501, MSG_AGENT_UNKNOWN_COMMAND, (int)c->kind,
				SLIDEOPS_VERSION);
		break;
	}
	reply(a, t, c->command_id, status, doc);
	return false;
}

/* ---- the poll loop ---- */

/* Polls until told to end (a signal, or a->fatal: refused, or the server removed). */
static void poll_loop(struct agent *a, struct transport *t)
{
	struct backoff backoff;
	bool failing = false, removed = false;

	backoff__init(&backoff, POLL_FIRST_MS, POLL_CAP_MS,
		      (uint64_t)clock__monotonic_ns() ^ (uint64_t)getpid());
	while (!*a->quit && !a->fatal && !removed) {
		Slideops__Agent__PollRequest req = SLIDEOPS__AGENT__POLL_REQUEST__INIT;
		Slideops__Agent__PollReply *reply;
		char capture_id[AGENT_ID_MAX] = "";
		uint8_t buf[1024];
		struct http_reply r;
		size_t len;
		int err;

		pthread_mutex_lock(&a->lock);
		if (a->capture_running)
			snprintf(capture_id, sizeof(capture_id), "%s", a->capture_id);
		pthread_mutex_unlock(&a->lock);
		req.protocol_version = AGENT_PROTOCOL_VERSION;
		req.boot_id = a->identity.boot_id;
		/* After a failure, no wait: the answer says at once that it is back. */
		req.wait_ms = failing ? 0 : POLL_WAIT_MS;
		req.kernel = a->identity.kernel;
		req.agent_version = (char *)SLIDEOPS_VERSION;
		req.profiler_installed = agent_profiler__installed(a->profiler);
		req.capture_id = capture_id;
		if (slideops__agent__poll_request__get_packed_size(&req) > sizeof(buf))
			req.kernel = (char *)"";
		len = slideops__agent__poll_request__pack(&req, buf);
		err = transport__post(t, "/agent/poll", buf, len, req.wait_ms + POLL_SLACK_MS,
				      a->quit, &r);
		if (*a->quit) {
			if (!err)
				http_reply__release(&r);
			break;
		}
		if (!err && !agent__reply_allows(a, &r)) {
			http_reply__release(&r);
			break;
		}
		reply = !err && r.status == 200 ?
			slideops__agent__poll_reply__unpack(NULL, r.len, (uint8_t *)r.body) : NULL;
		if (!reply) {
			if (!failing) {
				if (err)
					msg_error(MSG_AGENT_WORKSPACE_UNREACHABLE,
						  a->opts->workspace, r.error);
				else
					msg_error(MSG_AGENT_WORKSPACE_FAILED, a->opts->workspace,
						  r.status);
			}
			if (!err)
				http_reply__release(&r);
			failing = true;
			agent__nap(a, backoff__next(&backoff));
			continue;
		}
		http_reply__release(&r);
		if (failing) {
			msg_fprint(stderr, MSG_AGENT_REACHABLE, a->opts->workspace);
			pthread_mutex_lock(&a->lock);
			a->workspace_returned = true;
			pthread_cond_signal(&a->wake);
			pthread_mutex_unlock(&a->lock);
			failing = false;
		}
		backoff__reset(&backoff);
		for (size_t i = 0; i < reply->n_commands && !removed && !a->fatal; i++)
			removed = do_command(a, t, reply->commands[i]);
		slideops__agent__poll_reply__free_unpacked(reply, NULL);
	}
}

static void spool_dropped(void *ctx, const char *name, const char *why)
{
	(void)ctx;
	msg_fprint(stderr, MSG_AGENT_SPOOL_DROPPED, name, why);
}

/* The server was removed: the profiler, the spool and the credential go. */
static int clean_up_removed(struct agent *a)
{
	char spool_dir[PATH_MAX];
	json_t *doc = NULL;
	int err;

	err = agent_profiler__remove(a->profiler, &doc);
	json_decref(doc);
	if (!err)
		err = spool__destroy(a->spool);
	snprintf(spool_dir, sizeof(spool_dir), "%s/spool", a->opts->data);
	if (!err && rmdir(spool_dir) && errno != ENOENT)
		err = -errno;
	if (!err)
		err = credential__delete(a->opts->data);
	if (err) {
		msg_error(MSG_AGENT_CLEANUP_FAILED, a->opts->data, strerror(-err));
		return EXIT_FAIL;
	}
	msg_print(MSG_AGENT_REMOVED, a->cred.name, a->opts->workspace, a->opts->data);
	return EXIT_OK;
}

int agent__run(const struct agent_options *opts, volatile sig_atomic_t *quit)
{
	struct agent a = { .opts = opts, .quit = quit, .exit_code = EXIT_OK };
	struct spool_limits limits = {
		.max_bytes = opts->spool_max_bytes,
		.max_age_s = opts->spool_max_age_s,
		.dropped = spool_dropped,
		.carried = batch__spool_dropped,
	};
	struct transport *t = NULL;
	char spool_dir[PATH_MAX];
	pthread_condattr_t cattr;
	pthread_t sender;
	bool sender_started = false, removed;
	sigset_t all, old;
	int err;

	err = agent_data__prepare(opts->data);
	if (err) {
		msg_error(err == -ELOOP ? MSG_AGENT_DATA_LINK :
			  err == -EPERM ? MSG_AGENT_DATA_MODE : MSG_AGENT_DATA_UNUSABLE,
			  opts->data, strerror(-err));
		return EXIT_FAIL;
	}
	err = agent_identity__read(&a.identity);
	if (err) {
		msg_error(MSG_AGENT_NO_BOOT_ID, strerror(-err));
		return EXIT_FAIL;
	}
	if (transport__global_init() || !(t = transport__new(opts->workspace, opts->ca_file))) {
		msg_error(MSG_OUT_OF_MEMORY);
		return EXIT_FAIL;
	}
	pthread_mutex_init(&a.lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&a.wake, &cattr);
	pthread_condattr_destroy(&cattr);

	err = agent__credential(&a, t);
	if (err) {
		/* Refused for good (no, or a bad, credential; the token refused): exit 2, which
		 * the unit does not restart. */
		if (err == -ENOENT || err == -ELOOP || err == -EPERM || err == -EBADMSG ||
		    err == -EACCES)
			a.exit_code = EXIT_REFUSED;
		else if (err != -ECANCELED && !a.exit_code)
			a.exit_code = EXIT_FAIL;
		goto out;
	}
	transport__set_credential(t, a.cred.credential);
	snprintf(spool_dir, sizeof(spool_dir), "%s/spool", opts->data);
	a.spool = spool__open(spool_dir, &limits, a.identity.boot_id);
	a.profiler = agent_profiler__open(opts->data);
	if (!a.spool || !a.profiler) {
		msg_error(MSG_AGENT_DATA_UNUSABLE, spool_dir, strerror(errno));
		a.exit_code = EXIT_FAIL;
		goto out;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&sender, NULL, sender__main, &a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		msg_error(MSG_AGENT_THREAD_FAILED, strerror(err));
		a.exit_code = EXIT_FAIL;
		goto out;
	}
	sender_started = true;
	msg_fprint(stderr, MSG_AGENT_STARTED, a.cred.name, opts->workspace, opts->data);

	poll_loop(&a, t);

	/* A running capture stops; its result is spooled before the sender ends. */
	runner__stop(&a, NULL);
	runner__join(&a);
	pthread_mutex_lock(&a.lock);
	a.sender_quit = true;
	pthread_cond_signal(&a.wake);
	pthread_mutex_unlock(&a.lock);
	pthread_join(sender, NULL);
	sender_started = false;
	if (!a.fatal) {
		/* One last try for what waits (a capture SIGTERM stopped), cut short by a
		 * second signal; what does not go now goes at the next start. The workspace
		 * may answer it that the server was removed. */
		*quit = 0;
		sender__flush(&a, t);
	}
	/* Only this thread is left: whoever heard it first, the removal is done once. */
	pthread_mutex_lock(&a.lock);
	removed = a.removed;
	pthread_mutex_unlock(&a.lock);
	if (removed) {
		a.exit_code = clean_up_removed(&a);
	} else if (!a.fatal) {
		size_t waiting;
		uint64_t bytes, dropped;

		spool__stats(a.spool, &waiting, &bytes, &dropped);
		if (waiting)
			msg_fprint(stderr, MSG_AGENT_STOPPED_SPOOLED, (unsigned long long)waiting,
				   spool_dir);
		else
			msg_fprint(stderr, MSG_AGENT_STOPPED);
	}
out:
	if (sender_started) {
		pthread_mutex_lock(&a.lock);
		a.sender_quit = true;
		pthread_cond_signal(&a.wake);
		pthread_mutex_unlock(&a.lock);
		pthread_join(sender, NULL);
	}
	free(a.check);
	agent_profiler__close(a.profiler);
	spool__close(a.spool);
	for (size_t i = 0; i < a.nworkspace_builds; i++)
		free(a.workspace_builds[i]);
	free(a.workspace_builds);
	transport__free(t);
	explicit_bzero(&a.cred, sizeof(a.cred));
	pthread_cond_destroy(&a.wake);
	pthread_mutex_destroy(&a.lock);
	return a.exit_code;
}
