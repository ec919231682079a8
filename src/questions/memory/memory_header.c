// SPDX-License-Identifier: MIT
/*
 * memory: the owner groups' resident memory at the start and end, as a profile's header
 * keeps it (its header.own, struct memory_owners) and as pprof does (profile.proto's
 * SlideopsHeader.owner_memory, OwnerMemory): the plug-in's header hooks (question.h).
 */
#include "questions/memory/memory_owners.h"

#include <errno.h>
#include <stdlib.h>

#include "profile/pprof_internal.h"
#include "questions/question.h"

typedef Perftools__Profiles__OwnerMemory PbOwnerMemory;

struct memory_owners *memory_owners__of(const struct profile *p)
{
	return p->header.question == QUESTION_MEMORY ? p->header.own : NULL;
}

struct memory_owner *memory_owners__add(struct profile *p, const char *label,
					enum group_kind kind)
{
	struct memory_owners *o = memory_owners__of(p);
	uint32_t id;

	if (p->header.question != QUESTION_MEMORY)
		return NULL;
	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o)
			return NULL;
		p->header.own = o;
	}
	id = profile__intern(p, label);
	if (id == UINT32_MAX)
		return NULL;
	for (uint32_t i = 0; i < o->n; i++)
		if (o->owners[i].group == id)
			return &o->owners[i];
	if (o->n == o->cap) {
		uint32_t cap = o->cap ? o->cap * 2 : 16;
		struct memory_owner *more = realloc(o->owners, cap * sizeof(*more));

		if (!more)
			return NULL;
		o->owners = more;
		o->cap = cap;
	}
	o->owners[o->n] = (struct memory_owner){ .group = id, .kind = kind };
	return &o->owners[o->n++];
}

void memory_owners__free(void *own)
{
	struct memory_owners *o = own;

	free(o->owners);
	free(o);
}

int memory_owners__encode(const struct profile *p, struct pprof_header_out *out)
{
	const struct memory_owners *o = memory_owners__of(p);
	PbOwnerMemory *owners, **ptrs;

	if (!o || !o->n)
		return 0;
	owners = pprof_header_out__calloc(out, o->n, sizeof(*owners));
	ptrs = pprof_header_out__calloc(out, o->n, sizeof(*ptrs));
	if (!owners || !ptrs)
		return -ENOMEM;
	for (uint32_t i = 0; i < o->n; i++) {
		const struct memory_owner *om = &o->owners[i];
		PbOwnerMemory *pb = &owners[i];

		perftools__profiles__owner_memory__init(pb);
		pb->group = pprof_header_out__str(out, om->group);
		pb->group_kind = pprof_header_out__literal(out, group_kind__name(om->kind));
		pb->rss_start_bytes = om->rss_start;
		pb->rss_end_bytes = om->rss_end;
		pb->file_start_bytes = om->file_start;
		pb->file_end_bytes = om->file_end;
		pb->processes_started = om->started;
		pb->processes_exited = om->exited;
		ptrs[i] = pb;
	}
	out->hdr->n_owner_memory = o->n;
	out->hdr->owner_memory = ptrs;
	return 0;
}

int memory_owners__decode(struct profile *p, const struct pprof_header_in *in)
{
	for (size_t i = 0; i < in->hdr->n_owner_memory; i++) {
		const PbOwnerMemory *pb = in->hdr->owner_memory[i];
		const char *label = pprof_header_in__str(in, pb->group);
		const char *kind_name = pprof_header_in__str(in, pb->group_kind);
		int kind = kind_name ? group_kind__parse(kind_name) : -1;
		struct memory_owner *om;

		/* A damaged entry is left out: the rest of the profile stands. */
		if (!label || kind < 0)
			continue;
		om = memory_owners__add(p, label, kind);
		if (!om)
			return -ENOMEM;
		om->rss_start = pb->rss_start_bytes;
		om->rss_end = pb->rss_end_bytes;
		om->file_start = pb->file_start_bytes;
		om->file_end = pb->file_end_bytes;
		om->started = pb->processes_started;
		om->exited = pb->processes_exited;
	}
	return 0;
}

static uint64_t clamp(uint64_t v, uint64_t most)
{
	return v < most ? v : most;
}

void memory_owners__clamp(struct profile *p, uint64_t most)
{
	struct memory_owners *o = memory_owners__of(p);

	for (uint32_t i = 0; o && i < o->n; i++) {
		struct memory_owner *m = &o->owners[i];

		m->rss_start = clamp(m->rss_start, most);
		m->rss_end = clamp(m->rss_end, most);
		m->file_start = clamp(m->file_start, most);
		m->file_end = clamp(m->file_end, most);
	}
}
