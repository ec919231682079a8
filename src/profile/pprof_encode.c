// SPDX-License-Identifier: MIT
/*
 * pprof writing: the profile model to profile.proto (protobuf-c), gzip'd.
 *
 * Writing builds a fresh pprof string table (the model's own table holds names that
 * are not exported, and pprof wants only what it references). Locations carry a
 * Function only for names known at capture, unless the caller asks for names (an
 * export): then every location is named, so readers never need the binaries.
 */
#include "profile/pprof.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_internal.h"
#include "profile/profile.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/strtab.h"

struct encoder {
	const struct profile *p;
	bool with_names;
	struct strtab *strings;   /* the pprof string table being built */
	uint32_t *string_of;      /* model string id -> pprof index + 1 (0: not yet) */
	uint32_t nstring_of;
	bool failed;

	PbFunction *functions;
	uint32_t nfunctions, cap_functions;
	struct hashmap *function_index;
};

/* The pprof string index of a literal; on ENOMEM marks the encoder failed. */
static int64_t enc__literal(struct encoder *e, const char *s)
{
	uint32_t id = strtab__intern(e->strings, s);

	if (id == STRTAB_NONE) {
		e->failed = true;
		return 0;
	}
	return id;
}

/* The pprof string index of a model string id. */
static int64_t enc__str(struct encoder *e, uint32_t id)
{
	uint32_t idx;

	if (id == 0)
		return 0;
	if (id < e->nstring_of && e->string_of[id])
		return e->string_of[id] - 1;
	idx = (uint32_t)enc__literal(e, profile__str(e->p, id));
	if (!e->failed && id < e->nstring_of)
		e->string_of[id] = idx + 1;
	return idx;
}

int64_t pprof_header_out__str(struct pprof_header_out *o, uint32_t id)
{
	return enc__str(o->e, id);
}

int64_t pprof_header_out__literal(struct pprof_header_out *o, const char *s)
{
	return enc__literal(o->e, s);
}

void *pprof_header_out__calloc(struct pprof_header_out *o, size_t n, size_t size)
{
	void *block;

	if (o->nkeep == PPROF_HEADER_OUT_KEEP)
		return NULL;
	block = calloc_n(n, size);
	if (block)
		o->keep[o->nkeep++] = block;
	return block;
}

struct function_key {
	int64_t name, filename, start_line;
};

static bool function__equal(const void *key, uint32_t id, void *ctx)
{
	const struct function_key *k = key;
	const struct encoder *e = ctx;

	return e->functions[id].name == k->name && e->functions[id].filename == k->filename &&
	       e->functions[id].start_line == k->start_line;
}

/*
 * The id of the Function (name, filename, start line), adding it when new: a function
 * sampled at many lines stays one function; the line goes on the Line. An interpreter's
 * frames carry their start line; a native one's comes from its line table, if any.
 */
static uint64_t enc__function(struct encoder *e, int64_t name, int64_t filename,
			      int64_t start_line)
{
	struct function_key k = { name, filename, start_line };
	uint64_t h = hash_u64(hash_u64(7, (uint64_t)name), (uint64_t)filename);
	uint32_t id = hashmap__find(e->function_index, h, &k, function__equal, e);

	if (id != HASHMAP_NONE)
		return (uint64_t)id + 1;
	if (e->nfunctions == e->cap_functions) {
		uint32_t ncap = e->cap_functions ? e->cap_functions * 2 : 64;
		PbFunction *n = realloc(e->functions, sizeof(*n) * ncap);

		if (!n) {
			e->failed = true;
			return 0;
		}
		e->functions = n;
		e->cap_functions = ncap;
	}
	id = e->nfunctions;
	if (hashmap__insert(e->function_index, h, id)) {
		e->failed = true;
		return 0;
	}
	perftools__profiles__function__init(&e->functions[id]);
	e->functions[id].id = (uint64_t)id + 1;
	e->functions[id].name = name;
	e->functions[id].system_name = name;
	e->functions[id].filename = filename;
	e->functions[id].start_line = start_line;
	e->nfunctions++;
	return (uint64_t)id + 1;
}

