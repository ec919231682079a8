// SPDX-License-Identifier: MIT
/*
 * The sender: one thread that posts a running capture's progress about once a second
 * and delivers the spool, oldest batch first, each removed only after the workspace's
 * reply (docs/protocol.md, Delivering a capture). A batch that fails waits by the
 * delivery backoff (first retries within seconds, capped near 5 minutes); the poll loop
 * probes the workspace at most every 40 s meanwhile, and when it answers again the
 * backoff is forgotten and the spool delivered at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent_state.h"
#include "agent/spool.h"
#include "agent/transport.h"
#include "util/clock.h"
#include "util/messages.h"

#define DELIVERY_FIRST_MS 2000
#define DELIVERY_CAP_MS (300 * 1000)
#define PROGRESS_TIMEOUT_MS 3000
#define BATCH_TIMEOUT_MS (120 * 1000)
#define NSEC_PER_MSEC 1000000LL

static void post_progress(struct agent *a, struct transport *t)
{
	Slideops__Agent__Progress p = SLIDEOPS__AGENT__PROGRESS__INIT;
	char id[AGENT_ID_MAX], phase[16], error[AGENT_TEXT_MAX], note[AGENT_TEXT_MAX];
	struct http_reply r;
	uint8_t buf[4 * AGENT_TEXT_MAX];
	size_t len;

	/* Under the lock: a copy of the latest. */
	snprintf(id, sizeof(id), "%s", a->progress_capture_id);
	snprintf(phase, sizeof(phase), "%s", a->progress_phase);
	snprintf(error, sizeof(error), "%s", a->progress_error);
	snprintf(note, sizeof(note), "%s", a->progress_note);
	p.done = a->progress_done;
	p.total = a->progress_total;
	a->progress_dirty = false;
	pthread_mutex_unlock(&a->lock);

	p.protocol_version = AGENT_PROTOCOL_VERSION;
	p.capture_id = id;
	p.phase = phase;
	p.error = error;
	p.note = note;
	len = slideops__agent__progress__pack(&p, buf);
	/* Progress that does not arrive is overtaken by the next; nothing waits for it. */
	if (transport__post(t, "/agent/progress", buf, len, PROGRESS_TIMEOUT_MS, &a->fatal,
			    &r) == 0) {
		agent__reply_allows(a, &r);
		http_reply__release(&r);
	}
	pthread_mutex_lock(&a->lock);
}

enum delivery { DELIVERED, EMPTY, RETRY };

/* The oldest batch, once; why it must wait, when it must. */
static enum delivery deliver_one(struct agent *a, struct transport *t, long timeout_ms,
				  volatile sig_atomic_t *cancel, char why[TRANSPORT_ERROR_MAX])
{
	Slideops__Agent__BatchReply *reply;
	char name[SPOOL_NAME_MAX];
	struct http_reply r;
	size_t len;
	void *data;
	int err = spool__oldest(a->spool, name, &data, &len);

	if (err == -ENOENT)
		return EMPTY;
	if (err) {
		msg_error(MSG_AGENT_SPOOL_UNREADABLE, name, strerror(-err));
		return RETRY;
	}
	err = transport__post(t, "/agent/batch", data, len, timeout_ms, cancel, &r);
	free(data);
	if (err) {
		snprintf(why, TRANSPORT_ERROR_MAX, "%s", r.error);
		return RETRY;
	}
	if (!agent__reply_allows(a, &r) || r.status >= 500 || r.status == 429 ||
	    r.status == 408) {
		msg_format(why, TRANSPORT_ERROR_MAX, MSG_AGENT_WORKSPACE_ANSWERED, r.status);
		http_reply__release(&r);
		return RETRY;
	}
	if (r.status != 200) {
		/* Refused for what it is: sent again it would be refused again. */
		msg_error(MSG_AGENT_BATCH_REFUSED, name, r.status, r.body);
		http_reply__release(&r);
		spool__drop(a->spool, name);
		return DELIVERED;
	}
	reply = slideops__agent__batch_reply__unpack(NULL, r.len, (uint8_t *)r.body);
	http_reply__release(&r);
	if (!reply) {
		msg_error(MSG_AGENT_WORKSPACE_BAD_REPLY, "/agent/batch");
		return RETRY;
	}
	msg_fprint(stderr, reply->duplicate ? MSG_AGENT_BATCH_DUPLICATE : MSG_AGENT_BATCH_DELIVERED,
		   name, reply->profile_id);
	slideops__agent__batch_reply__free_unpacked(reply, NULL);
	err = spool__remove(a->spool, name);
	if (err)
		msg_error(MSG_AGENT_SPOOL_UNREADABLE, name, strerror(-err));
	return DELIVERED;
}

