/* SPDX-License-Identifier: MIT */
/*
 * What the pprof files share and nothing else sees but the questions' header hooks
 * (question.h): protobuf-c's type names, the size limits on what is read, the budgeted
 * gzip both directions use, and what a question's own fields of the header are handed.
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

/*
 * A question's own fields of the SlideOps header (question.h's header_encode and
 * header_decode), which protobuf-c's types in profile.pb-c.h name. Writing: the header
 * being built, the encode whose string table its strings go to, and what the encode frees
 * once the pprof is packed.
 */
#define PPROF_HEADER_OUT_KEEP 4

struct encoder;

struct pprof_header_out {
	PbHeader *hdr;
	struct encoder *e;
	void *keep[PPROF_HEADER_OUT_KEEP]; /* pprof_header_out__calloc's */
	size_t nkeep;
};

/* The pprof string index of one of the profile's string ids, or of a literal; on ENOMEM
 * 0, and the encode fails. */
int64_t pprof_header_out__str(struct pprof_header_out *o, uint32_t id);
int64_t pprof_header_out__literal(struct pprof_header_out *o, const char *s);
/* n zeroed elements of size, freed with the encode (at most PPROF_HEADER_OUT_KEEP
 * blocks); NULL on ENOMEM. */
void *pprof_header_out__calloc(struct pprof_header_out *o, size_t n, size_t size);

/* Reading: the decoded header, and the pprof's string table its indexes point into. */
struct pprof_header_in {
	const PbHeader *hdr;
	const char *const *strings;
	size_t nstrings;
};

/* The string at idx of the table; NULL when idx is outside it (a damaged entry). */
static inline const char *pprof_header_in__str(const struct pprof_header_in *in, int64_t idx)
{
	return idx >= 0 && (uint64_t)idx < in->nstrings ? in->strings[idx] : NULL;
}

#endif
