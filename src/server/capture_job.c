// SPDX-License-Identifier: MIT
/* A capture on a worker thread, with its progress kept for polling. See capture_job.h. */
#include "server/capture_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/profiler.h"
#include "pipeline/pipeline.h"
#include "store/store.h"
#include "util/clock.h"

static const char *const phase_names[] = {
	[PIPELINE_SAMPLING] = "sampling",
	[PIPELINE_READING] = "reading",
	[PIPELINE_SAVING] = "saving",
	[PIPELINE_DONE] = "done",
	[PIPELINE_FAILED] = "failed",
};

int capture_job__init(struct capture_job *job, const char *data_dir, const char *server,
		      struct profiler *profiler)
{
	memset(job, 0, sizeof(*job));
	job->profiler = profiler;
	snprintf(job->data_dir, sizeof(job->data_dir), "%s", data_dir);
	snprintf(job->server, sizeof(job->server), "%s", server);
	return -pthread_mutex_init(&job->lock, NULL);
}

void capture_job__fini(struct capture_job *job)
{
	bool running;

	pthread_mutex_lock(&job->lock);
	running = job->running;
	job->stop = 1;
	pthread_mutex_unlock(&job->lock);
	if (running)
		pthread_join(job->thread, NULL);
	pthread_mutex_destroy(&job->lock);
}

static void on_progress(void *ctx, const struct pipeline_progress *pr)
{
	struct capture_job *job = ctx;

	pthread_mutex_lock(&job->lock);
	job->phase = pr->phase;
	job->done = pr->done;
	job->total = pr->total;
	if (pr->phase == PIPELINE_SAMPLING)
		job->installing = pr->installing;
	pthread_mutex_unlock(&job->lock);
}

static void on_error(void *ctx, enum msg_id id, const char *text)
{
	struct capture_job *job = ctx;

	(void)id;
	pthread_mutex_lock(&job->lock);
	/* The first error is the cause; later ones follow from it. */
	if (!job->error[0])
		snprintf(job->error, sizeof(job->error), "%s", text);
	pthread_mutex_unlock(&job->lock);
}

/* Ends the job with phase, and an error text when it failed without saying why. */
static void finish(struct capture_job *job, enum pipeline_phase phase, const char *id, int err)
{
	pthread_mutex_lock(&job->lock);
	job->phase = phase;
	if (id)
		snprintf(job->profile_id, sizeof(job->profile_id), "%s", id);
	if (phase == PIPELINE_FAILED && !job->error[0])
		msg_format(job->error, sizeof(job->error), MSG_API_CAPTURE_FAILED,
			   strerror(err > 0 ? err : -err));
	pthread_mutex_unlock(&job->lock);
}

struct job_args {
	struct capture_job *job;
	unsigned hz;
};