static void deadline(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * NSEC_PER_MSEC;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void *sender__main(void *ctx)
{
	struct agent *a = ctx;
	struct transport *t = transport__new(a->opts->workspace, a->opts->ca_file);
	struct backoff backoff;
	int64_t next_try_ns = 0; /* monotonic; 0: now */
	bool empty = false;

	if (!t) {
		msg_error(MSG_OUT_OF_MEMORY);
		return NULL;
	}
	transport__set_credential(t, a->cred.credential);
	backoff__init(&backoff, DELIVERY_FIRST_MS, DELIVERY_CAP_MS,
		      (uint64_t)clock__monotonic_ns() ^ (uint64_t)(uintptr_t)a);
	pthread_mutex_lock(&a->lock);
	while (!a->sender_quit && !a->fatal) {
		struct timespec until;
		int64_t now = clock__monotonic_ns(), wait_ms = 1000;

		if (a->progress_dirty) {
			post_progress(a, t);
			continue;
		}
		if (a->workspace_returned) {
			a->workspace_returned = false;
			backoff__reset(&backoff);
			next_try_ns = 0;
			empty = false;
		}
		if (a->batch_waiting) {
			a->batch_waiting = false;
			empty = false;
			if (!backoff.failures)
				next_try_ns = 0;
		}
		if (!empty && now >= next_try_ns) {
			char why[TRANSPORT_ERROR_MAX] = "";
			enum delivery d;

			pthread_mutex_unlock(&a->lock);
			d = deliver_one(a, t, BATCH_TIMEOUT_MS, &a->fatal, why);
			pthread_mutex_lock(&a->lock);
			if (d == RETRY) {
				uint64_t delay = backoff__next(&backoff);

				next_try_ns = clock__monotonic_ns() +
					      (int64_t)delay * NSEC_PER_MSEC;
				if (!a->fatal)
					msg_fprint(stderr, MSG_AGENT_BATCH_WAITS, why,
						   (unsigned long long)((delay + 999) / 1000));
			} else {
				backoff__reset(&backoff);
				empty = d == EMPTY;
			}
			continue;
		}
		if (!empty && next_try_ns > now && (next_try_ns - now) / NSEC_PER_MSEC < wait_ms)
			wait_ms = (next_try_ns - now) / NSEC_PER_MSEC + 1;
		deadline(&until, wait_ms);
		pthread_cond_timedwait(&a->wake, &a->lock, &until);
	}
	/* The last progress (a capture stopped by SIGTERM says where it got to). */
	if (a->progress_dirty && !a->fatal)
		post_progress(a, t);
	pthread_mutex_unlock(&a->lock);
	transport__free(t);
	return NULL;
}

void sender__flush(struct agent *a, struct transport *t)
{
	/* Each batch once, briefly: what does not go now goes at the next start. */
	char why[TRANSPORT_ERROR_MAX];

	for (int i = 0; i < 1000 && !a->fatal && !*a->quit; i++)
		if (deliver_one(a, t, 10000, a->quit, why) != DELIVERED)
			break;
}
