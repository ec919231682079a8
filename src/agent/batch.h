/* SPDX-License-Identifier: MIT */
/*
 * A finished capture as one Batch (docs/protocol.md, Delivering a capture): the profile
 * in its stored form, and the symbol and line tables the capture read for the builds
 * the workspace says it lacks (/agent/symbols-wanted; when it cannot be asked, all of
 * them, so the batch stands alone).
 */
#ifndef SLIDEOPS_AGENT_BATCH_H
#define SLIDEOPS_AGENT_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct agent;
struct pipeline_result;
struct transport;

/* What a batch carries besides the profile. */
struct batch_counts {
	size_t symbol_tables, symbols, line_tables;
};

/* The encoded Batch in *out (malloc'd), and what it carries in *counts. 0 or -errno. */
int batch__build(struct transport *t, struct agent *a, const struct pipeline_result *r,
		 const char *capture_id, uint64_t sequence, uint64_t dropped, void **out,
		 size_t *len, struct batch_counts *counts);

/* The spool drops an encoded Batch reports; 0 when data is no Batch. For the spool
 * (struct spool_limits' carried): a dropped batch's count is not lost with it. */
uint64_t batch__spool_dropped(void *ctx, const void *data, size_t len);

#endif
