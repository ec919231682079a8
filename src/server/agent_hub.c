// SPDX-License-Identifier: MIT
/*
 * Agents' parked polls (in memory) and their commands (in the store), agent_hub.h; their
 * captures are in agent_captures.c, and as the store keeps them in agent_capture_store.c.
 *
 * A command is queued in the store by whichever process the API asked, and taken from it
 * by the process the agent's poll reached: at once when that is the same process (it
 * wakes its parked poll), else at that process's next re-check of the store, about once
 * a second (agent_hub__sweep) while it holds polls. A re-check rather than PostgreSQL's
 * LISTEN/NOTIFY: it works the same on both backends, holds no connection of its own
 * open, and loses nothing when a notification would have come between two listens; it
 * costs one indexed query a second per process holding polls. A command's reply and a
 * capture's progress are written to the store by the process the agent sent them to;
 * the process whose API request waits for them reads them there, woken at once when
 * they came to it, else within HUB_RECHECK_NS.
 */
#include "server/agent_hub_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "agent.pb-c.h"
#include "util/clock.h"
#include "util/json_text.h"

/* How often a request waiting for an agent reads the store for its reply. */
#define HUB_RECHECK_NS (200 * 1000000LL)
/* Commands a poll's reply carries at most; the rest wait for the next poll. */
#define POLL_COMMANDS_MAX 16

struct agent_hub *agent_hub__new(const char *data_dir)
{
	struct agent_hub *h = calloc(1, sizeof(*h));
	pthread_condattr_t attr;

	if (!h)
		return NULL;
	snprintf(h->data_dir, sizeof(h->data_dir), "%s", data_dir);
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&h->changed, &attr);
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

struct slot *hub__slot_of(struct agent_hub *h, const char *id, const char *name)
{
	struct slot *s = hub__slot_find(h, id);

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

struct store *hub__store(struct agent_hub *h, struct view_error *e)
{
	struct store *st = store__open_again(h->data_dir);

	if (!st && e && store__url())
		view_error__set(e, 503, MSG_STORE_PG_FAILED, store__url(),
				*store__problem(NULL) ? store__problem(NULL) : strerror(errno));
	else if (!st && e)
		view_error__set(e, 500, MSG_DATA_DIR_UNUSABLE, h->data_dir, strerror(errno));
	return st;
}

/* ---- commands as the store keeps them ---- */

static char *command_text(const struct command *c)
{
	json_t *j = json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i}", "kind", (int)c->kind, "id",
			      c->id, "capture_id", c->capture_id, "question", (int)c->question,
			      "seconds", (int)c->seconds, "hz", (int)c->hz, "top", (int)c->top);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return text;
}

static bool command_parse(const char *text, struct command *c)
{
	json_t *j = json_loads(text, 0, NULL);
	const char *id = NULL, *capture_id = NULL;
	int kind = 0, question = 0, seconds = 0, hz = 0, top = 0;
	bool ok;

	*c = (struct command){ 0 };
	ok = j && json_unpack(j, "{s:i, s:s, s:s, s:i, s:i, s:i, s:i}", "kind", &kind, "id", &id,
			      "capture_id", &capture_id, "question", &question, "seconds",
			      &seconds, "hz", &hz, "top", &top) == 0;
	if (ok) {
		c->kind = (enum agent_command)kind;
		snprintf(c->id, sizeof(c->id), "%s", id);
		snprintf(c->capture_id, sizeof(c->capture_id), "%s", capture_id);
		c->question = (enum question)question;
		c->seconds = (unsigned)seconds;
		c->hz = (unsigned)hz;
		c->top = (unsigned)top;
	}
	json_decref(j);
	return ok;
}

int hub__queue(struct agent_hub *h, struct store *st, const char *server_id,
	       struct command *c)
{
	char *text;
	int err;

	if (!c->id[0])
		hub__new_id('c', c->id);
	text = command_text(c);
	if (!text)
		return -ENOMEM;
	err = store__queue_command(st, server_id, c->id, text);
	free(text);
	(void)h;
	return err;
}

/* ---- polls ---- */

/* Hands a parked request its reply and wakes its connection. */
static void resume(struct request *req)
{
	req->replied = true;
	MHD_resume_connection(req->conn);
}

