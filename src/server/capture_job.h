/* SPDX-License-Identifier: MIT */
/*
 * One capture at a time on a server, run on a worker thread so requests go on being
 * answered. The pipeline (pipeline/pipeline.h) reports progress into a status that
 * GET polls; Stop sets the pipeline's stop flag, which ends sampling and keeps what was
 * sampled, as Ctrl-C does on the command line.
 */
#ifndef SLIDEOPS_SERVER_CAPTURE_JOB_H
#define SLIDEOPS_SERVER_CAPTURE_JOB_H

#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "views/views.h"

struct profiler;

struct capture_job {
	pthread_mutex_t lock;
	char data_dir[PATH_MAX];
	char server[64];          /* the server's name, for the refusal */
	bool running;             /* a worker owns the job */
	bool started;             /* a capture ran since serve started */
	enum question question;
	unsigned seconds;
	int64_t started_at_ns;
	int phase;                /* enum pipeline_phase */
	uint64_t done, total;
	char profile_id[40];
	char error[VIEW_ERROR_MAX];
	volatile sig_atomic_t stop;
	pthread_t thread;
	struct profiler *profiler; /* resident (capture/profiler.h); NULL: loaded each time */
	bool installing;          /* this capture loads the profiler into the kernel */
};

/* profiler: the machine's resident profiler the captures use (not owned); NULL: each
 * capture loads its programs afresh. */
int capture_job__init(struct capture_job *job, const char *data_dir, const char *server,
		      struct profiler *profiler);
/* Waits for a running capture to end (it is stopped first). */
void capture_job__fini(struct capture_job *job);

/* Starts a capture: 0, or -1 with e set (409 when one is running, naming it). */
int capture_job__start(struct capture_job *job, enum question q, unsigned seconds, unsigned hz,
		       struct view_error *e);
/* Ends sampling of the running capture; what was sampled is kept. */
int capture_job__stop(struct capture_job *job, struct view_error *e);
/* architecture.md's progress document: {"phase", "done", "total", "profile_id", ...}. */
json_t *capture_job__status(struct capture_job *job);
bool capture_job__running(struct capture_job *job);

#endif