static void enc__label_str(struct encoder *e, PbLabel *labels, size_t *n, const char *key,
			   int64_t str)
{
	PbLabel *l = &labels[(*n)++];

	perftools__profiles__label__init(l);
	l->key = enc__literal(e, key);
	l->str = str;
}

static void enc__label_num(struct encoder *e, PbLabel *labels, size_t *n, const char *key,
			   int64_t num)
{
	PbLabel *l = &labels[(*n)++];

	perftools__profiles__label__init(l);
	l->key = enc__literal(e, key);
	l->num = num;
}

/* Labels of a sample, only those with a value. Returns how many. */
static size_t enc__labels(struct encoder *e, const struct prof_labels *lb, PbLabel *out)
{
	size_t n = 0;

	if (lb->pid)
		enc__label_num(e, out, &n, "pid", lb->pid);
	if (lb->tid)
		enc__label_num(e, out, &n, "tid", lb->tid);
	if (lb->comm)
		enc__label_str(e, out, &n, "comm", enc__str(e, lb->comm));
	if (lb->thread)
		enc__label_str(e, out, &n, "thread", enc__str(e, lb->thread));
	if (lb->group)
		enc__label_str(e, out, &n, "group", enc__str(e, lb->group));
	/* A reader takes a missing group_kind for "other", so only that may be left out. */
	if (lb->group || lb->group_kind != GROUP_OTHER)
		enc__label_str(e, out, &n, "group_kind",
			       enc__literal(e, group_kind__name(lb->group_kind)));
	if (lb->exe)
		enc__label_str(e, out, &n, "exe", enc__str(e, lb->exe));
	if (lb->state)
		enc__label_str(e, out, &n, "state", enc__str(e, lb->state));
	if (lb->wait)
		enc__label_str(e, out, &n, "wait", enc__str(e, lb->wait));
	if (lb->lock)
		enc__label_num(e, out, &n, "lock", (int64_t)lb->lock);
	if (lb->lock_kind)
		enc__label_str(e, out, &n, "lock_kind", enc__str(e, lb->lock_kind));
	if (lb->wait_reason)
		enc__label_str(e, out, &n, "wait_reason", enc__str(e, lb->wait_reason));
	if (lb->thread_ran_ns)
		enc__label_num(e, out, &n, "thread_ran_ns", lb->thread_ran_ns);
	return n;
}

/* Every array the message points into, freed together. */
struct enc_arrays {
	PbValueType *value_types;
	PbValueType **value_type_ptrs;
	PbMapping *mappings;
	PbMapping **mapping_ptrs;
	PbLocation *locations;
	PbLocation **location_ptrs;
	PbLine *lines;
	PbLine **line_ptrs;
	PbFunction **function_ptrs;
	PbSample *samples;
	PbSample **sample_ptrs;
	uint64_t *location_ids;
	int64_t *values;
	PbLabel *labels;
	PbLabel **label_ptrs;
	char **string_table;
	bool *mapping_named;
	bool *mapping_lines;
	uint64_t *mapping_lo, *mapping_hi; /* ELF addresses seen, for unrecorded ranges */
	int64_t *mapping_weight;
	PbNotRead *not_read;
	PbNotRead **not_read_ptrs;
	PbStackExit exits[STACK_EXIT__COUNT];
	PbStackExit *exit_ptrs[STACK_EXIT__COUNT];
	struct pprof_header_out own; /* the question's own fields of the header */
};

static void enc_arrays__free(struct enc_arrays *a)
{
	free(a->value_types);
	free(a->value_type_ptrs);
	free(a->mappings);
	free(a->mapping_ptrs);
	free(a->locations);
	free(a->location_ptrs);
	free(a->lines);
	free(a->line_ptrs);
	free(a->function_ptrs);
	free(a->samples);
	free(a->sample_ptrs);
	free(a->location_ids);
	free(a->values);
	free(a->labels);
	free(a->label_ptrs);
	free(a->string_table);
	free(a->mapping_named);
	free(a->mapping_lines);
	free(a->mapping_lo);
	free(a->mapping_hi);
	free(a->mapping_weight);
	free(a->not_read);
	free(a->not_read_ptrs);
	for (size_t i = 0; i < a->own.nkeep; i++)
		free(a->own.keep[i]);
}

