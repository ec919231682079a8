/* SPDX-License-Identifier: MIT */
/*
 * The capture engine: load a question's BPF program, sample every process on the machine,
 * and turn its records into a profile (pid -> process and owner, address -> mapping +
 * file offset). The rest of the program never sees BPF.
 *
 * A capture session owns the whole lifecycle: open (load, attach: sampling begins), run
 * in the caller's loop (a descriptor to poll, a step to call), stop early on request,
 * end (detach, drain, the last records), free. Nothing here reads a binary's contents:
 * a binary met while sampling is only opened (so it can still be read after the process
 * is gone) and its frames keep their file offsets; binaries__read (binaries.h) reads them
 * afterwards, within caps. Errors are reported through a struct report, never printed.
 *
 * A question's own part of a capture (its program, how it attaches, what its records
 * mean) is its plug-in's struct capture_question (src/questions/, capture_internal.h).
 */
#ifndef SLIDEOPS_CAPTURE_H
#define SLIDEOPS_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "util/messages.h"

struct binaries;
struct capture_session;
struct owner_resolver;
struct profiler;

struct capture_config {
	enum question question;
	unsigned seconds;            /* ignored by snapshot questions */
	unsigned hz;                 /* where the question samples on a clock */
	struct owner_resolver *owners;
	const struct report *report; /* where errors go; may be NULL */
	/* Unwind tables: where they are kept by build id (the profiler's own directory,
	 * e.g. DATA/profiler/unwind; NULL: built each time, kept nowhere), and the kernel
	 * memory the walker's maps may take (0: 64 MB). */
	const char *cache_dir;
	uint64_t unwind_budget;
	/* What a snapshot does before its moment (every process's tables loaded first):
	 * milliseconds done, of at most total, about four times a second. NULL: nothing. */
	void (*progress)(void *ctx, uint64_t done_ms, uint64_t total_ms);
	void *progress_ctx;
	/* Non-zero ends that early (a signal handler's flag). NULL: never. */
	volatile sig_atomic_t *stop;
	/* The resident profiler whose loaded objects the capture uses (capture/profiler.h),
	 * its unwind tables kept in DIR/unwind unless cache_dir says otherwise. NULL: the
	 * question's object is loaded for this capture alone. */
	struct profiler *profiler;
};

/* q is a question (-EOPNOTSUPP otherwise) and we run with the privileges a capture
 * needs (-EPERM otherwise), each reported. */
int capture__preflight(enum question q, const struct report *r);

/* Loads the question's programs and attaches them: sampling has begun when it returns.
 * NULL with errno set, the reason reported. */
struct capture_session *capture_session__open(const struct capture_config *c);
/* This capture loaded its question's programs (always, without a resident profiler);
 * false: it found them loaded. */
bool capture_session__installed(const struct capture_session *s);
/* Readable (POLLIN) when records wait in the ring buffer. */
int capture_session__fd(const struct capture_session *s);
/* Milliseconds until capture_session__step must run at the latest. */
int capture_session__timeout_ms(const struct capture_session *s);
/* Drains the ring buffer. 0: sampling goes on; 1: it is over (the duration, or a stop);
 * -errno, reported. */
int capture_session__step(struct capture_session *s);
/* Ends sampling at the next step, keeping what was sampled. Async-signal-safe. */
void capture_session__stop(struct capture_session *s);
/* Milliseconds sampled so far, and of how many. */
void capture_session__elapsed(const struct capture_session *s, uint64_t *done_ms,
			      uint64_t *total_ms);
/*
 * Detaches, takes the last records and the kernel's counters, and completes the profile:
 * every sample in, kernel frames named (true only on this boot). Frames of binaries still
 * hold file offsets until binaries__read. 0 or -errno, reported.
 */
int capture_session__end(struct capture_session *s);
/* The profile and the binaries it met; both stay the session's. */
struct profile *capture_session__profile(struct capture_session *s);
struct binaries *capture_session__binaries(struct capture_session *s);
/* Hands the profile over: the session no longer frees it. */
struct profile *capture_session__take_profile(struct capture_session *s);
/* Detaches whatever is still attached and frees. NULL is a no-op. */
void capture_session__free(struct capture_session *s);

/* ---- can this server be profiled (`slideops check`) ---- */

struct requirement {
	const char *name;    /* "privileges", "kernel BTF", ... */
	bool ok;
	char detail[256];    /* what was found, and what to do when not ok */
};

#define CHECK_MAX_REQUIREMENTS 12

struct check_result {
	struct requirement requirements[CHECK_MAX_REQUIREMENTS];
	unsigned nrequirements;
	bool questions[QUESTION__COUNT]; /* can run here: its programs load and attach */
	/* The kernel has what the question needs: the same as questions, every question
	 * being captured by this build (check --json keeps both keys). */
	bool kernel_supports[QUESTION__COUNT];
	char question_details[QUESTION__COUNT][512]; /* why not, or "can run here" */
	/* Where the kernel refused the full stack walker and the smaller one runs instead
	 * (docs/kernel.md): which program, what the verifier said, and the instructions it
	 * had processed (-1: not said). */
	struct walker_refusal {
		bool refused;
		char program[64];   /* "" when not known (the verifier ran out of time) */
		char verifier_said[192];
		long instructions;
	} walker[QUESTION__COUNT];
};
/* The refusal of question q's full walker on this kernel, as the last load found it. */
void capture__walker_refusal(int q, struct walker_refusal *out);

/* Probes features by doing them (load a tiny program, attach, open a perf event). */
void capture__check(struct check_result *out);

#endif
