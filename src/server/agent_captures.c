// SPDX-License-Identifier: MIT
/* Captures on agents' servers (agent_hub.h): asked for through the poll, followed by
 * the agent's progress, ended by its batch; the same progress document as a capture on
 * this server (capture_job.h). */
#include "server/agent_hub_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "util/clock.h"
#include "util/json_text.h"

int agent_hub__capture(struct agent_hub *h, const struct server_entry *srv, enum question q,
		       unsigned seconds, unsigned hz, json_t **status, struct view_error *e)
{
	struct capture *cap;
	struct command *c;
	struct slot *s;
	char when[32], *doc = NULL;
	int code = 0, err;

	*status = NULL;
	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, srv->id, srv->name);
	if (!s) {
		pthread_mutex_unlock(&h->lock);
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		return -1;
	}
	cap = &s->cap;
	if (cap->running) {
		views__format_time(cap->started_at_ns, when);
		view_error__set(e, 409, MSG_API_CAPTURE_BUSY, srv->name,
				question__title(cap->question), when);
		pthread_mutex_unlock(&h->lock);
		return -1;
	}
	if (!hub__reachable(s, srv)) {
		pthread_mutex_unlock(&h->lock);
		hub__unreachable(e, srv);
		return -1;
	}
	c = hub__queue(s, AGENT_CAPTURE);
	if (!c) {
		pthread_mutex_unlock(&h->lock);
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		return -1;
	}
	c->question = q;
	c->seconds = seconds;
	c->hz = hz;
	hub__new_id('k', c->capture_id);
	*cap = (struct capture){ .started = true, .running = true, .question = q,
				 .seconds = seconds, .started_at_ns = clock__realtime_ns(),
				 .total = question__is_snapshot(q) ?
						  0 : (uint64_t)seconds * 1000 };
	snprintf(cap->id, sizeof(cap->id), "%s", c->capture_id);
	snprintf(cap->command_id, sizeof(cap->command_id), "%s", c->id);
	snprintf(cap->phase, sizeof(cap->phase), "sampling");
	/* Answered at the agent's first progress (it began) or its refusal (the same as
	 * this server's), or after AGENT_REPLY_WAIT_NS. */
	{
		struct call w = { .next = h->calls };
		struct timespec until;
		int64_t end = clock__monotonic_ns() + AGENT_REPLY_WAIT_NS;

		snprintf(w.server_id, sizeof(w.server_id), "%s", s->id);
		snprintf(w.command_id, sizeof(w.command_id), "%s", c->id);
		h->calls = &w;
		hub__wake(s);
		until.tv_sec = end / 1000000000LL;
		until.tv_nsec = end % 1000000000LL;
		while (!w.answered && !cap->heard && !h->stopping && cap->running &&
		       strcmp(cap->command_id, w.command_id) == 0)
			if (pthread_cond_timedwait(&h->replied, &h->lock, &until) == ETIMEDOUT)
				break;
		hub__call_unlink(h, &w);
		code = w.answered ? w.status : 0;
		doc = w.doc;
	}
	err = 0;
	if (code && code != 200) {
		json_t *j = doc ? json_loads(doc, 0, NULL) : NULL;
		const char *text = json_string_value(json_object_get(j, "error"));

		view_error__set(e, code >= 400 && code < 600 ? code : 502, MSG_AGENT_SAYS,
				text ? text : "refused");
		json_decref(j);
		cap->running = false;
		err = -1;
	} else if (!cap->heard && !code && cap->running && hub__unqueue(s, cap->command_id)) {
		/* The agent did not even take the command: it is taken back, nothing runs. A
		 * command it took and has not reported on yet (a first capture loads the
		 * profiler) is running: its progress will come. */
		view_error__set(e, 504, MSG_AGENT_NO_ANSWER, srv->name,
				(int)(AGENT_REPLY_WAIT_NS / 1000000000LL));
		cap->started = false;
		cap->running = false;
		err = -1;
	}
	free(doc);
	pthread_mutex_unlock(&h->lock);
	if (!err)
		*status = agent_hub__capture_status(h, srv->id);
	return err;
}

int agent_hub__stop_capture(struct agent_hub *h, const struct server_entry *srv,
			    struct view_error *e)
{
	struct command *c;
	struct slot *s;
	int ret = 0;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, srv->id);
	if (!s || !s->cap.running) {
		view_error__set(e, 409, MSG_API_CAPTURE_NONE, srv->name);
		ret = -1;
	} else if (!s->cap.stopping && strcmp(s->cap.phase, "sampling") == 0) {
		c = hub__queue(s, AGENT_STOP);
		if (c) {
			snprintf(c->capture_id, sizeof(c->capture_id), "%s", s->cap.id);
			s->cap.stopping = true;
			hub__wake(s);
		}
	}
	pthread_mutex_unlock(&h->lock);
	return ret;
}

