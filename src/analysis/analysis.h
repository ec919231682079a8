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

/* locks: one lock (an address in one process, or in the kernel) and who waited on it. */
#define ANALYSIS_LOCK_WAITERS 3

struct analysis_lock_waiter {
	const char *name;   /* a function (where the wait came from) or a process's comm */
	int32_t pid;        /* processes: the pid; functions: 0 */
	int64_t wait_ns;
};

/* Who held a lock: a stack that released it (a futex wake) while others waited on it. */
struct analysis_lock_holder {
	const char *function; /* where the release came from, as "most of it in" picks it */
	const char *process;  /* the releasing process's comm */
	int32_t pid;
	int64_t ns;           /* the waiting its releases ended */
};

struct analysis_lock {
	uint64_t address;   /* the lock's address: a user address in pid, or a kernel one */
	const char *kind;   /* the lock_kind label: "futex", "kernel mutex", ... */
	int32_t pid;        /* the process whose memory holds a user lock; 0: the kernel's */
	int64_t contentions, wait_ns, longest_ns;
	double share;       /* of the profile's total wait */
	/* The largest first; empty names past the last. */
	struct analysis_lock_waiter functions[ANALYSIS_LOCK_WAITERS];
	struct analysis_lock_waiter processes[ANALYSIS_LOCK_WAITERS];
	/* The largest holders first; NULL functions past the last. Kernel locks: none (the
	 * kernel has no tracepoint at their release). */
	struct analysis_lock_holder holders[ANALYSIS_LOCK_WAITERS];
	int64_t held_ns;    /* the waiting all its seen releases ended */
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
	struct analysis_lock *locks;     /* locks: by address, the longest total wait first */
	size_t nlocks;
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
	/* The question's own data of this analysis, which its groups' own point into: one
	 * malloc'd block its analyse made (NAME_own.h), freed with the analysis. NULL:
	 * none. */
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
