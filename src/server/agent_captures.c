// SPDX-License-Identifier: MIT
/* Captures on agents' servers (agent_hub.h): asked for through the poll, followed by
 * the agent's progress, ended by its batch; the same progress document as a capture on
 * this server (capture_job.h). Each server's last capture is kept in the store, so that
 * every process of a shared workspace follows it, whichever one the agent reaches
 * (agent_capture_store.c: how). */
#include "server/agent_hub_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "util/clock.h"
#include "util/json_text.h"

#define COPY(field, from) snprintf((field), sizeof(field), "%s", (from))

/* Progress or a reply came: whoever waits here reads the store again. */
static void changed(struct agent_hub *h)
{
	pthread_mutex_lock(&h->lock);
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

/* ---- what the API asks ---- */

int agent_hub__capture(struct agent_hub *h, const struct server_entry *srv, enum question q,
		       unsigned seconds, unsigned hz, json_t **status, struct view_error *e)
{
	int64_t deadline = clock__monotonic_ns() + AGENT_REPLY_WAIT_NS;
	struct command c = { .kind = AGENT_CAPTURE, .question = q, .seconds = seconds,
			     .hz = hz };
	struct capture cap;
	struct store *st;
	char when[32], *doc = NULL;
	int code = 0, err;

	*status = NULL;
	st = hub__store(h, e);
	if (!st)
		return -1;
	if (hub__capture_get(st, srv->id, &cap) == 0 && cap.running) {
		store__close(st);
		views__format_time(cap.started_at_ns, when);
		view_error__set(e, 409, MSG_API_CAPTURE_BUSY, srv->name,
				question__title(cap.question), when);
		return -1;
	}
	if (!hub__reachable(h, srv)) {
		store__close(st);
		hub__unreachable(e, srv);
		return -1;
	}
	hub__new_id('k', c.capture_id);
	hub__new_id('c', c.id);
	cap = (struct capture){ .started = true, .running = true, .question = q,
				.seconds = seconds, .started_at_ns = clock__realtime_ns(),
				.total = question__is_snapshot(q) ? 0 : (uint64_t)seconds * 1000 };
	COPY(cap.id, c.capture_id);
	COPY(cap.command_id, c.id);
	COPY(cap.phase, "sampling");
	/* The capture first, then its command: its progress may come at once. */
	err = hub__capture_put(st, srv->id, &cap);
	if (!err)
		err = hub__queue(h, st, srv->id, &c);
	if (err) {
		cap.running = false;
		cap.started = false;
		hub__capture_put(st, srv->id, &cap);
		store__close(st);
		view_error__set(e, 500, MSG_AGENT_COMMAND_NOT_KEPT, srv->name, strerror(-err));
		return -1;
	}
	hub__wake(h, srv->id);
	/* Answered at the agent's first progress (it began) or its refusal (the same as
	 * this server's), or after AGENT_REPLY_WAIT_NS. */
	pthread_mutex_lock(&h->lock);
	do {
		pthread_mutex_unlock(&h->lock);
		free(doc);
		doc = NULL;
		if (store__command_reply(st, srv->id, c.id, &code, &doc))
			code = 0;
		if (hub__capture_get(st, srv->id, &cap))
			cap.running = false;
		pthread_mutex_lock(&h->lock);
	} while (!code && !cap.heard && cap.running && strcmp(cap.command_id, c.id) == 0 &&
		 hub__wait(h, deadline));
	pthread_mutex_unlock(&h->lock);
	err = 0;
	if (code && code != 200) {
		json_t *j = doc ? json_loads(doc, 0, NULL) : NULL;
		const char *text = json_string_value(json_object_get(j, "error"));

		view_error__set(e, code >= 400 && code < 600 ? code : 502, MSG_AGENT_SAYS,
				text ? text : "refused");
		json_decref(j);
		if (strcmp(cap.command_id, c.id) == 0 && cap.running) {
			cap.running = false;
			hub__capture_put(st, srv->id, &cap);
		}
		err = -1;
	} else if (!cap.heard && !code && cap.running && strcmp(cap.command_id, c.id) == 0 &&
		   store__unqueue_command(st, srv->id, c.id) == 0) {
		/* The agent did not even take the command: it is taken back, nothing runs. A
		 * command it took and has not reported on yet (a first capture loads the
		 * profiler) is running: its progress will come. */
		view_error__set(e, 504, MSG_AGENT_NO_ANSWER, srv->name,
				(int)(AGENT_REPLY_WAIT_NS / 1000000000LL));
		cap.started = false;
		cap.running = false;
		hub__capture_put(st, srv->id, &cap);
		err = -1;
	}
	free(doc);
	store__close(st);
	if (!err)
		*status = agent_hub__capture_status(h, srv->id);
	return err;
}

int agent_hub__stop_capture(struct agent_hub *h, const struct server_entry *srv,
			    struct view_error *e)
{
	struct command c = { .kind = AGENT_STOP };
	struct capture cap;
	struct store *st = hub__store(h, e);
	int ret = 0;

	if (!st)
		return -1;
	if (hub__capture_get(st, srv->id, &cap) || !cap.running) {
		view_error__set(e, 409, MSG_API_CAPTURE_NONE, srv->name);
		ret = -1;
	} else if (!cap.stopping && strcmp(cap.phase, "sampling") == 0) {
		COPY(c.capture_id, cap.id);
		if (hub__queue(h, st, srv->id, &c) == 0) {
			cap.stopping = true;
			hub__capture_put(st, srv->id, &cap);
		}
	}
	store__close(st);
	if (!ret)
		hub__wake(h, srv->id);
	return ret;
}

json_t *agent_hub__capture_status(struct agent_hub *h, const char *server_id)
{
	struct store *st = hub__store(h, NULL);
	struct capture cap;
	char when[32];
	int err;

	err = st ? hub__capture_get(st, server_id, &cap) : -EIO;
	store__close(st);
	if (err || !cap.started)
		return json_pack("{s:b, s:n}", "running", 0, "phase");
	views__format_time(cap.started_at_ns, when);
	/* installing: the agent's note says what this capture does first (it loads the
	 * profiler: the first after the agent starts or after Remove the profiler). */
	return json_pack("{s:b, s:s, s:I, s:I, s:s?, s:s, s:s, s:I, s:s, s:b, s:o, s:b, s:o}",
			 "running", cap.running, "phase", cap.phase, "done",
			 (json_int_t)cap.done, "total", (json_int_t)cap.total, "profile_id",
			 cap.profile_id[0] ? cap.profile_id : NULL, "question",
			 question__id(cap.question), "title", question__title(cap.question),
			 "seconds", (json_int_t)cap.seconds, "started_at", when, "stopping",
			 cap.stopping, "error", cap.error[0] ? json_text(cap.error) : json_null(),
			 "installing", cap.note[0] != '\0',
			 "note", cap.note[0] ? json_text(cap.note) : json_null());
}

/* ---- what the agent says ---- */

static bool phase_ok(const char *phase)
{
	static const char *const phases[] = { "sampling", "reading", "saving", "done", "failed" };

	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++)
		if (strcmp(phase, phases[i]) == 0)
			return true;
	return false;
}

