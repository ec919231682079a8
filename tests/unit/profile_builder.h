/* SPDX-License-Identifier: MIT */
/*
 * Hand-made, already symbolized profiles for the analysis tests: mappings, frames with
 * the names profile__symbolize would have given them, and samples with their labels.
 * Header-only so that only the tests that include it carry it.
 */
#ifndef SLIDEOPS_TESTS_PROFILE_BUILDER_H
#define SLIDEOPS_TESTS_PROFILE_BUILDER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile/profile.h"

#define SEC 1000000000LL
#define MS 1000000LL

static inline struct profile *pb_new(enum question q, uint32_t ncpus, uint64_t duration_ns)
{
	struct profile *p = profile__new(q);

	if (!p)
		abort();
	p->header.ncpus = ncpus;
	p->header.duration_ns = duration_ns;
	p->header.hostname = profile__intern(p, "web-1");
	p->header.started_at_ns = 1796223845LL * SEC; /* 2026-12-02T15:04:05Z */
	p->symbolized = true;
	return p;
}

static inline uint32_t pb_mapping(struct profile *p, const char *path, const char *build_id,
				  enum mapping_kind kind, bool recorded)
{
	struct prof_mapping m = {
		.path = profile__intern(p, path),
		.build_id = profile__intern(p, build_id),
		.kind = kind,
		.language = kind == MAPPING_KERNEL ? LANGUAGE_KERNEL : LANGUAGE_C,
		.build_id_recorded = recorded,
	};
	uint32_t id = profile__add_mapping(p, &m);

	if (id == UINT32_MAX)
		abort();
	return id;
}

/* A frame as the symbolizer leaves it: named, or "file+0xADDR" with named false. */
static inline uint32_t pb_frame(struct profile *p, uint32_t mapping, uint64_t address,
				const char *name, bool named, enum language language)
{
	struct prof_location l = { .mapping = mapping, .address = address };
	uint32_t id = profile__add_location(p, &l);

	if (id == UINT32_MAX)
		abort();
	p->locations[id].name = profile__intern(p, name);
	p->locations[id].named = named;
	p->locations[id].language = language;
	return id;
}

/* An interpreter frame (Python): named at capture, with a file. */
static inline uint32_t pb_script_frame(struct profile *p, uint32_t mapping, const char *name,
				       const char *file)
{
	struct prof_location l = { .mapping = mapping,
				   .function = profile__intern(p, name),
				   .file = profile__intern(p, file),
				   .line = 1 };
	uint32_t id = profile__add_location(p, &l);

	if (id == UINT32_MAX)
		abort();
	p->locations[id].name = profile__intern(p, name);
	p->locations[id].named = true;
	p->locations[id].language = LANGUAGE_PYTHON;
	return id;
}

struct pb_who {
	const char *group;
	enum group_kind kind;
	int32_t pid;
	const char *comm;
	const char *state; /* NULL: none */
	const char *wait_reason; /* wall: "runqueue", "sleep", ...; NULL: none */
};

/*
 * Adds value (the main value: ns for cpu, wall and locks; threads; bytes) to the sample of
 * this stack (n frames, leaf first) and these labels. cpu's sample count is value / 10 ms.
 */
static inline void pb_sample(struct profile *p, const struct pb_who *who, int64_t value, int tid,
			     int n, ...)
{
	uint32_t locs[64], stack;
	int64_t values[PROFILE_MAX_VALUES] = { 0 };
	struct prof_labels l = {
		.pid = who->pid,
		.tid = tid ? tid : who->pid,
		.comm = profile__intern(p, who->comm),
		.group = profile__intern(p, who->group),
		.group_kind = who->kind,
		.state = profile__intern(p, who->state),
		.wait_reason = who->wait_reason ? profile__intern(p, who->wait_reason) : 0,
	};
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n && i < 64; i++)
		locs[i] = va_arg(ap, uint32_t);
	va_end(ap);
	stack = profile__add_stack(p, locs, (uint32_t)n);
	if (stack == UINT32_MAX)
		abort();
	values[profile__main_value(p)] = value;
	if (p->header.question == QUESTION_CPU)
		values[0] = value / (10 * MS);
	if (p->header.question == QUESTION_LOCKS)
		values[0] = 1;
	if (profile__add_sample(p, stack, values, &l))
		abort();
}

#endif
