/* SPDX-License-Identifier: MIT */
/*
 * memory: each owner group's resident memory at a capture's start and end. Each end is a
 * snapshot of every process's resident memory (/proc/PID/status: anonymous and shared
 * apart from file-backed) with its owner; the groups' sums go into the profile's header
 * (struct memory_owners, its header.own) and pprof's (memory_header.c). A process is its pid and its start time (a pid reused is another
 * process): one gone by the end counts 0 there (it shrank to 0, and exited), one new at
 * the end counts 0 at the start (it grew from 0, and started). A process that moved to
 * another owner counts in its first owner at the start and its second at the end.
 */
#ifndef SLIDEOPS_QUESTIONS_MEMORY_OWNERS_H
#define SLIDEOPS_QUESTIONS_MEMORY_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* One owner group's resident memory when the capture started and when it ended, summed
 * over its processes: anonymous and shared (RssAnon + RssShmem) as rss, file-backed
 * (RssFile) apart. A process absent at one end counts 0 there: one gone by the end shrank
 * to 0, one new at the end grew from 0 (each counted in exited, started). */
struct memory_owner {
	uint32_t group;      /* string id of the label: "Service billing" */
	enum group_kind kind;
	uint64_t rss_start, rss_end;   /* bytes */
	uint64_t file_start, file_end; /* bytes */
	uint32_t started, exited;      /* processes */
};

/* A memory profile's header.own: its owners, one a group label. */
struct memory_owners {
	struct memory_owner *owners;
	uint32_t n, cap;
};

/* p's owners; NULL when it has none (another question, or an older capture). */
struct memory_owners *memory_owners__of(const struct profile *p);
/* The owner group labelled label of a memory profile's header, added as new when it has
 * none of that label yet: NULL on ENOMEM (or when p is another question's). */
struct memory_owner *memory_owners__add(struct profile *p, const char *label,
					enum group_kind kind);

/* The plug-in's header hooks (question.h): header.own freed, written to and read from
 * pprof's SlideopsHeader.owner_memory, its counters clamped (memory_header.c). */
struct pprof_header_out;
struct pprof_header_in;
void memory_owners__free(void *own);
int memory_owners__encode(const struct profile *p, struct pprof_header_out *out);
int memory_owners__decode(struct profile *p, const struct pprof_header_in *in);
void memory_owners__clamp(struct profile *p, uint64_t most);

struct memory_process {
	int32_t pid;
	uint64_t start_ticks;  /* with pid, which process it is */
	uint64_t rss, file;    /* bytes: anonymous and shared; file-backed */
	uint32_t group;        /* string id of its owner's label in the profile */
	enum group_kind kind;
};

struct memory_snapshot {
	struct memory_process *procs;
	size_t n, cap;
	bool complete;         /* every process was read (not stopped by its time budget) */
};

/* 0 or -ENOMEM. */
int memory_snapshot__add(struct memory_snapshot *s, const struct memory_process *proc);
void memory_snapshot__free(struct memory_snapshot *s);

/* Sums the two ends per owner into p's header's owners (sorting both snapshots). 0 or
 * -ENOMEM. */
int memory_owners__sum(struct profile *p, struct memory_snapshot *start,
		       struct memory_snapshot *end);

#endif
