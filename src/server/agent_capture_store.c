// SPDX-License-Identifier: MIT
/* A server's last capture on its agent as the store keeps it (struct capture, in JSON),
 * for every process of the workspace: read, written, and failed when a poll says its
 * agent no longer runs it. Below both halves of the hub: agent_hub.c (polls, commands)
 * and agent_captures.c (what the API asks, what the agent says). */
#include "server/agent_hub_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/json_text.h"

int hub__capture_put(struct store *st, const char *server_id, const struct capture *cap)
{
	/* What the agent said (phase, error, note) as valid UTF-8 whatever it sent. */
	json_t *j = json_pack("{s:b, s:b, s:b, s:I, s:s, s:s, s:i, s:i, s:I, s:o, s:I, s:I,"
			      " s:s, s:o, s:o, s:b}",
			      "started", cap->started, "running", cap->running, "heard",
			      cap->heard, "heard_ns", (json_int_t)cap->heard_ns, "id", cap->id,
			      "command_id", cap->command_id, "question", (int)cap->question,
			      "seconds", (int)cap->seconds, "started_at_ns",
			      (json_int_t)cap->started_at_ns, "phase", json_text(cap->phase),
			      "done", (json_int_t)cap->done, "total", (json_int_t)cap->total,
			      "profile_id", cap->profile_id, "error", json_text(cap->error),
			      "note", json_text(cap->note), "stopping", cap->stopping);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	int err = text ? store__put_agent_capture(st, server_id, text) : -ENOMEM;

	free(text);
	json_decref(j);
	return err;
}

#define COPY(field, from) snprintf((field), sizeof(field), "%s", (from))

int hub__capture_get(struct store *st, const char *server_id, struct capture *cap)
{
	json_int_t heard_ns = 0, started_at_ns = 0, done = 0, total = 0;
	const char *id = "", *command_id = "", *phase = "", *profile_id = "", *error = "",
		   *note = "";
	int started = 0, running = 0, heard = 0, stopping = 0, question = 0, seconds = 0;
	char *text = NULL;
	json_t *j;
	int err;

	*cap = (struct capture){ 0 };
	err = store__get_agent_capture(st, server_id, &text);
	if (err)
		return err;
	j = json_loads(text, 0, NULL);
	free(text);
	if (!j || json_unpack(j, "{s:b, s:b, s:b, s:I, s:s, s:s, s:i, s:i, s:I, s:s, s:I, s:I,"
			      " s:s, s:s, s:s, s:b}",
			      "started", &started, "running", &running, "heard", &heard,
			      "heard_ns", &heard_ns, "id", &id, "command_id", &command_id,
			      "question", &question, "seconds", &seconds, "started_at_ns",
			      &started_at_ns, "phase", &phase, "done", &done, "total", &total,
			      "profile_id", &profile_id, "error", &error, "note", &note,
			      "stopping", &stopping)) {
		json_decref(j);
		return -EBADMSG;
	}
	cap->started = started;
	cap->running = running;
	cap->heard = heard;
	cap->heard_ns = heard_ns;
	COPY(cap->id, id);
	COPY(cap->command_id, command_id);
	cap->question = (enum question)question;
	cap->seconds = (unsigned)seconds;
	cap->started_at_ns = started_at_ns;
	COPY(cap->phase, phase);
	cap->done = (uint64_t)done;
	cap->total = (uint64_t)total;
	COPY(cap->profile_id, profile_id);
	COPY(cap->error, error);
	COPY(cap->note, note);
	cap->stopping = stopping;
	json_decref(j);
	return 0;
}

void hub__capture_polled(struct store *st, const struct server_entry *srv,
			 const char *running_capture)
{
	struct capture cap;
	struct view_error e;

	/* Sampling or reading, by its last progress, while its agent says it runs none (or
	 * another): the agent was restarted meanwhile, and this capture is gone. A capture
	 * that is saving waits for its batch, which the agent's spool keeps. */
	if (hub__capture_get(st, srv->id, &cap) || !cap.running || !cap.heard ||
	    strcmp(running_capture, cap.id) == 0 ||
	    (strcmp(cap.phase, "sampling") != 0 && strcmp(cap.phase, "reading") != 0) ||
	    clock__realtime_ns() - cap.heard_ns < CAPTURE_LOST_AFTER_NS)
		return;
	cap.running = false;
	COPY(cap.phase, "failed");
	view_error__set(&e, 500, MSG_AGENT_CAPTURE_LOST, srv->name);
	COPY(cap.error, e.text);
	hub__capture_put(st, srv->id, &cap);
}
