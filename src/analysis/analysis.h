/* SPDX-License-Identifier: MIT */
/*
 * What a symbolized profile says: the owner groups and their shares, "most of it in",
 * the answer sentence (architecture.md), the top functions, the stripped-binary card, and
 * what changed between two profiles. Never reads /proc, never touches BPF.
 */
#ifndef SLIDEOPS_ANALYSIS_H
#define SLIDEOPS_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

struct analysis_process {
	int32_t pid;
	const char *comm;
	int64_t value;
	double share;
};

struct analysis_group {
	const char *label;   /* "Service billing" */
	enum group_kind kind;
	const char *name;    /* "billing" */
	int64_t value;       /* in the question's main unit */
	double share;        /* cpu: of the server's CPU time; else of the profile's total */
	const char *top_function; /* "most of it in"; NULL when nothing fits */
	/* What the question measures of the group beyond these (wall: its running and
	 * waiting; memory: its net change, its resident memory from the capture's start to
	 * its end): a struct of the question's folder (src/questions/NAME/NAME_own.h),
	 * which only its plug-in makes and reads, in the analysis's own (below). NULL:
	 * none (cpu). */
	void *own;
	struct analysis_process *processes;
	size_t nprocesses;
};

struct analysis_function {
	const char *name;
	enum language language;
	double self, total;  /* shares of the profile's total */
	int64_t self_value, total_value; /* in the question's main unit */
};

struct analysis_stripped {
	const char *path;
	double share;
	const char *build_id; /* full hex; "" when the binary has none */
	bool has_build_id;
	bool build_id_recorded; /* false: captured before SlideOps kept build ids */
};

/* A binary of the user's, without names, where stacks begin: its unnamed entry (a stripped
 * binary's _start) is the outermost frame. Its debug symbols would name it. */
#define ANALYSIS_UNNAMED_STARTS 3

struct analysis_unnamed_start {
	const char *path;
	double share;       /* of the main value of the samples with a user stack */
};

struct analysis {
	const struct profile *profile;
	char *answer;
	struct analysis_group *groups;   /* largest first */
	size_t ngroups;
	struct analysis_function *functions; /* largest self first */
	size_t nfunctions;
	struct analysis_stripped *stripped;  /* largest first */
	size_t nstripped;
	bool build_ids_missing;  /* captured without build ids: capture again, then upload */
	int64_t total;           /* the main value over all samples */
	int64_t share_of;        /* what group shares are of: cpu ncpus x duration, else total */
	const char *unit;        /* the main value's unit: "nanoseconds", "bytes", "count" */
	/* Stack quality: the share of the main value whose user stacks are whole, of the
	 * samples with a user stack that begins in named code; -1 when none has one. Whole:
	 * the outermost frame is a root (_start, __libc_start_main, clone, start_thread...),
	 * or is unnamed and calls one (a stripped binary's _start, an unnamed clone3). The
	 * walker's exits are in the profile's header. */
	double stacks_complete;
	/* The user's stripped binaries whose unnamed code begins stacks, largest first:
	 * what they are is told by their debug symbols, not by us. */
	struct analysis_unnamed_start unnamed_starts[ANALYSIS_UNNAMED_STARTS];
	size_t nunnamed_starts;
	/* The question's own data of this analysis (wall: its waiting by why; threads: its
	 * sets of threads; locks: its locks by address), which its groups' own point into:
	 * one malloc'd block its analyse made (src/questions/NAME/NAME_own.h), freed with
	 * the analysis. NULL: none. */
	void *own;
};

/* "The stacks of billing-worker start in unnamed code: upload its debug symbols ...". */
void analysis__unnamed_start_sentence(const struct analysis_unnamed_start *u, char *out,
				      size_t size);

/* The name of a function where a whole user stack begins: a process's or a thread's
 * entry point (_start, __libc_start_main, __libc_start_call_main, clone, clone3,
 * start_thread, in any of libc's spellings: __clone3, __GI___clone3, name@@VERSION). */
bool analysis__is_stack_root(const char *name);

/* p must be symbolized (profile__symbolize). NULL with errno on ENOMEM. */
struct analysis *analysis__new(const struct profile *p);
void analysis__free(struct analysis *a);

#endif