/* The PollReply of the commands (their store texts) into r. */
static void poll_reply(struct reply *r, char **texts, size_t n_texts, bool removed)
{
	Slideops__Agent__PollReply reply = SLIDEOPS__AGENT__POLL_REPLY__INIT;
	Slideops__Agent__Command cmds[POLL_COMMANDS_MAX + 1], *ptrs[POLL_COMMANDS_MAX + 1];
	struct command c[POLL_COMMANDS_MAX];
	size_t n = 0;

	if (removed) {
		cmds[0] = (Slideops__Agent__Command)SLIDEOPS__AGENT__COMMAND__INIT;
		cmds[0].kind = SLIDEOPS__AGENT__COMMAND__KIND__REMOVED;
		ptrs[n] = &cmds[n];
		n++;
	}
	for (size_t i = 0; i < n_texts && i < POLL_COMMANDS_MAX; i++) {
		if (!command_parse(texts[i], &c[i]))
			continue;
		cmds[n] = (Slideops__Agent__Command)SLIDEOPS__AGENT__COMMAND__INIT;
		cmds[n].kind = (Slideops__Agent__Command__Kind)c[i].kind;
		cmds[n].command_id = c[i].id;
		cmds[n].capture_id = c[i].capture_id;
		cmds[n].question =
			(char *)(c[i].kind == AGENT_CAPTURE ? question__id(c[i].question) : "");
		cmds[n].seconds = c[i].seconds;
		cmds[n].hz = c[i].hz;
		cmds[n].top = c[i].top;
		ptrs[n] = &cmds[n];
		n++;
	}
	reply.protocol_version = AGENT_PROTOCOL_VERSION;
	reply.n_commands = n;
	reply.commands = ptrs;
	reply__message(r, 200, &reply.base);
}

/* Answers req with what waits for server_id in the store (taken off it). false when
 * nothing waits and the poll may stay parked (answer_empty: answered empty then). */
static bool answer(struct agent_hub *h, const char *server_id, struct request *req,
		   bool removed, bool answer_empty, uint32_t version)
{
	struct store *st;
	char **texts = NULL;
	size_t n = 0;

	if (removed) {
		agent_hub__removed_reply(&req->reply, version);
		return true;
	}
	/* Unreadable now: answered empty, what waits stays for the next poll. */
	st = hub__store(h, NULL);
	if (st)
		store__take_commands(st, server_id, POLL_COMMANDS_MAX, &texts, &n);
	store__close(st);
	if (n || answer_empty)
		poll_reply(&req->reply, texts, n, false);
	store__free_strings(texts, n);
	return n || answer_empty;
}

void agent_hub__removed_reply(struct reply *r, uint32_t version)
{
	if (version >= AGENT_PROTOCOL_GONE)
		reply__msg(r, 410, MSG_AGENT_SERVER_GONE);
	else
		poll_reply(r, NULL, 0, true);
}

bool agent_hub__poll(struct agent_hub *h, const struct server_entry *srv,
		     const char *running_capture, uint32_t wait_ms, uint32_t version,
		     struct request *req)
{
	int64_t now = clock__monotonic_ns();
	struct request *before;
	struct store *st;
	struct slot *s;
	bool removed, now_only;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, srv->id, srv->name);
	if (!s) {
		pthread_mutex_unlock(&h->lock);
		reply__msg(&req->reply, 500, MSG_OUT_OF_MEMORY);
		return false;
	}
	s->polled_ns = now;
	/* A poll held before this one (the agent restarted, or its connection was lost):
	 * answered empty, this one takes its place. */
	before = s->parked;
	s->parked = NULL;
	removed = s->removed;
	now_only = h->stopping || wait_ms == 0;
	pthread_mutex_unlock(&h->lock);
	if (before) {
		poll_reply(&before->reply, NULL, 0, false);
		resume(before);
	}
	st = hub__store(h, NULL);
	if (st) {
		hub__capture_polled(st, srv, running_capture ? running_capture : "");
		store__close(st);
	}
	if (answer(h, srv->id, req, removed, now_only, version))
		return false;

	pthread_mutex_lock(&h->lock);
	if (wait_ms > AGENT_POLL_WAIT_MAX_MS)
		wait_ms = AGENT_POLL_WAIT_MAX_MS;
	/* Another poll of the same agent parked meanwhile: it is the older one. */
	before = s->parked;
	s->parked = req;
	s->parked_version = version;
	s->deadline_ns = now + (int64_t)wait_ms * 1000000LL;
	pthread_mutex_unlock(&h->lock);
	if (before) {
		poll_reply(&before->reply, NULL, 0, false);
		resume(before);
	}
	return true;
}