/* Where a location was in the process its mapping was recorded from: what pprof's
 * memory_start, memory_limit and file_offset describe. */
static uint64_t enc__runtime_address(const struct profile *p, const struct prof_location *l)
{
	const struct prof_mapping *m;

	if (l->mapping >= p->nmappings)
		return l->address;
	m = &p->mappings[l->mapping];
	if (!m->limit || l->address < m->vaddr || l->address - m->vaddr >= m->limit - m->start)
		return l->address;
	return m->start + (l->address - m->vaddr);
}

static int mapping_rank(const struct prof_mapping *m)
{
	return m->kind == MAPPING_EXE ? 0 : m->kind == MAPPING_KERNEL ? 2 : 1;
}

/* What ordering the mappings needs beside them: qsort_r's argument, so that encoders on
 * several threads (a capture saving while the server exports) do not share it. */
struct mapping_order {
	const struct profile *p;
	const struct enc_arrays *a;
};

static int mapping_order__cmp(const void *x, const void *y, void *arg)
{
	const struct mapping_order *o = arg;
	const PbMapping *a = *(PbMapping *const *)x, *b = *(PbMapping *const *)y;
	const struct prof_mapping *ma = &o->p->mappings[a->id - 1],
				  *mb = &o->p->mappings[b->id - 1];
	int64_t wa = o->a->mapping_weight[a->id - 1], wb = o->a->mapping_weight[b->id - 1];

	if (mapping_rank(ma) != mapping_rank(mb))
		return mapping_rank(ma) - mapping_rank(mb);
	if (wa != wb)
		return wa > wb ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void enc__order_mappings(const struct profile *p, struct enc_arrays *a)
{
	struct mapping_order o = { p, a };

	qsort_r(a->mapping_ptrs, p->nmappings, sizeof(*a->mapping_ptrs), mapping_order__cmp, &o);
}

static int enc__build(struct encoder *e, PbProfile *pb, PbHeader *hdr, struct enc_arrays *a)
{
	const struct profile *p = e->p;
	PbValueType *period_type;
	uint32_t nstrings;

	a->value_types = calloc_n(p->nvalues + 1, sizeof(*a->value_types));
	a->value_type_ptrs = calloc_n(p->nvalues, sizeof(*a->value_type_ptrs));
	a->mappings = calloc_n(p->nmappings, sizeof(*a->mappings));
	a->mapping_ptrs = calloc_n(p->nmappings, sizeof(*a->mapping_ptrs));
	a->mapping_named = calloc_n(p->nmappings, sizeof(*a->mapping_named));
	a->mapping_lines = calloc_n(p->nmappings, sizeof(*a->mapping_lines));
	a->mapping_lo = calloc_n(p->nmappings, sizeof(*a->mapping_lo));
	a->mapping_hi = calloc_n(p->nmappings, sizeof(*a->mapping_hi));
	a->mapping_weight = calloc_n(p->nmappings, sizeof(*a->mapping_weight));
	a->locations = calloc_n(p->nlocations, sizeof(*a->locations));
	a->location_ptrs = calloc_n(p->nlocations, sizeof(*a->location_ptrs));
	a->lines = calloc_n(p->nlocations, sizeof(*a->lines));
	a->line_ptrs = calloc_n(p->nlocations, sizeof(*a->line_ptrs));
	a->samples = calloc_n(p->nsamples, sizeof(*a->samples));
	a->sample_ptrs = calloc_n(p->nsamples, sizeof(*a->sample_ptrs));
	a->values = calloc_n((size_t)p->nsamples * p->nvalues, sizeof(*a->values));
	a->labels = calloc_n((size_t)p->nsamples * MAX_LABELS, sizeof(*a->labels));
	a->label_ptrs = calloc_n((size_t)p->nsamples * MAX_LABELS, sizeof(*a->label_ptrs));
	a->location_ids = calloc_n(p->nstack_locations, sizeof(*a->location_ids));
	if (!a->value_types || !a->value_type_ptrs || !a->mappings || !a->mapping_ptrs ||
	    !a->mapping_named || !a->mapping_lines || !a->mapping_lo || !a->mapping_hi ||
	    !a->mapping_weight || !a->locations || !a->location_ptrs || !a->lines ||
	    !a->line_ptrs || !a->samples || !a->sample_ptrs || !a->values || !a->labels ||
	    !a->label_ptrs || !a->location_ids)
		return -ENOMEM;

	for (uint32_t i = 0; i < p->nvalues; i++) {
		perftools__profiles__value_type__init(&a->value_types[i]);
		a->value_types[i].type = enc__str(e, p->value_types[i].type);
		a->value_types[i].unit = enc__str(e, p->value_types[i].unit);
		a->value_type_ptrs[i] = &a->value_types[i];
	}
	pb->n_sample_type = p->nvalues;
	pb->sample_type = a->value_type_ptrs;
	if (p->nvalues)
		pb->default_sample_type = a->value_types[profile__main_value(p)].type;

	/* Locations first: a mapping has_functions when all of its locations are named. */
	for (uint32_t i = 0; i < p->nmappings; i++) {
		a->mapping_named[i] = true;
		a->mapping_lo[i] = UINT64_MAX;
	}
	for (uint32_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *l = &p->locations[i];
		PbLocation *loc = &a->locations[i];
		uint32_t name = l->function, file = l->file;
		int64_t line_no = l->line, start_line = l->start_line;

		if (e->with_names && l->name)
			name = l->name;
		/* Source lines from the line tables, for exports (interpreter frames carry
		 * their own). */
		if (e->with_names && !file && l->src_file) {
			file = l->src_file;
			line_no = l->src_line;
			start_line = l->src_start_line;
		}
		perftools__profiles__location__init(loc);
		loc->id = (uint64_t)i + 1;
		loc->mapping_id = (uint64_t)l->mapping + 1;
		loc->address = e->with_names ? enc__runtime_address(p, l) : l->address;
		if (name || file) {
			PbLine *line = &a->lines[i];

			perftools__profiles__line__init(line);
			line->function_id = enc__function(e, enc__str(e, name), enc__str(e, file),
							  start_line);
			line->line = line_no;
			a->line_ptrs[i] = line;
			loc->n_line = 1;
			loc->line = &a->line_ptrs[i];
		}
		if (l->mapping < p->nmappings) {
			if (!name)
				a->mapping_named[l->mapping] = false;
			if (file && line_no > 0)
				a->mapping_lines[l->mapping] = true;
			if (l->address < a->mapping_lo[l->mapping])
				a->mapping_lo[l->mapping] = l->address;
			if (l->address > a->mapping_hi[l->mapping])
				a->mapping_hi[l->mapping] = l->address;
		}
		a->location_ptrs[i] = loc;
	}
	pb->n_location = p->nlocations;
	pb->location = a->location_ptrs;

	for (uint32_t i = 0; i < p->nsamples; i++) {
		const uint32_t *locs;
		uint32_t depth;

		locs = profile__stack(p, p->samples[i].stack, &depth);
		for (uint32_t j = 0; j < depth; j++) {
			uint32_t m = p->locations[locs[j]].mapping;

			if (m < p->nmappings)
				a->mapping_weight[m] += p->samples[i].values[0];
		}
	}
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];
		PbMapping *pm = &a->mappings[i];

		perftools__profiles__mapping__init(pm);
		pm->id = (uint64_t)i + 1;
		pm->filename = enc__str(e, m->path);
		pm->build_id = enc__str(e, m->build_id);
		pm->has_functions = a->mapping_named[i];
		pm->has_filenames = a->mapping_lines[i];
		pm->has_line_numbers = a->mapping_lines[i];
		pm->memory_start = m->start;
		pm->memory_limit = m->limit;
		pm->file_offset = m->offset;
		pm->slideops_vaddr = m->vaddr;
		if (e->with_names && !m->limit && a->mapping_lo[i] <= a->mapping_hi[i]) {
			/* Not recorded: the range of the ELF addresses it was sampled at. */
			pm->memory_start = a->mapping_lo[i] & ~0xfffULL;
			pm->memory_limit = a->mapping_hi[i] + 1;
			pm->file_offset = 0;
			pm->slideops_vaddr = pm->memory_start;
		}
		pm->slideops_kind = enc__literal(e, mapping_kind__name(m->kind));
		pm->slideops_language = enc__literal(e, language__name(m->language));
		pm->slideops_has_symtab = m->has_symtab;
		pm->slideops_build_id_recorded = m->build_id_recorded;
		pm->slideops_from_package = m->from_package;
		a->mapping_ptrs[i] = pm;
	}
	/* pprof takes the first mapping for the main binary: an export puts the busiest
	 * executable first, then the rest by weight, the kernel last. */
	if (e->with_names)
		enc__order_mappings(p, a);
	pb->n_mapping = p->nmappings;
	pb->mapping = a->mapping_ptrs;

	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		PbSample *ps = &a->samples[i];
		const uint32_t *locs;
		uint32_t depth;

		perftools__profiles__sample__init(ps);
		locs = profile__stack(p, s->stack, &depth);
		ps->location_id = a->location_ids + p->stacks[s->stack].first;
		for (uint32_t j = 0; j < depth; j++)
			ps->location_id[j] = (uint64_t)locs[j] + 1;
		ps->n_location_id = depth;
		ps->value = a->values + (size_t)i * p->nvalues;
		memcpy(ps->value, s->values, sizeof(int64_t) * p->nvalues);
		ps->n_value = p->nvalues;
		ps->label = a->label_ptrs + (size_t)i * MAX_LABELS;
		ps->n_label = enc__labels(e, &s->labels, a->labels + (size_t)i * MAX_LABELS);
		for (size_t j = 0; j < ps->n_label; j++)
			ps->label[j] = &a->labels[(size_t)i * MAX_LABELS + j];
		a->sample_ptrs[i] = ps;
	}
	pb->n_sample = p->nsamples;
	pb->sample = a->sample_ptrs;

	a->function_ptrs = calloc_n(e->nfunctions, sizeof(*a->function_ptrs));
	if (!a->function_ptrs)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->nfunctions; i++)
		a->function_ptrs[i] = &e->functions[i];
	pb->n_function = e->nfunctions;
	pb->function = a->function_ptrs;

	hdr->format_version = p->header.format_version;
	hdr->question = enc__literal(e, question__id(p->header.question));
	hdr->hostname = enc__str(e, p->header.hostname);
	hdr->kernel_release = enc__str(e, p->header.kernel_release);
	hdr->kernel_build_id = enc__str(e, p->header.kernel_build_id);
	hdr->ncpus = p->header.ncpus;
	hdr->started_at_ns = p->header.started_at_ns;
	hdr->duration_ns = p->header.duration_ns;
	hdr->sample_hz = p->header.sample_hz;
	hdr->lost = p->header.lost;
	hdr->stacks_truncated = p->header.stacks_truncated;
	hdr->mappings_past_limit = p->header.mappings_past_limit;
	hdr->processes_past_limit = p->header.processes_past_limit;
	hdr->mappings_limit = p->header.mappings_limit;
	hdr->profiler_pid = p->header.profiler_pid;
	hdr->tool_version = enc__str(e, p->header.tool_version);
	hdr->runtime_addresses = e->with_names;
	a->not_read = calloc_n(p->header.nnot_read, sizeof(*a->not_read));
	a->not_read_ptrs = calloc_n(p->header.nnot_read, sizeof(*a->not_read_ptrs));
	if (!a->not_read || !a->not_read_ptrs)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->header.nnot_read; i++) {
		const struct prof_not_read *nr = &p->header.not_read[i];
		PbNotRead *out = &a->not_read[i];

		perftools__profiles__not_read__init(out);
		out->path = enc__str(e, nr->path);
		out->build_id = enc__str(e, nr->build_id);
		out->reason = enc__str(e, nr->reason);
		a->not_read_ptrs[i] = out;
	}
	hdr->n_not_read = p->header.nnot_read;
	hdr->not_read = a->not_read_ptrs;
	if (p->header.stack_exits_recorded) {
		for (int i = 0; i < STACK_EXIT__COUNT; i++) {
			perftools__profiles__stack_exit__init(&a->exits[i]);
			a->exits[i].kind = enc__literal(e, stack_exit__name(i));
			a->exits[i].count = p->header.stack_exits[i];
			a->exit_ptrs[i] = &a->exits[i];
		}
		hdr->n_stack_exits = STACK_EXIT__COUNT;
		hdr->stack_exits = a->exit_ptrs;
	}
	if (p->header.own) {
		const struct question_plugin *q = question__get(p->header.question);

		a->own.hdr = hdr;
		a->own.e = e;
		if (q && q->header_encode && q->header_encode(p, &a->own))
			return -ENOMEM;
	}
	pb->slideops = hdr;

	pb->time_nanos = p->header.started_at_ns;
	pb->duration_nanos = p->header.duration_ns > INT64_MAX ? INT64_MAX :
								 (int64_t)p->header.duration_ns;
	if (question__clock_sampled(p->header.question) && p->header.sample_hz) {
		/* Each cpu sample stands for one period of the sampling clock. */
		period_type = &a->value_types[p->nvalues];
		perftools__profiles__value_type__init(period_type);
		period_type->type = enc__literal(e, "cpu");
		period_type->unit = enc__literal(e, "nanoseconds");
		pb->period_type = period_type;
		pb->period = 1000000000LL / p->header.sample_hz;
	}
	if (e->failed)
		return -ENOMEM;

	/* Last: everything above has added its strings. */
	nstrings = strtab__count(e->strings);
	a->string_table = calloc_n(nstrings, sizeof(*a->string_table));
	if (!a->string_table)
		return -ENOMEM;
	for (uint32_t i = 0; i < nstrings; i++)
		a->string_table[i] = (char *)strtab__get(e->strings, i);
	pb->n_string_table = nstrings;
	pb->string_table = a->string_table;
	return 0;
}