json_t *agent_hub__capture_status(struct agent_hub *h, const char *server_id)
{
	struct capture *cap;
	struct slot *s;
	json_t *doc;
	char when[32];

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, server_id);
	if (!s || !s->cap.started) {
		pthread_mutex_unlock(&h->lock);
		return json_pack("{s:b, s:n}", "running", 0, "phase");
	}
	cap = &s->cap;
	views__format_time(cap->started_at_ns, when);
	/* installing: the agent's note says what this capture does first (it loads the
	 * profiler: the first after the agent starts or after Remove the profiler). */
	doc = json_pack("{s:b, s:s, s:I, s:I, s:s?, s:s, s:s, s:I, s:s, s:b, s:o, s:b, s:o}",
			"running", cap->running, "phase", cap->phase, "done",
			(json_int_t)cap->done, "total", (json_int_t)cap->total, "profile_id",
			cap->profile_id[0] ? cap->profile_id : NULL, "question",
			question__id(cap->question), "title", question__title(cap->question),
			"seconds", (json_int_t)cap->seconds, "started_at", when, "stopping",
			cap->stopping, "error", cap->error[0] ? json_text(cap->error) : json_null(),
			"installing", cap->note[0] != '\0',
			"note", cap->note[0] ? json_text(cap->note) : json_null());
	pthread_mutex_unlock(&h->lock);
	return doc;
}

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
	struct slot *s;
	struct capture *cap;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, server_id);
	cap = s ? &s->cap : NULL;
	if (!cap || !cap->started || strcmp(cap->id, capture_id) != 0 || !phase_ok(phase) ||
	    (!cap->running && cap->heard)) {
		pthread_mutex_unlock(&h->lock);
		return;
	}
	cap->heard = true;
	cap->heard_ns = clock__monotonic_ns();
	cap->done = done;
	cap->total = total;
	if (note && *note)
		snprintf(cap->note, sizeof(cap->note), "%s", note);
	if (strcmp(phase, "failed") == 0) {
		cap->running = false;
		snprintf(cap->error, sizeof(cap->error), "%s", error && *error ? error : "failed");
	}
	/* Done on the agent is saving here until its batch is stored. */
	if (cap->running && !cap->profile_id[0])
		snprintf(cap->phase, sizeof(cap->phase), "%s",
			 strcmp(phase, "done") == 0 ? "saving" : phase);
	else if (!cap->running)
		snprintf(cap->phase, sizeof(cap->phase), "%s", phase);
	pthread_cond_broadcast(&h->replied);
	pthread_mutex_unlock(&h->lock);
}

void agent_hub__delivered(struct agent_hub *h, const char *server_id, const char *capture_id,
			  const char *profile_id, uint64_t spool_dropped)
{
	struct slot *s;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, server_id, NULL);
	if (s) {
		s->spool_dropped += spool_dropped;
		if (capture_id && *capture_id && s->cap.started &&
		    strcmp(s->cap.id, capture_id) == 0) {
			s->cap.running = false;
			s->cap.heard = true;
			s->cap.done = s->cap.total;
			snprintf(s->cap.phase, sizeof(s->cap.phase), "done");
			snprintf(s->cap.profile_id, sizeof(s->cap.profile_id), "%s", profile_id);
			pthread_cond_broadcast(&h->replied);
		}
	}
	pthread_mutex_unlock(&h->lock);
}

void hub__capture_polled(struct slot *s, const char *running_capture)
{
	struct capture *cap = &s->cap;
	struct view_error e;

	/* Sampling or reading, by its last progress, while its agent says it runs none (or
	 * another): the agent was restarted meanwhile, and this capture is gone. A capture
	 * that is saving waits for its batch, which the agent's spool keeps. */
	if (!cap->running || !cap->heard || strcmp(running_capture, cap->id) == 0 ||
	    (strcmp(cap->phase, "sampling") != 0 && strcmp(cap->phase, "reading") != 0) ||
	    clock__monotonic_ns() - cap->heard_ns < CAPTURE_LOST_AFTER_NS)
		return;
	cap->running = false;
	snprintf(cap->phase, sizeof(cap->phase), "failed");
	view_error__set(&e, 500, MSG_AGENT_CAPTURE_LOST, s->name);
	snprintf(cap->error, sizeof(cap->error), "%s", e.text);
}
