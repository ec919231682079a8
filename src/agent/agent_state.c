// SPDX-License-Identifier: MIT
/*
 * What the agent's threads share of one running agent (agent_state.h): progress to send,
 * the builds the workspace keeps, replies read for errors and for a removed server, naps
 * that end on quit. Below the poll loop (agent.c) and the files it starts (enrol.c,
 * runner.c, sender.c, batch.c), which all use it.
 */
#include "agent/agent_state.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/transport.h"
#include "util/exit_codes.h"
#include "util/messages.h"

void agent__progress(struct agent *a, const char *capture_id, const char *phase,
		     uint64_t done, uint64_t total, const char *error, const char *note)
{
	pthread_mutex_lock(&a->lock);
	snprintf(a->progress_capture_id, sizeof(a->progress_capture_id), "%s", capture_id);
	snprintf(a->progress_phase, sizeof(a->progress_phase), "%s", phase);
	snprintf(a->progress_error, sizeof(a->progress_error), "%s", error ? error : "");
	snprintf(a->progress_note, sizeof(a->progress_note), "%s", note ? note : "");
	a->progress_done = done;
	a->progress_total = total;
	a->progress_dirty = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
}

/* At most this many builds are remembered; past it, the oldest are forgotten (and at
 * worst read again). */
#define WORKSPACE_BUILDS_MAX 4096

int agent__workspace_keeps(void *ctx, const char *build_id)
{
	const struct agent *a = ctx;

	for (size_t i = 0; i < a->nworkspace_builds; i++)
		if (strcmp(a->workspace_builds[i], build_id) == 0)
			return 1;
	return 0;
}

void agent__workspace_has(struct agent *a, const char *build_id)
{
	char *copy;

	if (agent__workspace_keeps(a, build_id))
		return;
	if (!a->workspace_builds) {
		a->workspace_builds = calloc(WORKSPACE_BUILDS_MAX, sizeof(*a->workspace_builds));
		if (!a->workspace_builds)
			return;
	}
	copy = strdup(build_id);
	if (!copy)
		return;
	if (a->nworkspace_builds == WORKSPACE_BUILDS_MAX) {
		free(a->workspace_builds[0]);
		memmove(a->workspace_builds, a->workspace_builds + 1,
			(WORKSPACE_BUILDS_MAX - 1) * sizeof(*a->workspace_builds));
		a->nworkspace_builds--;
	}
	a->workspace_builds[a->nworkspace_builds++] = copy;
}

/* The "error" of an error document, or the body itself when it is not one. */
const char *agent__error_text(const struct http_reply *r, json_t **doc)
{
	const char *text;

	*doc = json_loadb(r->body ? r->body : "", r->len, 0, NULL);
	text = json_string_value(json_object_get(*doc, "error"));
	return text ? text : (r->body ? r->body : "");
}

/* Every loop ends: true for the first thread to say so, which decides how. */
static bool end_first(struct agent *a, bool removed)
{
	bool first;

	pthread_mutex_lock(&a->lock);
	first = !a->fatal;
	if (first) {
		a->fatal = 1;
		a->removed = removed;
		if (!removed)
			a->exit_code = EXIT_REFUSED; /* a restart would be refused again */
	}
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	/* The poll's wait and the sender's post end now. */
	*a->quit = 1;
	return first;
}

void agent__server_removed(struct agent *a)
{
	end_first(a, true);
}

bool agent__reply_allows(struct agent *a, const struct http_reply *r)
{
	json_t *doc;

	if (r->status == 410) {
		agent__server_removed(a);
		return false;
	}
	if (r->status != 401 && r->status != 426)
		return true;
	if (!end_first(a, false))
		return false;
	if (r->status == 401)
		msg_error(MSG_AGENT_UNAUTHORIZED, a->opts->workspace, agent__error_text(r, &doc),
			  a->opts->data);
	else
		msg_error(MSG_AGENT_VERSION_REFUSED, a->opts->workspace, AGENT_PROTOCOL_VERSION,
			  agent__error_text(r, &doc));
	json_decref(doc);
	return false;
}

/* Sleeps ms, or less when told to end. */
void agent__nap(struct agent *a, uint64_t ms)
{
	while (ms && !*a->quit && !a->fatal) {
		uint64_t step = ms < 200 ? ms : 200;
		struct timespec ts = { 0, (long)step * 1000000L };

		nanosleep(&ts, NULL);
		ms -= step;
	}
}