int pprof__encode(const struct profile *p, bool with_names, void **out, size_t *len)
{
	PbProfile pb = PERFTOOLS__PROFILES__PROFILE__INIT;
	PbHeader hdr = PERFTOOLS__PROFILES__SLIDEOPS_HEADER__INIT;
	struct enc_arrays arrays = { 0 };
	struct encoder e = { .p = p, .with_names = with_names };
	size_t raw_len;
	uint8_t *raw = NULL;
	int err = -ENOMEM;

	e.strings = strtab__new();
	e.function_index = hashmap__new();
	e.nstring_of = strtab__count(p->strings);
	e.string_of = calloc_n(e.nstring_of, sizeof(*e.string_of));
	if (!e.strings || !e.function_index || !e.string_of)
		goto out_free;

	err = enc__build(&e, &pb, &hdr, &arrays);
	if (err)
		goto out_free;

	raw_len = perftools__profiles__profile__get_packed_size(&pb);
	raw = malloc(raw_len ? raw_len : 1);
	if (!raw) {
		err = -ENOMEM;
		goto out_free;
	}
	perftools__profiles__profile__pack(&pb, raw);
	err = gzip__compress(raw, raw_len, out, len);

out_free:
	free(raw);
	enc_arrays__free(&arrays);
	free(e.functions);
	hashmap__free(e.function_index);
	free(e.string_of);
	strtab__free(e.strings);
	return err;
}
