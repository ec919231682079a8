/* SPDX-License-Identifier: MIT */
/*
 * What the agent's threads share: the poll loop (agent.c, the main thread), the capture
 * runner (runner.c, one thread a capture) and the sender (sender.c: progress and
 * batches). One lock guards the fields marked so; the condition wakes the sender.
 */
#ifndef SLIDEOPS_AGENT_STATE_H
#define SLIDEOPS_AGENT_STATE_H

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent.pb-c.h"
#include "agent/agent.h"
#include "agent/backoff.h"
#include "agent/credential.h"
#include "profile/profile.h"

#define AGENT_PROTOCOL_VERSION 2
#define AGENT_ID_MAX 128
#define AGENT_TEXT_MAX 512
/* Polls (and enrolment) after a failure: first within a second, at most every 40 s, so
 * that a workspace that returns is reached within 60 s (docs/protocol.md). */
#define POLL_FIRST_MS 1000
#define POLL_CAP_MS 40000
#define ENROL_TIMEOUT_MS 15000

struct agent_profiler;
struct spool;
struct transport;
struct http_reply;

struct agent {
	const struct agent_options *opts;
	struct agent_identity identity;
	struct agent_credential cred;
	struct agent_profiler *profiler;
	struct spool *spool;
	volatile sig_atomic_t *quit;       /* the signal handlers' */
	/* A thread met a 401, 426 or 410 (or the poll REMOVED): every loop ends. The first
	 * to set it (under lock) decides how the agent ends: exit_code, or removed. */
	volatile sig_atomic_t fatal;
	int exit_code;                     /* under lock: what agent__run returns */
	bool removed;                      /* under lock: the server was removed (410) */

	pthread_mutex_t lock;
	pthread_cond_t wake;               /* the sender's */
	bool sender_quit;                  /* under lock */

	/* The capture (under lock; the runner's thread reads its own command freely). */
	bool capture_running;
	bool capture_joinable;
	pthread_t capture_thread;
	char capture_id[AGENT_ID_MAX];
	enum question capture_question;
	unsigned capture_seconds, capture_hz;
	int64_t capture_started_ns;        /* realtime */
	volatile sig_atomic_t capture_stop;

	/* The latest progress, for the sender to post (under lock). */
	bool progress_dirty;
	char progress_capture_id[AGENT_ID_MAX];
	char progress_phase[16];
	uint64_t progress_done, progress_total;
	char progress_error[AGENT_TEXT_MAX];
	char progress_note[AGENT_TEXT_MAX];

	/* check's answer, made at the first CHECK and kept (the main thread's). */
	struct check_result *check;

	/* Builds whose symbol tables the workspace keeps (the runner's alone: one capture
	 * at a time). */
	char **workspace_builds;
	size_t nworkspace_builds;

	/* Delivery (under lock). */
	bool workspace_returned;           /* the poll worked again after failing */
	bool batch_waiting;                /* a batch was spooled since the sender looked */
};

/* Starts a capture thread for cmd (under no lock). 0, or the HTTP status of a refusal
 * with *doc its {"error", "hint"} (409: one runs already). */
int runner__start(struct agent *a, const Slideops__Agent__Command *cmd, json_t **doc);
/* Ends the running capture's sampling (its result is still delivered). */
void runner__stop(struct agent *a, const char *capture_id);
/* Waits for the capture thread, if one ran. */
void runner__join(struct agent *a);

/* The sender's thread: posts progress and delivers the spool until told to quit. */
void *sender__main(void *ctx);
/* Delivers what waits in the spool now, each batch tried once (at exit). */
void sender__flush(struct agent *a, struct transport *t);

/* The workspace keeps build_id's symbol table (symbols-wanted said so). */
void agent__workspace_has(struct agent *a, const char *build_id);
/* pipeline_options.has_symbols: 1 when the workspace keeps it, so it is not read. */
int agent__workspace_keeps(void *ctx, const char *build_id);

/* Records progress for the sender and wakes it. */
void agent__progress(struct agent *a, const char *capture_id, const char *phase,
		     uint64_t done, uint64_t total, const char *error, const char *note);
/* The reply of any request says the agent may go on: 401 and 426 end it (said, with the
 * exit code kept), 410 too (agent__server_removed). True when it may go on. */
bool agent__reply_allows(struct agent *a, const struct http_reply *r);
/* The workspace said this server was removed (410, or REMOVED in a poll), whichever
 * thread heard it first: every loop ends, and once they have, agent__run removes the
 * profiler, the spool and the credential and exits 0. */
void agent__server_removed(struct agent *a);
/* The "error" of an error document, or the body itself when it is not one; *doc is the
 * parsed document, for the caller to release. */
const char *agent__error_text(const struct http_reply *r, json_t **doc);
/* Sleeps ms, or less when told to end. */
void agent__nap(struct agent *a, uint64_t ms);

/* The agent's credential (enrol.c): the one kept in DATA, else one got by enrolling with
 * the enrolment token. 0, or -errno (said). */
int agent__credential(struct agent *a, struct transport *t);

#endif
