// SPDX-License-Identifier: MIT
/*
 * The capture runner: a CAPTURE command's pipeline, in this process, on a thread of its
 * own, with the profiler the agent keeps installed. Its progress goes to the sender;
 * its result becomes one Batch (batch.c) written to the spool before anyone is told.
 * SIGINT/SIGTERM and STOP end sampling early; what was sampled is still delivered.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_state.h"
#include "agent/batch.h"
#include "agent/installed.h"
#include "agent/spool.h"
#include "agent/transport.h"
#include "pipeline/pipeline.h"
#include "util/clock.h"
#include "util/messages.h"
#include "views/views.h"

#define SECONDS_MAX 3600
#define HZ_MAX 1000

struct run {
	struct agent *a;
	char capture_id[AGENT_ID_MAX];
	char first_error[AGENT_TEXT_MAX];
	char note[AGENT_TEXT_MAX];
};

static void on_progress(void *ctx, const struct pipeline_progress *p)
{
	struct run *run = ctx;

	/* Failures are posted with their words once the pipeline has returned. */
	if (p->phase == PIPELINE_FAILED)
		return;
	agent__progress(run->a, run->capture_id, pipeline_phase__name(p->phase), p->done,
			p->total, NULL, run->note);
}

static void on_error(void *ctx, enum msg_id id, const char *text)
{
	struct run *run = ctx;

	msg_error_text(id, text);
	if (!run->first_error[0])
		snprintf(run->first_error, sizeof(run->first_error), "%s", text);
}