int agent_hub__admit(struct agent_hub *h, const char *server_id, enum agent_request_kind kind,
		     int64_t now_ns)
{
	struct slot *s;
	int err = 0;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, server_id, NULL);
	if (!s)
		err = -ENOMEM;
	else if (kind == AGENT_REQUEST_POLL)
		err = s->polls == 0 || (s->polls == 1 && now_ns - s->poll_since_ns >
					AGENT_POLL_REPLACE_NS) ? 0 : -EBUSY;
	else if (kind == AGENT_REQUEST_BATCH)
		err = s->batches == 0 ? 0 : -EBUSY;
	else
		err = s->others < AGENT_OTHERS_MAX ? 0 : -EBUSY;
	if (!err && kind == AGENT_REQUEST_POLL) {
		s->polls++;
		s->poll_since_ns = now_ns;
	} else if (!err && kind == AGENT_REQUEST_BATCH) {
		s->batches++;
	} else if (!err) {
		s->others++;
	}
	pthread_mutex_unlock(&h->lock);
	return err;
}

void agent_hub__release(struct agent_hub *h, const char *server_id,
			enum agent_request_kind kind)
{
	struct slot *s;
	unsigned *n;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, server_id);
	if (s) {
		n = kind == AGENT_REQUEST_POLL ? &s->polls :
		    kind == AGENT_REQUEST_BATCH ? &s->batches : &s->others;
		if (*n)
			(*n)--;
	}
	pthread_mutex_unlock(&h->lock);
}

void hub__wake(struct agent_hub *h, const char *server_id)
{
	struct request *req = NULL;
	struct slot *s;
	bool removed = false;
	uint32_t version = 0;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, server_id);
	if (s && s->parked) {
		req = s->parked;
		s->parked = NULL;
		removed = s->removed;
		version = s->parked_version;
	}
	pthread_mutex_unlock(&h->lock);
	if (!req)
		return;
	answer(h, server_id, req, removed, true, version);
	resume(req);
}

void agent_hub__sweep(struct agent_hub *h, int64_t now_ns)
{
	struct request *ended[64];
	char **waiting = NULL;
	struct store *st;
	size_t n_ended, n_waiting = 0;
	bool more, held;

	/* Polls whose wait ended, answered empty: at most a batch at a time, outside the
	 * lock. */
	do {
		n_ended = 0;
		more = false;
		held = false;
		pthread_mutex_lock(&h->lock);
		for (struct slot *s = h->slots; s; s = s->next) {
			if (!s->parked)
				continue;
			if (!h->stopping && now_ns < s->deadline_ns) {
				held = true;
				continue;
			}
			if (n_ended == sizeof(ended) / sizeof(ended[0])) {
				more = true;
				break;
			}
			ended[n_ended++] = s->parked;
			s->parked = NULL;
		}
		pthread_mutex_unlock(&h->lock);
		for (size_t i = 0; i < n_ended; i++) {
			poll_reply(&ended[i]->reply, NULL, 0, false);
			resume(ended[i]);
		}
	} while (more);
	if (!held || h->stopping)
		return;
	/* Commands another process queued for the polls held here. */
	st = hub__store(h, NULL);
	if (st && store__servers_waiting(st, &waiting, &n_waiting) == 0)
		for (size_t i = 0; i < n_waiting; i++)
			hub__wake(h, waiting[i]);
	store__close(st);
	store__free_strings(waiting, n_waiting);
}

void agent_hub__stop(struct agent_hub *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_broadcast(&h->changed);
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
		free(s);
	}
	pthread_cond_destroy(&h->changed);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

bool hub__reachable(struct agent_hub *h, const struct server_entry *srv)
{
	int64_t now = clock__monotonic_ns();
	struct slot *s;
	bool here;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, srv->id);
	here = s && (s->parked || (s->polled_ns && now - s->polled_ns < AGENT_UNREACHABLE_NS));
	pthread_mutex_unlock(&h->lock);
	if (here)
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

bool hub__wait(struct agent_hub *h, int64_t deadline_ns)
{
	int64_t now = clock__monotonic_ns(), end = now + HUB_RECHECK_NS;
	struct timespec until;

	if (h->stopping || now >= deadline_ns)
		return false;
	if (end > deadline_ns)
		end = deadline_ns;
	until.tv_sec = end / 1000000000LL;
	until.tv_nsec = end % 1000000000LL;
	pthread_cond_timedwait(&h->changed, &h->lock, &until);
	return !h->stopping;
}

/* How long a call waits for the reply to a command of this kind. */
static int64_t reply_wait_ns(enum agent_command kind)
{
	return kind == AGENT_CHECK ? AGENT_CHECK_WAIT_NS : AGENT_REPLY_WAIT_NS;
}

