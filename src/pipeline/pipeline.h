/* SPDX-License-Identifier: MIT */
/*
 * The capture pipeline: capture -> read binaries -> symbolize -> analyse. One library
 * call used by the command line, the workspace server and agents alike; the caller
 * decides where the result is kept (pipeline_result__save keeps it in a workspace).
 *
 * It never prints: progress and errors go to the caller's callbacks, each error as a
 * message of the one table (util/messages.def) with its text formatted. It can run
 * inside someone else's event loop: pipeline__fd is readable when the kernel has
 * records, pipeline__timeout_ms says when to call pipeline__step at the latest.
 * pipeline__run is the same loop for callers without one.
 *
 * Lifecycle: pipeline__start (checks, loads, attaches: sampling has begun) ->
 * pipeline__step until it returns 1 (duration over, or pipeline__stop) ->
 * pipeline__finish (detaches; reads binaries within their caps; names; analyses) ->
 * pipeline__free. Reading binaries happens only in pipeline__finish, never while
 * sampling, and is bounded per binary (bytes, sections, symbols, time) and in all:
 * a binary over a cap is recorded as not read, with the reason, and the capture
 * ends on time whatever the machine holds.
 */
#ifndef SLIDEOPS_PIPELINE_H
#define SLIDEOPS_PIPELINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "symbols/symbolize.h"
#include "util/messages.h"

struct analysis;
struct line_table;
struct service;
struct store;
struct symtab;

enum pipeline_phase {
	PIPELINE_SAMPLING, /* done, total: milliseconds sampled, of the duration */
	PIPELINE_READING,  /* done, total: binaries read, of those with frames */
	PIPELINE_SAVING,   /* the caller's: pipeline_result__save reports it */
	PIPELINE_DONE,
	PIPELINE_FAILED,
	PIPELINE_PHASE__COUNT,
};

/* "sampling", "reading", "saving", "done", "failed" (architecture.md's progress document). */
const char *pipeline_phase__name(enum pipeline_phase phase);

struct pipeline_progress {
	enum pipeline_phase phase;
	uint64_t done, total;
	/* This capture loads the profiler into the kernel (the first after a start or a
	 * removal, or any capture without a resident profiler): sampling starts later. */
	bool installing;
};

struct pipeline_callbacks {
	/* Called when the phase changes and about once a second within one. May be NULL. */
	void (*progress)(void *ctx, const struct pipeline_progress *progress);
	/* Every failure, in words: id is the message, text it formatted. May be NULL. */
	void (*error)(void *ctx, enum msg_id id, const char *text);
	void *ctx;
};

struct pipeline_options {
	enum question question;
	unsigned seconds;            /* how long to sample (threads: ignored, a snapshot) */
	unsigned hz;                 /* samples per second per CPU, where the question samples */
	const struct service *services; /* the workspace's Services, for the owner groups */
	size_t nservices;
	/* Tables already kept by build id (the workspace): names come from here first, and a
	 * binary whose build id has a table here is not read for its symbols again. NULL:
	 * none are kept. */
	const struct symbol_lookup *kept;
	/* 1 when a table of this build id is kept already, so its symbols need no reading
	 * (NULL: always read). */
	int (*has_symbols)(void *ctx, const char *build_id);
	void *has_symbols_ctx;
	/* Where unwind tables are kept by build id (DATA/profiler/unwind); NULL: built for
	 * each capture, kept nowhere. */
	const char *cache_dir;
	/* Kernel memory for unwind tables, in bytes (0: 64 MB). */
	uint64_t unwind_budget;
	/* The resident profiler whose loaded programs the capture uses (capture/profiler.h;
	 * its unwind tables in its DIR/unwind unless cache_dir is set). NULL: loaded for
	 * this capture alone, as the command line does. One capture at a time. */
	struct profiler *profiler;
	/* Non-zero ends what pipeline__start does before a snapshot (loading every
	 * process's tables, up to 5 s) early; pipeline__run passes its own. May be NULL. */
	volatile sig_atomic_t *stop;
};

/* A binary's own symbol table, read by this capture, for the caller to keep. */
struct pipeline_symbols {
	char build_id[BUILD_ID_HEX_MAX + 1];
	bool from_symtab;            /* .symtab; false: .dynsym */
	struct symtab *tab;
};

/* The source lines of a build's sampled addresses, for the caller to keep. */
struct pipeline_lines {
	char build_id[BUILD_ID_HEX_MAX + 1];
	struct line_table *table;
};