/* Keeps result in the spool as one batch. 0 or -errno (said). */
static int spool_result(struct run *run, const struct pipeline_result *result)
{
	struct agent *a = run->a;
	struct transport *t = transport__new(a->opts->workspace, a->opts->ca_file);
	struct batch_counts counts;
	uint64_t sequence, dropped;
	size_t len = 0;
	void *data = NULL;
	int err;

	if (!t)
		return -ENOMEM;
	transport__set_credential(t, a->cred.credential);
	err = spool__reserve(a->spool, &sequence, &dropped);
	if (!err)
		err = batch__build(t, a, result, run->capture_id, sequence, dropped, &data, &len,
				   &counts);
	if (!err)
		err = spool__put(a->spool, sequence, data, len, dropped);
	transport__free(t);
	free(data);
	if (err) {
		msg_error(MSG_AGENT_SPOOL_FAILED, run->capture_id, strerror(-err));
		msg_format(run->first_error, sizeof(run->first_error), MSG_AGENT_SPOOL_FAILED,
			   run->capture_id, strerror(-err));
		return err;
	}
	msg_fprint(stderr, MSG_AGENT_CAPTURE_SPOOLED, run->capture_id, (unsigned long long)sequence,
		   (unsigned long long)len, (unsigned long long)counts.symbol_tables,
		   (unsigned long long)counts.symbols, (unsigned long long)counts.line_tables);
	pthread_mutex_lock(&a->lock);
	a->batch_waiting = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

static void *capture_main(void *ctx)
{
	struct run *run = ctx;
	struct agent *a = run->a;
	struct pipeline_callbacks cb = { on_progress, on_error, run };
	struct pipeline_result result;
	struct pipeline_options opts = {
		.question = a->capture_question,
		.seconds = a->capture_seconds,
		.hz = a->capture_hz,
		/* What the workspace keeps already is not read again. */
		.has_symbols = agent__workspace_keeps,
		.has_symbols_ctx = a,
	};
	int err;

	agent_profiler__options(a->profiler, &opts);
	if (agent_profiler__will_install(a->profiler, a->capture_question))
		snprintf(run->note, sizeof(run->note), "%s", msg_text(MSG_AGENT_NOTE_INSTALLING));
	msg_fprint(stderr, MSG_AGENT_CAPTURE_STARTED, run->capture_id,
		   question__id(a->capture_question), a->capture_seconds);
	err = pipeline__run(&opts, &cb, &a->capture_stop, &result);
	agent_profiler__used(a->profiler);
	if (!err) {
		agent__progress(a, run->capture_id, "saving", 0, 1, NULL, run->note);
		err = spool_result(run, &result);
		pipeline_result__release(&result);
	}
	if (err) {
		if (!run->first_error[0])
			snprintf(run->first_error, sizeof(run->first_error), "%s", strerror(-err));
		agent__progress(a, run->capture_id, "failed", 0, 0, run->first_error, run->note);
	}
	pthread_mutex_lock(&a->lock);
	a->capture_running = false;
	pthread_mutex_unlock(&a->lock);
	free(run);
	return NULL;
}

/* A refusal as the API gives it: status and {"error", "hint"}. */
static int refuse(json_t **doc, int status, enum msg_id id, ...)
{
	struct view_error e;
	va_list ap;

	va_start(ap, id);
	view_error__vset(&e, status, id, ap);
	va_end(ap);
	*doc = view_error__json(&e);
	return status;
}

int runner__start(struct agent *a, const Slideops__Agent__Command *cmd, json_t **doc)
{
	int q = cmd->question ? question__parse(cmd->question) : -1;
	sigset_t all, old;
	struct run *run;
	char when[32];
	int err;

	*doc = NULL;
	if (q < 0)
		return refuse(doc, 400, MSG_AGENT_BAD_QUESTION, cmd->question ? cmd->question : "");
	if (cmd->seconds < 1 || cmd->seconds > SECONDS_MAX || cmd->hz > HZ_MAX)
		return refuse(doc, 400, MSG_AGENT_BAD_CAPTURE, cmd->seconds, cmd->hz);
	pthread_mutex_lock(&a->lock);
	if (a->capture_running) {
		views__format_time(a->capture_started_ns, when);
		pthread_mutex_unlock(&a->lock);
		return refuse(doc, 409, MSG_API_CAPTURE_BUSY, a->cred.name,
			      question__title(a->capture_question), when);
	}
	pthread_mutex_unlock(&a->lock);
	runner__join(a); /* the last one has ended: reap it */

	run = calloc(1, sizeof(*run));
	if (!run)
		return refuse(doc, 500, MSG_OUT_OF_MEMORY);
	run->a = a;
	snprintf(run->capture_id, sizeof(run->capture_id), "%s",
		 cmd->capture_id ? cmd->capture_id : "");
	pthread_mutex_lock(&a->lock);
	a->capture_running = true;
	snprintf(a->capture_id, sizeof(a->capture_id), "%s", run->capture_id);
	a->capture_question = (enum question)q;
	a->capture_seconds = cmd->seconds;
	a->capture_hz = cmd->hz ? cmd->hz : 99;
	a->capture_started_ns = clock__realtime_ns();
	a->capture_stop = *a->quit ? 1 : 0;
	pthread_mutex_unlock(&a->lock);

	/* Signals are the main thread's: it tells the capture to stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&a->capture_thread, NULL, capture_main, run);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&a->lock);
	if (err) {
		a->capture_running = false;
	} else {
		a->capture_joinable = true;
	}
	pthread_mutex_unlock(&a->lock);
	if (err) {
		free(run);
		return refuse(doc, 500, MSG_AGENT_THREAD_FAILED, strerror(err));
	}
	return 0;
}

void runner__stop(struct agent *a, const char *capture_id)
{
	pthread_mutex_lock(&a->lock);
	if (a->capture_running && (!capture_id || !*capture_id ||
				   strcmp(capture_id, a->capture_id) == 0))
		a->capture_stop = 1;
	pthread_mutex_unlock(&a->lock);
}

void runner__join(struct agent *a)
{
	bool joinable;

	pthread_mutex_lock(&a->lock);
	joinable = a->capture_joinable;
	a->capture_joinable = false;
	pthread_mutex_unlock(&a->lock);
	if (joinable)
		pthread_join(a->capture_thread, NULL);
}
