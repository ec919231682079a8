/* SPDX-License-Identifier: MIT */
/*
 * slideops agent: a server's resident agent (docs/agent.md, docs/protocol.md). Enrols
 * once, then holds a poll open to the workspace and does what it asks: captures (in
 * this process, with the profiler it keeps installed), check, top, Remove the profiler.
 * Finished captures go through the spool (spool.h) and are delivered exactly once.
 */
#ifndef SLIDEOPS_AGENT_AGENT_H
#define SLIDEOPS_AGENT_AGENT_H

#include <signal.h>
#include <stdint.h>

#define AGENT_DEFAULT_DATA "/var/lib/slideops-agent"

struct agent_options {
	const char *workspace;    /* the workspace's URL */
	const char *enrol_token;  /* NULL: a credential must be kept already */
	const char *name;         /* NULL: the hostname */
	const char *data;         /* the data directory */
	const char *ca_file;      /* NULL: the system's CAs */
	uint64_t spool_max_bytes; /* 0: the default */
	uint64_t spool_max_age_s; /* 0: the default */
};

/* Runs until *quit becomes non-zero (SIGINT, SIGTERM), the server is removed, or the
 * workspace refuses the agent (401, 426). The exit code (util/exit_codes.h). */
int agent__run(const struct agent_options *opts, volatile sig_atomic_t *quit);

#endif