static void *capture_job__main(void *arg)
{
	struct job_args *a = arg;
	struct capture_job *job = a->job;
	struct pipeline_callbacks cb = { on_progress, on_error, job };
	struct workspace_capture wc = { job->question, job->seconds, a->hz, job->profiler };
	struct pipeline_result result;
	char id[40] = "";
	struct store *s;
	int err;

	free(a);
	s = store__open(job->data_dir);
	if (!s) {
		finish(job, PIPELINE_FAILED, NULL, errno);
		goto out;
	}
	/* The command line's capture, the same entry: pipeline/pipeline.h. */
	err = pipeline__capture_workspace(s, &wc, &cb, &job->stop, &result, id);
	if (!err)
		pipeline_result__release(&result);
	finish(job, err ? PIPELINE_FAILED : PIPELINE_DONE, err ? NULL : id, err);
	store__close(s);
out:
	pthread_mutex_lock(&job->lock);
	job->running = false;
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

/* A capture the workspace could not keep is refused before it starts (507), with the
 * reason the capture itself would give. */
static void on_refusal(void *ctx, enum msg_id id, const char *text)
{
	struct view_error *e = ctx;

	if (e->status)
		return;
	e->id = id;
	e->status = 507;
	snprintf(e->text, sizeof(e->text), "%s", text);
}

static int check_workspace(struct capture_job *job, struct view_error *e)
{
	struct pipeline_callbacks cb = { .error = on_refusal, .ctx = e };
	struct store *s = store__open_again(job->data_dir);
	int err;

	/* A workspace that cannot be opened fails the capture itself, saying why. */
	if (!s)
		return 0;
	e->status = 0;
	err = pipeline__check_workspace(s, &cb);
	store__close(s);
	return err;
}

int capture_job__start(struct capture_job *job, enum question q, unsigned seconds, unsigned hz,
		       struct view_error *e)
{
	struct job_args *a;
	char when[32];
	int err;

	if (check_workspace(job, e))
		return -1;
	pthread_mutex_lock(&job->lock);
	if (job->running) {
		views__format_time(job->started_at_ns, when);
		view_error__set(e, 409, MSG_API_CAPTURE_BUSY, job->server,
				question__title(job->question), when);
		pthread_mutex_unlock(&job->lock);
		return -1;
	}
	/* The previous worker has ended: reap it before this one takes its place. */
	if (job->started)
		pthread_join(job->thread, NULL);
	a = malloc(sizeof(*a));
	if (!a) {
		pthread_mutex_unlock(&job->lock);
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		return -1;
	}
	*a = (struct job_args){ job, hz };
	job->question = q;
	job->seconds = seconds;
	job->started_at_ns = clock__realtime_ns();
	job->phase = PIPELINE_SAMPLING;
	job->done = 0;
	job->total = question__is_snapshot(q) ? 0 : (uint64_t)seconds * 1000;
	job->profile_id[0] = '\0';
	job->error[0] = '\0';
	job->stop = 0;
	job->installing = !job->profiler || profiler__will_install(job->profiler, q);
	job->running = true;
	job->started = false;
	err = pthread_create(&job->thread, NULL, capture_job__main, a);
	if (err) {
		job->running = false;
		pthread_mutex_unlock(&job->lock);
		free(a);
		view_error__set(e, 500, MSG_API_CAPTURE_FAILED, strerror(err));
		return -1;
	}
	job->started = true;
	pthread_mutex_unlock(&job->lock);
	return 0;
}

int capture_job__stop(struct capture_job *job, struct view_error *e)
{
	int ret = 0;

	pthread_mutex_lock(&job->lock);
	if (job->running && job->phase == PIPELINE_SAMPLING)
		job->stop = 1;
	else if (!job->running) {
		view_error__set(e, 409, MSG_API_CAPTURE_NONE, job->server);
		ret = -1;
	}
	pthread_mutex_unlock(&job->lock);
	return ret;
}

bool capture_job__running(struct capture_job *job)
{
	bool running;

	pthread_mutex_lock(&job->lock);
	running = job->running;
	pthread_mutex_unlock(&job->lock);
	return running;
}

json_t *capture_job__status(struct capture_job *job)
{
	char when[32], note[VIEW_ERROR_MAX] = "";
	json_t *doc;

	pthread_mutex_lock(&job->lock);
	if (!job->started) {
		pthread_mutex_unlock(&job->lock);
		return json_pack("{s:b, s:n}", "running", 0, "phase");
	}
	views__format_time(job->started_at_ns, when);
	if (job->installing)
		msg_format(note, sizeof(note), MSG_API_CAPTURE_INSTALLING, job->server);
	doc = json_pack("{s:b, s:s, s:I, s:I, s:s?, s:s, s:s, s:I, s:s, s:b, s:s?}", "running",
			job->running, "phase",
			job->phase >= 0 && job->phase < PIPELINE_PHASE__COUNT ?
				phase_names[job->phase] : "failed",
			"done", (json_int_t)job->done, "total", (json_int_t)job->total,
			"profile_id", job->profile_id[0] ? job->profile_id : NULL, "question",
			question__id(job->question), "title", question__title(job->question),
			"seconds", (json_int_t)job->seconds, "started_at", when, "stopping",
			job->stop != 0, "error", job->error[0] ? job->error : NULL);
	/* The first capture after a start or a removal loads the profiler: it says so. */
	if (doc && (json_object_set_new(doc, "installing", json_boolean(job->installing)) ||
		    json_object_set_new(doc, "note", note[0] ? json_string(note) : json_null()))) {
		json_decref(doc);
		doc = NULL;
	}
	pthread_mutex_unlock(&job->lock);
	return doc;
}