int agent_hub__call(struct agent_hub *h, const struct server_entry *srv,
		    enum agent_command kind, unsigned top, int *status, char **doc,
		    struct view_error *e)
{
	struct command c = { .kind = kind, .top = top };
	int64_t deadline = clock__monotonic_ns() + reply_wait_ns(kind);
	struct capture cap;
	struct store *st;
	char when[32];
	int err;

	*doc = NULL;
	if (!hub__reachable(h, srv)) {
		hub__unreachable(e, srv);
		return -EHOSTUNREACH;
	}
	st = hub__store(h, e);
	if (!st)
		return -EIO;
	/* A running capture is using the profiler it would remove. */
	if (kind == AGENT_REMOVE_PROFILER && hub__capture_get(st, srv->id, &cap) == 0 &&
	    cap.running) {
		store__close(st);
		views__format_time(cap.started_at_ns, when);
		view_error__set(e, 409, MSG_API_CAPTURE_BUSY, srv->name,
				question__title(cap.question), when);
		return -EBUSY;
	}
	err = hub__queue(h, st, srv->id, &c);
	if (err) {
		store__close(st);
		view_error__set(e, 500, MSG_AGENT_COMMAND_NOT_KEPT, srv->name, strerror(-err));
		return err;
	}
	hub__wake(h, srv->id);
	pthread_mutex_lock(&h->lock);
	do {
		pthread_mutex_unlock(&h->lock);
		err = store__command_reply(st, srv->id, c.id, status, doc);
		pthread_mutex_lock(&h->lock);
	} while (err == -EAGAIN && hub__wait(h, deadline));
	pthread_mutex_unlock(&h->lock);
	if (err == -EAGAIN) {
		/* Not taken yet: taken back, so that it does not run after its answer. */
		store__unqueue_command(st, srv->id, c.id);
		err = -ETIMEDOUT;
		view_error__set(e, 504, MSG_AGENT_NO_ANSWER, srv->name,
				(int)(reply_wait_ns(kind) / 1000000000LL));
	} else if (err) {
		view_error__set(e, 500, MSG_AGENT_COMMAND_NOT_KEPT, srv->name, strerror(-err));
	}
	store__close(st);
	return err;
}

void agent_hub__reply(struct agent_hub *h, const char *server_id, const char *command_id,
		      int status, const void *doc, size_t len)
{
	struct store *st = hub__store(h, NULL);
	struct capture cap;
	char *text;

	if (!st)
		return;
	if (len > REPLY_DOC_MAX)
		len = 0;
	text = strndup(doc ? doc : "", len);
	/* Only the server the command went to answers it, once. */
	if (text)
		store__reply_command(st, server_id, command_id, status, text);
	/* A capture's refusal, after its request was answered (it waited too long). */
	if (status != 200 && hub__capture_get(st, server_id, &cap) == 0 && cap.running &&
	    strcmp(cap.command_id, command_id) == 0) {
		json_t *j = text ? json_loads(text, 0, NULL) : NULL;
		const char *why = json_string_value(json_object_get(j, "error"));

		cap.running = false;
		cap.heard = true;
		snprintf(cap.phase, sizeof(cap.phase), "failed");
		snprintf(cap.error, sizeof(cap.error), "%s", why ? why : "refused");
		json_decref(j);
		hub__capture_put(st, server_id, &cap);
	}
	free(text);
	store__close(st);
	pthread_mutex_lock(&h->lock);
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
}

void agent_hub__state(struct agent_hub *h, const char *server_id, bool *polling,
		      bool *capturing)
{
	struct capture cap;
	struct store *st;
	struct slot *s;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_find(h, server_id);
	*polling = s && s->parked;
	pthread_mutex_unlock(&h->lock);
	st = hub__store(h, NULL);
	*capturing = st && hub__capture_get(st, server_id, &cap) == 0 && cap.running;
	store__close(st);
}

void agent_hub__remove(struct agent_hub *h, const char *server_id)
{
	struct capture cap;
	struct store *st;
	struct slot *s;

	pthread_mutex_lock(&h->lock);
	s = hub__slot_of(h, server_id, NULL);
	if (s)
		s->removed = true;
	pthread_mutex_unlock(&h->lock);
	st = hub__store(h, NULL);
	if (st && hub__capture_get(st, server_id, &cap) == 0 && cap.running) {
		cap.running = false;
		hub__capture_put(st, server_id, &cap);
	}
	/* For a poll another process holds: REMOVED at its next look at the store, not
	 * when the poll's wait ends. */
	if (st)
		hub__queue(h, st, server_id, &(struct command){ .kind = AGENT_REMOVED });
	store__close(st);
	hub__wake(h, server_id);
}
