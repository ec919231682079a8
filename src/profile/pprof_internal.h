/* SPDX-License-Identifier: MIT */
/*
 * What the pprof files share and nothing else sees: protobuf-c's type names, the size
 * limits on what is read, and the budgeted gzip both directions use.
 *   pprof_gzip.c    gzip in and out, inflating within a budget
 *   pprof_encode.c  the profile model to profile.proto
 *   pprof_decode.c  profile.proto (ours or another tool's) to the model, checking all
 *   pprof_decode_header.c  its first passes: strings, the question, the SlideOps header
 *   pprof_file.c    reading and writing files
 */
#ifndef SLIDEOPS_PROFILE_PPROF_INTERNAL_H
#define SLIDEOPS_PROFILE_PPROF_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__SlideopsHeader PbHeader;
typedef Perftools__Profiles__NotRead PbNotRead;
typedef Perftools__Profiles__StackExit PbStackExit;
typedef Perftools__Profiles__OwnerMemory PbOwnerMemory;

/*
 * The budget for inflating a blob: never more than PPROF_MAX_RAW, and never more than
 * PPROF_MAX_RATIO times the compressed size (with PPROF_MIN_RAW for small ones). Our
 * profiles compress 3 to 10 times; deflate can reach 1032 times, which is how a 1 MB
 * file asks for a gigabyte. A blob over budget is refused before it is read further.
 */
#define PPROF_MAX_RAW (256ULL << 20)
#define PPROF_MAX_RATIO 64
#define PPROF_MIN_RAW (1ULL << 20)
/* A compressed file larger than this is refused before it is read. */
#define PPROF_MAX_FILE (PPROF_MAX_RAW / 2)
/* Labels one sample can carry (pid, tid, comm, thread, group, group_kind, exe, state,
 * wait, lock, lock_kind, wait_reason, thread_ran_ns). */
#define MAX_LABELS 13

/* 0 or -errno; *out is malloc'd. */
int gzip__compress(const void *in, size_t len, void **out, size_t *out_len);
/* Inflates within the budget above: 0, -EBADMSG (corrupt or over budget), -ENOMEM. */
int gzip__decompress(const void *in, size_t len, void **out, size_t *out_len);

static inline void *calloc_n(size_t n, size_t size)
{
	/* calloc(0, ...) may return NULL; one element keeps "NULL means ENOMEM" true. */
	return calloc(n ? n : 1, size);
}

#endif
