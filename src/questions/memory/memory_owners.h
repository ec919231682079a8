/* SPDX-License-Identifier: MIT */
/*
 * memory: each owner group's resident memory at a capture's start and end. Each end is a
 * snapshot of every process's resident memory (/proc/PID/status: anonymous and shared
 * apart from file-backed) with its owner; the groups' sums go into the profile's header
 * (prof_owner_memory). A process is its pid and its start time (a pid reused is another
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

/* Sums the two ends per owner into p's header.owner_memory (sorting both snapshots). 0 or
 * -ENOMEM. */
int memory_owners__sum(struct profile *p, struct memory_snapshot *start,
		       struct memory_snapshot *end);

#endif
