/* SPDX-License-Identifier: MIT */
/*
 * The profiler an agent keeps installed (DATA/profiler): the one object the agent owns
 * for its whole life and hands to every capture, and Remove the profiler.
 *
 * It is the resident profiler (capture/profiler.h, DATA/profiler): each question's programs
 * loaded and verified at its first capture and kept, attached only while a capture runs;
 * Remove unloads them and deletes DATA/profiler and the capture files.
 */
#ifndef SLIDEOPS_AGENT_INSTALLED_H
#define SLIDEOPS_AGENT_INSTALLED_H

#include <jansson.h>
#include <stdbool.h>

#include "profile/profile.h"

struct agent_profiler;
struct pipeline_options;

/* The profiler of the data directory data (nothing is loaded yet). NULL with errno. */
struct agent_profiler *agent_profiler__open(const char *data);
void agent_profiler__close(struct agent_profiler *ap);

/* Fills what a capture takes of the profiler into opts. */
void agent_profiler__options(struct agent_profiler *ap, struct pipeline_options *opts);
/* Installed: a capture since the start or the last removal loaded it. */
bool agent_profiler__installed(struct agent_profiler *ap);
/* A capture of q now would load its programs first (its progress says so). */
bool agent_profiler__will_install(struct agent_profiler *ap, enum question q);
/* A capture has run with it (it is installed from now on). */
void agent_profiler__used(struct agent_profiler *ap);

/* Unloads and deletes the profiler and the capture files: 0 and *doc, the document
 * `slideops remove --json` prints ({"removed": [{"path", "files", "bytes"}], "kept"}),
 * or -errno (what failed is in the document's "failed"). */
int agent_profiler__remove(struct agent_profiler *ap, json_t **doc);

#endif