struct pipeline_result {
	struct profile *profile;     /* symbolized; header.not_read lists the binaries not read */
	struct analysis *analysis;   /* groups, answer, functions, card */
	struct pipeline_symbols *symbols; /* tables read from binaries, to keep by build id */
	size_t nsymbols;
	struct pipeline_lines *lines; /* line tables read from binaries, likewise */
	size_t nlines;
};

struct pipeline;
struct profiler;

/* Checks that this build and these privileges can answer the question, loads its BPF
 * programs and attaches them: sampling has begun. NULL with errno set, and the reason
 * reported through cb->error (EOPNOTSUPP: not built; EPERM: privileges). */
struct pipeline *pipeline__start(const struct pipeline_options *opts,
				 const struct pipeline_callbacks *cb);

/* A descriptor that is readable when records wait (epoll; poll it for POLLIN). */
int pipeline__fd(const struct pipeline *pl);
/* Milliseconds until pipeline__step must be called at the latest (0: now). */
int pipeline__timeout_ms(const struct pipeline *pl);
/* Drains what the kernel sent. 0: still sampling; 1: sampling is over (the duration,
 * or pipeline__stop); -errno on failure (reported). */
int pipeline__step(struct pipeline *pl);
/* Ends sampling at the next step; what was sampled is kept. Async-signal-safe. */
void pipeline__stop(struct pipeline *pl);

/* Detaches, then reads binaries, names and analyses. 0 and *out (release it with
 * pipeline_result__release), or -errno (reported). Only once. */
int pipeline__finish(struct pipeline *pl, struct pipeline_result *out);
/* Detaches everything (if still attached) and frees. NULL is a no-op. */
void pipeline__free(struct pipeline *pl);

/*
 * The whole pipeline with its own loop: start, sample until the duration ends or *stop
 * becomes non-zero (a signal handler or another thread sets it), finish. 0 and *out, or
 * -errno (reported through cb->error).
 */
int pipeline__run(const struct pipeline_options *opts, const struct pipeline_callbacks *cb,
		  volatile sig_atomic_t *stop, struct pipeline_result *out);

void pipeline_result__release(struct pipeline_result *r);

/*
 * Keeps a result in the workspace: its symbol and line tables by build id, then the
 * profile with its answer. Writes the new profile's id. 0 or -errno (reported; -ENOSPC: nothing is
 * kept half-written).
 */
int pipeline_result__save(const struct pipeline_result *r, struct store *s,
			  const struct pipeline_callbacks *cb, char id[40]);

/*
 * Before a capture into the workspace s: it can be written and has room for a profile
 * (STORE_SAVE_BYTES_MIN). 0, or -errno reported through cb->error (-EROFS a read-only
 * workspace, -ENOSPC a full one); nothing is loaded or sampled.
 */
int pipeline__check_workspace(struct store *s, const struct pipeline_callbacks *cb);

/*
 * A capture's thread runs at this nice value, from its start to its profile kept (and
 * the threads it starts inherit it), when the process may raise itself (root, or
 * CAP_SYS_NICE): about nine times a nice-0 thread's share of a busy CPU, so a capture of
 * a machine whose every CPU is taken still ends on time, drains its ring buffer before
 * it overflows, and keeps its profile, for its own few tenths of a second of CPU
 * (docs/resilience.md, "A saturated machine"). Set back when the capture is done.
 */
#define PIPELINE_NICE -10

/* What a capture into a workspace samples. */
struct workspace_capture {
	enum question question;
	unsigned seconds;
	unsigned hz;
	struct profiler *profiler; /* resident (pipeline_options.profiler); NULL: none */
};

/*
 * A capture kept in the workspace s: the one entry the command line and the server both
 * call, so that their captures are the same. pipeline__check_workspace first (a refusal
 * samples nothing), then the pipeline with the workspace's Services for the owner
 * groups, its kept symbol tables for names, and its unwind-table cache
 * (DIR/profiler/unwind, the installed profiler); then pipeline_result__save. Sampling
 * ends at the duration or when *stop becomes non-zero. 0 with *out (release it with
 * pipeline_result__release) and the new profile's id, or -errno (reported).
 */
int pipeline__capture_workspace(struct store *s, const struct workspace_capture *wc,
				const struct pipeline_callbacks *cb, volatile sig_atomic_t *stop,
				struct pipeline_result *out, char id[40]);

#endif
