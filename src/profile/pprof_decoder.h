// SPDX-License-Identifier: MIT
/*
 * One pprof decode's state (struct decoder), shared by its passes: pprof_decode.c (the
 * entry points, mappings, functions, locations, samples) and pprof_decode_header.c (the
 * strings, the question and the SlideOps header).
 */
#ifndef SLIDEOPS_PROFILE_PPROF_DECODER_H
#define SLIDEOPS_PROFILE_PPROF_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/pprof_internal.h"
#include "profile/profile.h"

/* pprof ids (any nonzero uint64, unique) to model indices: sorted, then searched. */
struct id_entry {
	uint64_t id;
	uint32_t index;
};

struct id_index {
	struct id_entry *entries;
	size_t n;
	bool dense; /* ids are 1..n in order: look up directly */
};

struct decoder {
	const PbProfile *pb;
	struct profile *p;
	bool ours;          /* has a SlideOps header */
	uint32_t *str;      /* pprof string index -> model string id */
	size_t nstr;
	int value_cols[PROFILE_MAX_VALUES]; /* pprof sample value column of each model value */

	struct id_index mappings, functions, locations;
	uint32_t *mapping_of;    /* pprof mapping i -> model index */
	uint32_t *function_name; /* pprof function i -> model name and file ids */
	uint32_t *function_file;
	int64_t *function_start;
	uint32_t anon_mapping;   /* for locations without a mapping; UINT32_MAX until needed */
};

static inline bool str_ok(const struct decoder *d, int64_t idx)
{
	return idx >= 0 && (uint64_t)idx < d->nstr;
}

static inline const char *pb_str(const struct decoder *d, int64_t idx)
{
	return d->pb->string_table[idx];
}

/* The string table interned and the question known: d->p made. 0 or -errno. */
int dec__strings_and_question(struct decoder *d);
/* The SlideOps header into d->p's (another tool's pprof has none). 0 or -errno. */
int dec__header(struct decoder *d);

#endif
