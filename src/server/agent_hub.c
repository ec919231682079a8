// SPDX-License-Identifier: MIT
/* Agents' parked polls, commands and waiting calls, in memory (agent_hub.h); their
 * captures are in agent_captures.c. */
#include "server/agent_hub_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "agent.pb-c.h"
#include "util/clock.h"
#include "util/json_text.h"

struct agent_hub *agent_hub__new(void)
{
	struct agent_hub *h = calloc(1, sizeof(*h));
	pthread_condattr_t attr;

	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&h->replied, &attr);
	pthread_condattr_destroy(&attr);
	return h;
}

void hub__new_id(char prefix, char out[ID_LEN])
{
	unsigned char raw[8];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		int64_t t = clock__monotonic_ns();

		memcpy(raw, &t, sizeof(raw));
	}
	out[0] = prefix;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 1 + 2 * i, 3, "%02x", raw[i]);
}

/* The server's slot, made on first use. Under the lock. */
struct slot *hub__slot_of(struct agent_hub *h, const char *id, const char *name)
{
	struct slot *s;

	for (s = h->slots; s; s = s->next)
		if (strcmp(s->id, id) == 0)
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		snprintf(s->id, sizeof(s->id), "%s", id);
		s->next = h->slots;
		h->slots = s;
	}
	if (name)
		snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