void agent_hub__progress(struct agent_hub *h, const char *server_id, const char *capture_id,
			 const char *phase, uint64_t done, uint64_t total, const char *error,
			 const char *note)
{
	struct store *st = hub__store(h, NULL);
	struct capture cap;

	if (!st)
		return;
	if (hub__capture_get(st, server_id, &cap) || !cap.started ||
	    strcmp(cap.id, capture_id) != 0 || !phase_ok(phase) || (!cap.running && cap.heard)) {
		store__close(st);
		return;
	}
	cap.heard = true;
	cap.heard_ns = clock__realtime_ns();
	/* Numbers an agent says are only believed within reason: shown as a share. */
	cap.total = total < PROGRESS_MAX ? total : PROGRESS_MAX;
	cap.done = done < cap.total ? done : cap.total;
	if (note && *note)
		COPY(cap.note, note);
	if (strcmp(phase, "failed") == 0) {
		cap.running = false;
		COPY(cap.error, error && *error ? error : "failed");
	}
	/* Done on the agent is saving here until its batch is stored. */
	if (cap.running && !cap.profile_id[0])
		COPY(cap.phase, strcmp(phase, "done") == 0 ? "saving" : phase);
	else if (!cap.running)
		COPY(cap.phase, phase);
	hub__capture_put(st, server_id, &cap);
	store__close(st);
	changed(h);
}

int64_t agent_hub__asked_at(struct agent_hub *h, const char *server_id, const char *capture_id)
{
	struct store *st = capture_id && *capture_id ? hub__store(h, NULL) : NULL;
	struct capture cap;
	int64_t at = 0;

	if (st && hub__capture_get(st, server_id, &cap) == 0 && cap.started &&
	    strcmp(cap.id, capture_id) == 0)
		at = cap.started_at_ns;
	store__close(st);
	return at;
}

void agent_hub__refused(struct agent_hub *h, const char *server_id, const char *capture_id,
			const char *why)
{
	struct capture cap;
	struct store *st;

	if (!capture_id || !*capture_id)
		return;
	st = hub__store(h, NULL);
	if (st && hub__capture_get(st, server_id, &cap) == 0 && cap.started &&
	    strcmp(cap.id, capture_id) == 0) {
		cap.running = false;
		cap.heard = true;
		COPY(cap.phase, "failed");
		COPY(cap.error, why);
		hub__capture_put(st, server_id, &cap);
	}
	store__close(st);
	changed(h);
}

void agent_hub__delivered(struct agent_hub *h, const char *server_id, const char *capture_id,
			  const char *profile_id)
{
	struct capture cap;
	struct store *st;

	if (!capture_id || !*capture_id)
		return;
	st = hub__store(h, NULL);
	if (st && hub__capture_get(st, server_id, &cap) == 0 && cap.started &&
	    strcmp(cap.id, capture_id) == 0) {
		cap.running = false;
		cap.heard = true;
		cap.done = cap.total;
		COPY(cap.phase, "done");
		COPY(cap.profile_id, profile_id);
		hub__capture_put(st, server_id, &cap);
	}
	store__close(st);
	changed(h);
}
