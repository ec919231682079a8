// SPDX-License-Identifier: MIT
/*
 * The profile model: interning of mappings, locations, stacks and samples, and the
 * names of the enums every layer prints. See profile.h.
 */
#include "profile/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/hash.h"
#include "util/hashmap.h"

static const char *const mapping_kinds[MAPPING_KIND__COUNT] = {
	[MAPPING_EXE] = "exe",       [MAPPING_LIB] = "lib", [MAPPING_KERNEL] = "kernel",
	[MAPPING_VDSO] = "vdso",     [MAPPING_JIT] = "jit", [MAPPING_ANON] = "anon",
};

static int names__parse(const char *const *names, int count, const char *name)
{
	for (int i = 0; name && i < count; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *mapping_kind__name(enum mapping_kind k)
{
	return (unsigned)k < MAPPING_KIND__COUNT ? mapping_kinds[k] : "";
}

int mapping_kind__parse(const char *name)
{
	return names__parse(mapping_kinds, MAPPING_KIND__COUNT, name);
}

static const char *const stack_exit_names[STACK_EXIT__COUNT] = {
	[STACK_EXIT_NO_TABLE] = "no_table",
	[STACK_EXIT_TABLE_MISS] = "table_miss",
	[STACK_EXIT_READ_FAULT] = "read_fault",
	[STACK_EXIT_DEPTH] = "depth",
	[STACK_EXIT_UNSUPPORTED] = "unsupported",
	[STACK_EXIT_BP_UNKNOWN] = "bp_unknown",
	[STACK_EXIT_NOT_GROWING] = "not_growing",
	[STACK_EXIT_NO_PROCESS_TABLES] = "no_process_tables",
};

const char *stack_exit__name(enum stack_exit e)
{
	return (unsigned)e < STACK_EXIT__COUNT ? stack_exit_names[e] : "";
}

int stack_exit__parse(const char *name)
{
	for (int i = 0; i < STACK_EXIT__COUNT; i++)
		if (strcmp(stack_exit_names[i], name) == 0)
			return i;
	return -1;
}

const char *const profile_wait_reasons[PROFILE_WAIT_REASONS] = {
	"runqueue", "io", "lock", "sleep", "other",
};

int wait_reason__parse(const char *name)
{
	for (int i = 0; i < PROFILE_WAIT_REASONS; i++)
		if (strcmp(name, profile_wait_reasons[i]) == 0)
			return i;
	return -1;
}

struct profile *profile__new(enum question q)
{
	const struct question_plugin *question = question__get(q);
	struct profile *p;

	if (!question) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->strings = strtab__new();
	p->mapping_index = hashmap__new();
	p->location_index = hashmap__new();
	p->stack_index = hashmap__new();
	p->sample_index = hashmap__new();
	if (!p->strings || !p->mapping_index || !p->location_index || !p->stack_index ||
	    !p->sample_index)
		goto out_free;

	p->header.format_version = PROFILE_FORMAT_VERSION;
	p->header.question = q;
	for (uint32_t i = 0; i < PROFILE_MAX_VALUES && question->value_types[i][0]; i++) {
		p->value_types[i].type = profile__intern(p, question->value_types[i][0]);
		p->value_types[i].unit = profile__intern(p, question->value_types[i][1]);
		if (p->value_types[i].type == STRTAB_NONE || p->value_types[i].unit == STRTAB_NONE)
			goto out_free;
		p->nvalues = i + 1;
	}
	return p;

out_free:
	profile__free(p);
	errno = ENOMEM;
	return NULL;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	strtab__free(p->strings);
	hashmap__free(p->mapping_index);
	hashmap__free(p->location_index);
	hashmap__free(p->stack_index);
	hashmap__free(p->sample_index);
	free(p->mappings);
	free(p->locations);
	free(p->stack_locations);
	free(p->stacks);
	free(p->samples);
	free(p->header.not_read);
	if (p->header.own) {
		const struct question_plugin *q = question__get(p->header.question);

		if (q && q->header_free)
			q->header_free(p->header.own);
	}
	free(p);
}

uint32_t profile__intern(struct profile *p, const char *s)
{
	return strtab__intern(p->strings, s);
}

const char *profile__str(const struct profile *p, uint32_t id)
{
	return strtab__get(p->strings, id);
}

/* Grows an array of elements of size elem so that one more fits. */
static int array__reserve(void **array, uint32_t *cap, uint32_t count, uint32_t more, size_t elem)
{
	uint32_t want, ncap;
	void *n;

	if (count > UINT32_MAX - 1 - more)
		return -ENOMEM;
	want = count + more;
	/* Allocate even for zero more, so an array that exists is never NULL. */
	if (want <= *cap && *array)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < want)
		ncap = ncap > UINT32_MAX / 2 ? UINT32_MAX - 1 : ncap * 2;
	n = realloc(*array, (size_t)ncap * elem);
	if (!n)
		return -ENOMEM;
	*array = n;
	*cap = ncap;
	return 0;
}

#define ARRAY_RESERVE(arr, cap, count, more)                                           \
	array__reserve((void **)&(arr), &(cap), (count), (more), sizeof(*(arr)))

/* ---- mappings: by path and build id ---- */

static uint64_t mapping__hash(const struct prof_mapping *m)
{
	uint64_t h = hash_u64(0, m->path);

	h = hash_u64(h, m->build_id);
	h = hash_u64(h, m->identity);
	return hash_u64(h, m->kind);
}

static bool mapping__equal(const void *key, uint32_t id, void *ctx)
{
	const struct prof_mapping *a = key, *b = &((struct profile *)ctx)->mappings[id];

	return a->path == b->path && a->build_id == b->build_id && a->kind == b->kind &&
	       a->identity == b->identity;
}

uint32_t profile__add_mapping(struct profile *p, const struct prof_mapping *m)
{
	uint64_t h = mapping__hash(m);
	uint32_t id = hashmap__find(p->mapping_index, h, m, mapping__equal, p);

	if (id != HASHMAP_NONE)
		return id;
	if (ARRAY_RESERVE(p->mappings, p->cap_mappings, p->nmappings, 1))
		return UINT32_MAX;
	id = p->nmappings;
	if (hashmap__insert(p->mapping_index, h, id))
		return UINT32_MAX;
	p->mappings[id] = *m;
	p->nmappings++;
	return id;
}

int profile__add_not_read(struct profile *p, const char *path, const char *build_id,
			  const char *reason)
{
	struct prof_header *h = &p->header;
	struct prof_not_read nr = {
		.path = profile__intern(p, path),
		.build_id = profile__intern(p, build_id ? build_id : ""),
		.reason = profile__intern(p, reason),
	};

	if (nr.path == UINT32_MAX || nr.build_id == UINT32_MAX || nr.reason == UINT32_MAX ||
	    ARRAY_RESERVE(h->not_read, h->cap_not_read, h->nnot_read, 1))
		return -ENOMEM;
	h->not_read[h->nnot_read++] = nr;
	return 0;
}

/* ---- locations: by mapping, address and capture-time name ---- */

static uint64_t location__hash(const struct prof_location *l)
{
	uint64_t h = hash_u64(1, l->mapping);

	h = hash_u64(h, l->address);
	h = hash_u64(h, l->function);
	h = hash_u64(h, l->file);
	return hash_u64(h, (uint64_t)l->line);
}

static bool location__equal(const void *key, uint32_t id, void *ctx)
{
	const struct prof_location *a = key, *b = &((struct profile *)ctx)->locations[id];

	return a->mapping == b->mapping && a->address == b->address &&
	       a->function == b->function && a->file == b->file && a->line == b->line;
}

uint32_t profile__add_location(struct profile *p, const struct prof_location *l)
{
	uint64_t h = location__hash(l);
	uint32_t id = hashmap__find(p->location_index, h, l, location__equal, p);

	if (id != HASHMAP_NONE)
		return id;
	if (l->mapping >= p->nmappings ||
	    ARRAY_RESERVE(p->locations, p->cap_locations, p->nlocations, 1))
		return UINT32_MAX;
	id = p->nlocations;
	if (hashmap__insert(p->location_index, h, id))
		return UINT32_MAX;
	p->locations[id] = *l;
	/* Derived at read time, never taken from the caller. */
	p->locations[id].name = 0;
	p->locations[id].named = false;
	p->locations[id].language = LANGUAGE_OTHER;
	p->nlocations++;
	return id;
}

/* ---- stacks: by their sequence of locations ---- */

struct stack_key {
	const uint32_t *locations;
	uint32_t depth;
};

static bool stack__equal(const void *key, uint32_t id, void *ctx)
{
	const struct stack_key *k = key;
	const struct profile *p = ctx;
	const struct prof_stack *s = &p->stacks[id];

	return s->depth == k->depth &&
	       memcmp(p->stack_locations + s->first, k->locations,
		      sizeof(uint32_t) * k->depth) == 0;
}

uint32_t profile__add_stack(struct profile *p, const uint32_t *locations, uint32_t depth)
{
	struct stack_key k = { locations, depth };
	uint64_t h = hash_bytes(locations, sizeof(uint32_t) * depth, 2);
	uint32_t id = hashmap__find(p->stack_index, h, &k, stack__equal, p);

	if (id != HASHMAP_NONE)
		return id;
	for (uint32_t i = 0; i < depth; i++)
		if (locations[i] >= p->nlocations)
			return UINT32_MAX;
	if (ARRAY_RESERVE(p->stacks, p->cap_stacks, p->nstacks, 1) ||
	    ARRAY_RESERVE(p->stack_locations, p->cap_stack_locations, p->nstack_locations, depth))
		return UINT32_MAX;
	id = p->nstacks;
	if (hashmap__insert(p->stack_index, h, id))
		return UINT32_MAX;
	memcpy(p->stack_locations + p->nstack_locations, locations, sizeof(uint32_t) * depth);
	p->stacks[id].first = p->nstack_locations;
	p->stacks[id].depth = depth;
	p->nstack_locations += depth;
	p->nstacks++;
	return id;
}

/* ---- samples: by stack and labels ---- */

struct sample_key {
	uint32_t stack;
	const struct prof_labels *labels;
};

static uint64_t labels__hash(uint32_t stack, const struct prof_labels *l)
{
	uint64_t h = hash_u64(3, stack);

	h = hash_u64(h, (uint32_t)l->pid);
	h = hash_u64(h, (uint32_t)l->tid);
	h = hash_u64(h, l->comm);
	h = hash_u64(h, l->thread);
	h = hash_u64(h, l->group);
	h = hash_u64(h, l->group_kind);
	h = hash_u64(h, l->exe);
	h = hash_u64(h, l->state);
	h = hash_u64(h, l->wait);
	h = hash_u64(h, l->lock);
	h = hash_u64(h, l->wait_reason);
	h = hash_u64(h, (uint64_t)l->thread_ran_ns);
	return hash_u64(h, l->lock_kind);
}

static bool labels__equal(const struct prof_labels *a, const struct prof_labels *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->comm == b->comm &&
	       a->thread == b->thread && a->group == b->group && a->group_kind == b->group_kind &&
	       a->exe == b->exe && a->state == b->state && a->wait == b->wait &&
	       a->lock == b->lock && a->lock_kind == b->lock_kind &&
	       a->wait_reason == b->wait_reason && a->thread_ran_ns == b->thread_ran_ns;
}

static bool sample__equal(const void *key, uint32_t id, void *ctx)
{
	const struct sample_key *k = key;
	const struct prof_sample *s = &((struct profile *)ctx)->samples[id];

	return s->stack == k->stack && labels__equal(&s->labels, k->labels);
}

int profile__add_sample(struct profile *p, uint32_t stack, const int64_t *values,
			const struct prof_labels *labels)
{
	/* The question's value that merges by its maximum (profile__new checked it is one). */
	int32_t max_value = question__get(p->header.question)->max_value;
	struct sample_key k = { stack, labels };
	uint64_t h = labels__hash(stack, labels);
	uint32_t id = hashmap__find(p->sample_index, h, &k, sample__equal, p);
	struct prof_sample *s;

	if (stack >= p->nstacks)
		return -EINVAL;
	if (id == HASHMAP_NONE) {
		if (ARRAY_RESERVE(p->samples, p->cap_samples, p->nsamples, 1))
			return -ENOMEM;
		id = p->nsamples;
		if (hashmap__insert(p->sample_index, h, id))
			return -ENOMEM;
		s = &p->samples[id];
		memset(s, 0, sizeof(*s));
		s->stack = stack;
		s->labels = *labels;
		p->nsamples++;
	}
	s = &p->samples[id];
	for (uint32_t i = 0; i < p->nvalues; i++) {
		if ((int32_t)i == max_value)
			s->values[i] = s->values[i] > values[i] ? s->values[i] : values[i];
		else
			s->values[i] += values[i];
	}
	return 0;
}

int64_t profile__total(const struct profile *p, uint32_t value)
{
	int64_t total = 0;

	if (value >= p->nvalues)
		return 0;
	for (uint32_t i = 0; i < p->nsamples; i++)
		total += p->samples[i].values[value];
	return total;
}

uint32_t profile__main_value(const struct profile *p)
{
	const struct question_plugin *q = question__get(p->header.question);
	uint32_t v = q ? q->main_value : 0;

	return v < p->nvalues ? v : 0;
}

void profile__format_started_at(const struct profile *p, char *buf, size_t size)
{
	time_t t = (time_t)(p->header.started_at_ns / 1000000000LL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		if (size)
			buf[0] = '\0';
	}
}

int profile__reindex(struct profile *p)
{
	struct hashmap *mappings = hashmap__new(), *locations = hashmap__new();

	if (!mappings || !locations)
		goto out_nomem;
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];
		uint64_t h = mapping__hash(m);

		if (hashmap__find(mappings, h, m, mapping__equal, p) == HASHMAP_NONE &&
		    hashmap__insert(mappings, h, i))
			goto out_nomem;
	}
	for (uint32_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *l = &p->locations[i];
		uint64_t h = location__hash(l);

		if (hashmap__find(locations, h, l, location__equal, p) == HASHMAP_NONE &&
		    hashmap__insert(locations, h, i))
			goto out_nomem;
	}
	hashmap__free(p->mapping_index);
	hashmap__free(p->location_index);
	p->mapping_index = mappings;
	p->location_index = locations;
	return 0;

out_nomem:
	hashmap__free(mappings);
	hashmap__free(locations);
	return -ENOMEM;
}
