/* SPDX-License-Identifier: MIT */
/*
 * A capture: load a question's BPF programs, sample every process on the machine for N
 * seconds, and turn raw events into a profile (pid -> process and owner, address ->
 * mapping + ELF address + build id). The rest of the program never sees BPF.
 */
#ifndef SLIDEOPS_CAPTURE_H
#define SLIDEOPS_CAPTURE_H

#include <signal.h>
#include <stdbool.h>

#include "profile/profile.h"

struct owner_resolver;
struct store;

struct capture_options {
	enum question question;
	unsigned seconds;
	unsigned hz;
	bool progress;                     /* a countdown on stderr */
	volatile sig_atomic_t *stop;       /* set (by SIGINT) to end early and keep the rest */
	struct owner_resolver *owners;
	struct store *store;               /* symbol tables are cached here by build id */
};

/* 0 and *out; -errno with a message already printed. */
int capture__run(const struct capture_options *opts, struct profile **out);

/* Before anything else: this build captures q (-EOPNOTSUPP otherwise) and we run with
 * the privileges a capture needs (-EPERM otherwise), each with a message printed. */
int capture__preflight(enum question q);

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
	bool questions[QUESTION__COUNT]; /* can run here: this kernel, this build */
	bool kernel_supports[QUESTION__COUNT]; /* the kernel has what the question needs */
	char question_details[QUESTION__COUNT][256]; /* why not, or "can run here" */
};

/* Probes features by doing them (load a tiny program, attach, open a perf event). */
void capture__check(struct check_result *out);

#endif