struct slot *hub__slot_find(struct agent_hub *h, const char *id)
{
	for (struct slot *s = h->slots; s; s = s->next)
		if (strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

/* Hands a parked request its reply and wakes its connection. Under the lock. */
static void resume(struct request *req)
{
	req->replied = true;
	MHD_resume_connection(req->conn);
}

/* The PollReply of what is queued (all of it, taken off the queue) into r; REMOVED
 * alone when removed. */
static void poll_reply(struct slot *s, struct reply *r, bool removed)
{
	Slideops__Agent__PollReply reply = SLIDEOPS__AGENT__POLL_REPLY__INIT;
	Slideops__Agent__Command cmds[16], *ptrs[16];
	struct command *c, *taken = NULL, **tail = &taken;
	size_t n = 0;

	if (removed) {
		cmds[0] = (Slideops__Agent__Command)SLIDEOPS__AGENT__COMMAND__INIT;
		cmds[0].kind = SLIDEOPS__AGENT__COMMAND__KIND__REMOVED;
		ptrs[n] = &cmds[n];
		n++;
	}
	while (s && s->head && n < 16) {
		c = s->head;
		s->head = c->next;
		if (!s->head)
			s->tail = NULL;
		c->next = NULL;
		*tail = c;
		tail = &c->next;
		cmds[n] = (Slideops__Agent__Command)SLIDEOPS__AGENT__COMMAND__INIT;
		cmds[n].kind = (Slideops__Agent__Command__Kind)c->kind;
		cmds[n].command_id = c->id;
		cmds[n].capture_id = c->capture_id;
		cmds[n].question =
			(char *)(c->kind == AGENT_CAPTURE ? question__id(c->question) : "");
		cmds[n].seconds = c->seconds;
		cmds[n].hz = c->hz;
		cmds[n].top = c->top;
		ptrs[n] = &cmds[n];
		n++;
	}
	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply.n_commands = n;
	reply.commands = ptrs;
	reply__message(r, 200, &reply.base);
	while (taken) {
		c = taken->next;
		free(taken);
		taken = c;
	}
}

void agent_hub__removed_reply(struct reply *r, uint32_t version)
{
	if (version >= AGENT_PROTOCOL_GONE)
		reply__msg(r, 410, MSG_AGENT_SERVER_GONE);
	else
		poll_reply(NULL, r, true);
}

/* The reply of a poll of version: what is queued, or the removed server's (a version
 * before AGENT_PROTOCOL_GONE: REMOVED first, as it always was). */
static void answer_poll(struct slot *s, struct reply *r, uint32_t version)
{
	if (s->removed && version >= AGENT_PROTOCOL_GONE)
		reply__msg(r, 410, MSG_AGENT_SERVER_GONE);
	else
		poll_reply(s, r, s->removed);
}

bool agent_hub__poll(struct agent_hub *h, const struct server_entry *srv,
		     const char *running_capture, uint32_t wait_ms, uint32_t version,
		     struct request *req)
{
	int64_t now = clock__monotonic_ns();
	struct slot *s;
	bool parked = false;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, srv->id, srv->name);
	if (!s) {
		pthread_mutex_unlock(&h->lock);
		reply__msg(&req->reply, 500, MSG_OUT_OF_MEMORY);
		return false;
	}
	s->polled_ns = now;
	hub__capture_polled(s, running_capture ? running_capture : "");
	/* A poll held before this one (the agent restarted, or its connection was lost):
	 * answered empty, this one takes its place. */
	if (s->parked) {
		poll_reply(NULL, &s->parked->reply, false);
		resume(s->parked);
		s->parked = NULL;
	}
	if (s->removed || s->head || h->stopping || wait_ms == 0) {
		answer_poll(s, &req->reply, version);
	} else {
		if (wait_ms > AGENT_POLL_WAIT_MAX_MS)
			wait_ms = AGENT_POLL_WAIT_MAX_MS;
		s->parked = req;
		s->parked_version = version;
		s->deadline_ns = now + (int64_t)wait_ms * 1000000LL;
		parked = true;
	}
	pthread_mutex_unlock(&h->lock);
	return parked;
}

/* Wakes the server's parked poll with what is queued. Under the lock. */
void hub__wake(struct slot *s)
{
	if (!s->parked)
		return;
	answer_poll(s, &s->parked->reply, s->parked_version);
	resume(s->parked);
	s->parked = NULL;
}

void agent_hub__sweep(struct agent_hub *h, int64_t now_ns)
{
	pthread_mutex_lock(&h->lock);
	for (struct slot *s = h->slots; s; s = s->next)
		if (s->parked && (h->stopping || now_ns >= s->deadline_ns))
			hub__wake(s);
	pthread_mutex_unlock(&h->lock);
}

void agent_hub__stop(struct agent_hub *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_broadcast(&h->replied);
	pthread_mutex_unlock(&h->lock);
	agent_hub__sweep(h, INT64_MAX);
}

void agent_hub__free(struct agent_hub *h)
{
	if (!h)
		return;
	while (h->slots) {
		struct slot *s = h->slots;

		h->slots = s->next;
		while (s->head) {
			struct command *c = s->head;

			s->head = c->next;
			free(c);
		}
		free(s);
	}
	pthread_cond_destroy(&h->replied);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* True when the agent polls now or did within AGENT_UNREACHABLE_NS. Under the lock. */
bool hub__reachable(const struct slot *s, const struct server_entry *srv)
{
	int64_t now = clock__monotonic_ns();

	if (s && (s->parked || (s->polled_ns && now - s->polled_ns < AGENT_UNREACHABLE_NS)))
		return true;
	/* Heard by another process of a shared workspace, or before a restart. */
	return srv->last_seen_ns && clock__realtime_ns() - srv->last_seen_ns < AGENT_UNREACHABLE_NS;
}

void hub__unreachable(struct view_error *e, const struct server_entry *srv)
{
	char when[32] = "never";

	if (srv->last_seen_ns)
		views__format_time(srv->last_seen_ns, when);
	view_error__set(e, 503, MSG_AGENT_UNREACHABLE, srv->name, when);
}

/* Queues a command for the slot and wakes its poll. Under the lock. */
struct command *hub__queue(struct slot *s, enum agent_command kind)
{
	struct command *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->kind = kind;
	hub__new_id('c', c->id);
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	return c;
}

/* Takes a command not yet delivered off the queue: true when it was there. Under the
 * lock. */
bool hub__unqueue(struct slot *s, const char *command_id)
{
	struct command *prev = NULL;

	for (struct command *c = s->head; c; prev = c, c = c->next) {
		if (strcmp(c->id, command_id) != 0)
			continue;
		if (prev)
			prev->next = c->next;
		else
			s->head = c->next;
		if (s->tail == c)
			s->tail = prev;
		free(c);
		return true;
	}
	return false;
}

/* How long a call waits for the reply to a command of this kind. */
static int64_t reply_wait_ns(enum agent_command kind)
{
	return kind == AGENT_CHECK ? AGENT_CHECK_WAIT_NS : AGENT_REPLY_WAIT_NS;
}

/* Waits for the call's reply, up to wait_ns. Under the lock. */
static void await(struct agent_hub *h, struct call *call, int64_t wait_ns)
{
	struct timespec until;
	int64_t end = clock__monotonic_ns() + wait_ns;

	until.tv_sec = end / 1000000000LL;
	until.tv_nsec = end % 1000000000LL;
	while (!call->answered && !h->stopping)
		if (pthread_cond_timedwait(&h->replied, &h->lock, &until) == ETIMEDOUT)
			break;
}

void hub__call_unlink(struct agent_hub *h, struct call *call)
{
	for (struct call **p = &h->calls; *p; p = &(*p)->next)
		if (*p == call) {
			*p = call->next;
			break;
		}
}

/* Queues a command and waits for its reply. Under the lock: 0, -ETIMEDOUT, -ENOMEM. */
static int call(struct agent_hub *h, struct slot *s, struct command *c, int *status,
		char **doc)
{
	struct call w = { .next = h->calls };
	int64_t wait_ns = reply_wait_ns(c->kind);

	snprintf(w.server_id, sizeof(w.server_id), "%s", s->id);
	snprintf(w.command_id, sizeof(w.command_id), "%s", c->id);
	h->calls = &w;
	hub__wake(s); /* c is freed once delivered */
	await(h, &w, wait_ns);
	hub__call_unlink(h, &w);
	if (!w.answered)
		return -ETIMEDOUT;
	*status = w.status;
	*doc = w.doc;
	return 0;
}

int agent_hub__call(struct agent_hub *h, const struct server_entry *srv,
		    enum agent_command kind, unsigned top, int *status, char **doc,
		    struct view_error *e)
{
	struct command *c;
	struct slot *s;
	char when[32], cid[ID_LEN];
	int err;

	*doc = NULL;
	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, srv->id, srv->name);
	if (!s) {
		pthread_mutex_unlock(&h->lock);
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		return -ENOMEM;
	}
	if (!hub__reachable(s, srv)) {
		pthread_mutex_unlock(&h->lock);
		hub__unreachable(e, srv);
		return -EHOSTUNREACH;
	}
	/* A running capture is using the profiler it would remove. */
	if (kind == AGENT_REMOVE_PROFILER && s->cap.running) {
		views__format_time(s->cap.started_at_ns, when);
		view_error__set(e, 409, MSG_API_CAPTURE_BUSY, srv->name,
				question__title(s->cap.question), when);
		pthread_mutex_unlock(&h->lock);
		return -EBUSY;
	}
	c = hub__queue(s, kind);
	if (c) {
		snprintf(cid, sizeof(cid), "%s", c->id);
		c->top = top;
	}
	/* c is freed once delivered: only its id is used after. */
	err = c ? call(h, s, c, status, doc) : -ENOMEM;
	if (err == -ETIMEDOUT)
		hub__unqueue(s, cid);
	pthread_mutex_unlock(&h->lock);
	if (err == -ETIMEDOUT)
		view_error__set(e, 504, MSG_AGENT_NO_ANSWER, srv->name,
				(int)(reply_wait_ns(kind) / 1000000000LL));
	else if (err)
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
	return err;
}

void agent_hub__reply(struct agent_hub *h, const char *server_id, const char *command_id,
		      int status, const void *doc, size_t len)
{
	struct slot *s;

	if (len > REPLY_DOC_MAX)
		len = 0;
	pthread_mutex_lock(&h->lock);
	for (struct call *w = h->calls; w; w = w->next) {
		/* Only the server the command went to answers it. */
		if (strcmp(w->command_id, command_id) != 0 ||
		    strcmp(w->server_id, server_id) != 0 || w->answered)
			continue;
		w->doc = malloc(len + 1);
		if (w->doc) {
			memcpy(w->doc, doc, len);
			w->doc[len] = '\0';
		}
		w->status = status;
		w->answered = true;
		pthread_cond_broadcast(&h->replied);
	}
	/* A capture's refusal, after its request was answered (it waited too long). */
	s = hub__slot_find(h, server_id);
	if (s && s->cap.running && strcmp(s->cap.command_id, command_id) == 0 && status != 200) {
		json_t *j = json_loadb(doc, len, 0, NULL);
		const char *text = json_string_value(json_object_get(j, "error"));

		s->cap.running = false;
		s->cap.heard = true;
		snprintf(s->cap.phase, sizeof(s->cap.phase), "failed");
		snprintf(s->cap.error, sizeof(s->cap.error), "%s", text ? text : "refused");
		json_decref(j);
	}
	pthread_mutex_unlock(&h->lock);
}

void agent_hub__state(struct agent_hub *h, const char *server_id, bool *polling,
		      bool *capturing, uint64_t *spool_dropped)
{
	struct slot *s;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, server_id);
	*polling = s && s->parked;
	*capturing = s && s->cap.running;
	*spool_dropped = s ? s->spool_dropped : 0;
	pthread_mutex_unlock(&h->lock);
}

void agent_hub__remove(struct agent_hub *h, const char *server_id)
{
	struct slot *s;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, server_id, NULL);
	if (s) {
		s->removed = true;
		s->cap.running = false;
		hub__wake(s);
	}
	pthread_mutex_unlock(&h->lock);
}
