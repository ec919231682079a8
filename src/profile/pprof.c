// SPDX-License-Identifier: MIT
/*
 * pprof read and write: the profile model to profile.proto (protobuf-c) and back,
 * gzip'd with zlib.
 *
 * Writing builds a fresh pprof string table (the model's own table holds names that
 * are not exported, and pprof wants only what it references). Locations carry a
 * Function only for names known at capture, unless the caller asks for names (an
 * export): then every location is named, so readers never need the binaries.
 *
 * Reading trusts nothing: every string index, mapping, location and function id is
 * checked, and the model is rebuilt through profile__add_* so its interning holds.
 * A pprof written by another tool (no SlideOps header) is read with defaults guessed
 * from its sample types. Reads outnumber writes: every `show` decodes a stored blob.
 */
#include "profile/pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "profile/profile.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/strtab.h"

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
 * wait, lock, lock_kind). */
#define MAX_LABELS 11

/* ---- gzip ---- */

static int gzip__compress(const void *in, size_t len, void **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap;
	void *buf;
	int ret;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&zs, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	/* zlib counts in uInt; feed inputs over 4 GB in pieces. */
	zs.next_in = (Bytef *)in;
	zs.next_out = buf;
	do {
		size_t in_left = len - (size_t)((const char *)zs.next_in - (const char *)in);
		size_t out_left = cap - (size_t)((char *)zs.next_out - (char *)buf);

		zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
		zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
		ret = deflate(&zs, zs.avail_in == in_left ? Z_FINISH : Z_NO_FLUSH);
	} while (ret == Z_OK);
	if (ret != Z_STREAM_END) {
		deflateEnd(&zs);
		free(buf);
		return -ENOMEM;
	}
	*out_len = (size_t)((char *)zs.next_out - (char *)buf);
	deflateEnd(&zs);
	*out = buf;
	return 0;
}

/*
 * Inflates one whole gzip member into out (out_cap bytes), or, with out NULL, only
 * counts its bytes (into a small scratch buffer) and checks it whole. A stream that
 * ends early, fails its CRC or length check, or has bytes after its end is not a whole
 * profile: -EBADMSG; one longer than budget: -EBADMSG as soon as it passes it.
 */
static int gzip__inflate(const void *in, size_t len, unsigned char *out, uint64_t budget,
			 size_t *out_len)
{
	/*
	 * The counting pass's output, this call's own: zlib reads its back-references from
	 * the output it wrote in the same call, so a buffer another thread writes at the
	 * same time (the server reads profiles concurrently) fails the CRC at random.
	 */
	enum { SCRATCH = 1 << 16 };
	unsigned char *scratch = NULL;
	z_stream zs = { 0 };
	uint64_t total = 0;
	int ret, err = -EBADMSG;

	if (!out && !(scratch = malloc(SCRATCH)))
		return -ENOMEM;
	if (inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(scratch);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	for (;;) {
		size_t in_left = len - (size_t)((const char *)zs.next_in - (const char *)in);
		uint64_t room = out ? budget - total : SCRATCH;
		uInt before;

		zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
		zs.next_out = out ? out + total : scratch;
		zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
		before = zs.avail_out;
		ret = inflate(&zs, Z_NO_FLUSH);
		total += before - zs.avail_out;
		if (total > budget)
			goto out_end; /* over budget: a bomb, or not ours */
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_MEM_ERROR) {
			err = -ENOMEM;
			goto out_end;
		}
		if (ret == Z_OK && (zs.avail_out == 0 || before != zs.avail_out))
			continue;
		/* No progress: the input ended before the stream, or out is full. */
		if (ret != Z_BUF_ERROR && ret != Z_OK)
			goto out_end;
		if (zs.avail_out != 0 || (out && total == budget))
			goto out_end;
	}
	if ((const char *)zs.next_in != (const char *)in + len)
		goto out_end; /* bytes after the stream */
	*out_len = (size_t)total;
	err = 0;
out_end:
	inflateEnd(&zs);
	free(scratch);
	return err;
}

/*
 * Twice: once to count and check (nothing kept), once into a buffer of exactly that
 * size. A gzip bomb is refused after the first pass has streamed through its budget,
 * with nothing allocated for it.
 */
static int gzip__decompress(const void *in, size_t len, void **out, size_t *out_len)
{
	uint64_t budget = (uint64_t)len * PPROF_MAX_RATIO;
	unsigned char *buf;
	size_t n, got;
	int err;

	if (budget < PPROF_MIN_RAW)
		budget = PPROF_MIN_RAW;
	if (budget > PPROF_MAX_RAW)
		budget = PPROF_MAX_RAW;
	err = gzip__inflate(in, len, NULL, budget, &n);
	if (err)
		return err;
	buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	err = gzip__inflate(in, len, buf, n, &got);
	if (!err && got != n)
		err = -EBADMSG;
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

/* ---- encoding ---- */

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
}

static void *calloc_n(size_t n, size_t size)
{
	/* calloc(0, ...) may return NULL; one element keeps "NULL means ENOMEM" true. */
	return calloc(n ? n : 1, size);
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

/* ---- files ---- */

int pprof__write_file(const struct profile *p, bool with_names, const char *path)
{
	void *data = NULL;
	size_t len;
	int err;

	err = pprof__encode(p, with_names, &data, &len);
	if (err)
		return err;
	fflush(stdout);
	err = file__write_output(path, data, len, 0644);
	free(data);
	return err;
}

int pprof__read_fd(int fd, struct profile **out)
{
	struct stat st;
	char *data;
	size_t got = 0;
	int err = 0;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > PPROF_MAX_FILE)
		return -EFBIG;
	data = malloc((size_t)st.st_size + 1);
	if (!data)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break; /* shrank under us: decoding will refuse what is left */
		got += (size_t)n;
	}
	if (!err)
		err = pprof__decode(data, got, out);
	free(data);
	return err;
}

int pprof__read_file(const char *path, struct profile **out)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	err = pprof__read_fd(fd, out);
	close(fd);
	return err;
}

/* ---- decoding ---- */

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

static int id_entry__cmp(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* ids[i] is the pprof id of element i; index[i] its model index. -EBADMSG on an id of 0
 * or a repeated id. */
static int id_index__build(struct id_index *ix, const uint64_t *ids, const uint32_t *index,
			   size_t n)
{
	ix->n = n;
	ix->dense = true;
	ix->entries = calloc_n(n, sizeof(*ix->entries));
	if (!ix->entries)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		ix->entries[i].id = ids[i];
		ix->entries[i].index = index[i];
		if (ids[i] != i + 1)
			ix->dense = false;
	}
	if (ix->dense)
		return 0;
	qsort(ix->entries, n, sizeof(*ix->entries), id_entry__cmp);
	for (size_t i = 0; i < n; i++)
		if (ix->entries[i].id == 0 || (i && ix->entries[i].id == ix->entries[i - 1].id))
			return -EBADMSG;
	return 0;
}

/* The model index of a pprof id, or UINT32_MAX when there is none. */
static uint32_t id_index__find(const struct id_index *ix, uint64_t id)
{
	size_t lo = 0, hi = ix->n;

	if (ix->dense)
		return id >= 1 && id <= ix->n ? ix->entries[id - 1].index : UINT32_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->entries[mid].id == id)
			return ix->entries[mid].index;
		if (ix->entries[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

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

static bool str_ok(const struct decoder *d, int64_t idx)
{
	return idx >= 0 && (uint64_t)idx < d->nstr;
}

static const char *pb_str(const struct decoder *d, int64_t idx)
{
	return d->pb->string_table[idx];
}

/* Which question a pprof from another tool answers, from its sample types, and which
 * columns hold the model's values. Go's profiles land where one expects: cpu as cpu,
 * mutex as locks, heap as memory, goroutine as threads. */
static enum question dec__guess_question(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	size_t n = pb->n_sample_type;
	int bytes_col = -1, ns_col = -1;

	/* A value of ours the other tool has no column for reads as 0. */
	for (int i = 0; i < PROFILE_MAX_VALUES; i++)
		d->value_cols[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const char *unit = pb_str(d, pb->sample_type[i]->unit);

		if (strcmp(unit, "bytes") == 0 &&
		    (bytes_col < 0 || pb->sample_type[i]->type == pb->default_sample_type))
			bytes_col = (int)i;
		if (strcmp(unit, "nanoseconds") == 0 && ns_col < 0)
			ns_col = (int)i;
	}
	if (bytes_col >= 0) {
		d->value_cols[0] = bytes_col;
		return QUESTION_MEMORY;
	}
	if (n >= 2 && ns_col == 1) {
		d->value_cols[0] = 0;
		d->value_cols[1] = 1;
		return strcmp(pb_str(d, pb->sample_type[0]->type), "contentions") == 0 ?
			       QUESTION_LOCKS :
			       QUESTION_CPU;
	}
	if (ns_col >= 0) {
		d->value_cols[0] = ns_col;
		return QUESTION_WALL;
	}
	d->value_cols[0] = 0;
	return QUESTION_THREADS;
}

static int dec__strings_and_question(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	const PbHeader *h = pb->slideops;
	enum question q;
	int qi;

	/* pprof's first string is always "". */
	if (pb->n_string_table < 1 || pb->string_table[0][0] != '\0')
		return -EBADMSG;
	d->nstr = pb->n_string_table;
	if (pb->n_sample_type < 1)
		return -EBADMSG;
	for (size_t i = 0; i < pb->n_sample_type; i++)
		if (!str_ok(d, pb->sample_type[i]->type) || !str_ok(d, pb->sample_type[i]->unit))
			return -EBADMSG;
	if (!str_ok(d, pb->default_sample_type))
		return -EBADMSG;

	if (h) {
		if (!str_ok(d, h->question) || !str_ok(d, h->hostname) ||
		    !str_ok(d, h->kernel_release) || !str_ok(d, h->tool_version) ||
		    !str_ok(d, h->kernel_build_id))
			return -EBADMSG;
		qi = question__parse(pb_str(d, h->question));
		if (qi < 0)
			return -EBADMSG;
		q = (enum question)qi;
		for (int i = 0; i < PROFILE_MAX_VALUES; i++)
			d->value_cols[i] = i;
	} else {
		q = dec__guess_question(d);
	}

	d->p = profile__new(q);
	if (!d->p)
		return -ENOMEM;
	/* Ours carries exactly the question's values; anything else is not our profile. */
	if (h && pb->n_sample_type != d->p->nvalues)
		return -EBADMSG;

	d->str = calloc_n(d->nstr, sizeof(*d->str));
	if (!d->str)
		return -ENOMEM;
	for (size_t i = 0; i < d->nstr; i++) {
		d->str[i] = profile__intern(d->p, pb->string_table[i]);
		if (d->str[i] == STRTAB_NONE)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < d->p->nvalues; i++) {
		const PbValueType *vt;

		if (d->value_cols[i] < 0)
			continue;
		vt = pb->sample_type[d->value_cols[i]];
		d->p->value_types[i].type = d->str[vt->type];
		d->p->value_types[i].unit = d->str[vt->unit];
	}
	return 0;
}

static int dec__header(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	const PbHeader *h = pb->slideops;
	struct prof_header *ph = &d->p->header;

	if (h) {
		ph->format_version = h->format_version;
		ph->hostname = d->str[h->hostname];
		ph->kernel_release = d->str[h->kernel_release];
		ph->kernel_build_id = d->str[h->kernel_build_id];
		ph->ncpus = h->ncpus;
		ph->started_at_ns = h->started_at_ns;
		ph->duration_ns = h->duration_ns;
		ph->sample_hz = h->sample_hz;
		ph->lost = h->lost;
		ph->stacks_truncated = h->stacks_truncated;
		ph->tool_version = d->str[h->tool_version];
		for (size_t i = 0; i < h->n_not_read; i++) {
			const PbNotRead *nr = h->not_read[i];

			/* A damaged entry is left out: the rest of the profile stands. */
			if (!str_ok(d, nr->path) || !str_ok(d, nr->build_id) ||
			    !str_ok(d, nr->reason))
				continue;
			if (profile__add_not_read(d->p, pb->string_table[nr->path],
						  pb->string_table[nr->build_id],
						  pb->string_table[nr->reason]))
				return -ENOMEM;
		}
		for (size_t i = 0; i < h->n_stack_exits; i++) {
			const PbStackExit *se = h->stack_exits[i];
			int kind = str_ok(d, se->kind) ? stack_exit__parse(pb->string_table[se->kind]) :
							 -1;

			/* A kind this version does not know is left out. */
			if (kind >= 0)
				ph->stack_exits[kind] = se->count;
			ph->stack_exits_recorded = true;
		}
		return 0;
	}
	ph->started_at_ns = pb->time_nanos;
	ph->duration_ns = pb->duration_nanos > 0 ? (uint64_t)pb->duration_nanos : 0;
	/* Unknown machine: one CPU keeps "share of the server's CPU" defined. */
	ph->ncpus = 1;
	if (pb->period_type && str_ok(d, pb->period_type->unit) &&
	    strcmp(pb_str(d, pb->period_type->unit), "nanoseconds") == 0 && pb->period > 0 &&
	    pb->period <= 1000000000LL)
		ph->sample_hz = (uint32_t)((1000000000LL + pb->period / 2) / pb->period);
	return 0;
}

/* A mapping's kind when the file does not say (another tool's pprof). */
static enum mapping_kind guess_kind(const char *path, size_t index)
{
	const char *base = strrchr(path, '/');

	if (!*path)
		return MAPPING_ANON;
	if (strncmp(path, "[kernel", 7) == 0 || strncmp(path, "[vmlinux", 8) == 0)
		return MAPPING_KERNEL;
	if (strcmp(path, "[vdso]") == 0)
		return MAPPING_VDSO;
	if (path[0] == '[')
		return MAPPING_ANON;
	base = base ? base + 1 : path;
	if (strstr(base, ".so"))
		return MAPPING_LIB;
	return index == 0 ? MAPPING_EXE : MAPPING_LIB;
}

static int dec__mappings(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	uint64_t *ids;
	uint32_t *pos;
	int err = -ENOMEM;

	d->mapping_of = calloc_n(pb->n_mapping, sizeof(*d->mapping_of));
	ids = calloc_n(pb->n_mapping, sizeof(*ids));
	pos = calloc_n(pb->n_mapping, sizeof(*pos));
	if (!d->mapping_of || !ids || !pos)
		goto out_free;
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const PbMapping *pm = pb->mapping[i];
		struct prof_mapping m = { 0 };
		int kind = -1, lang = -1;

		err = -EBADMSG;
		if (!str_ok(d, pm->filename) || !str_ok(d, pm->build_id) ||
		    !str_ok(d, pm->slideops_kind) || !str_ok(d, pm->slideops_language))
			goto out_free;
		m.path = d->str[pm->filename];
		m.build_id = d->str[pm->build_id];
		if (strlen(pb_str(d, pm->build_id)) > BUILD_ID_HEX_MAX) {
			if (d->ours)
				goto out_free;
			m.build_id = 0; /* not a build id we could ever match */
		}
		/* Kinds or languages a later version adds read as the nearest we know. */
		if (pm->slideops_kind)
			kind = mapping_kind__parse(pb_str(d, pm->slideops_kind));
		m.kind = kind >= 0 ? (enum mapping_kind)kind :
				     guess_kind(pb_str(d, pm->filename), i);
		if (pm->slideops_language)
			lang = language__parse(pb_str(d, pm->slideops_language));
		if (lang >= 0)
			m.language = (enum language)lang;
		else
			m.language = m.kind == MAPPING_KERNEL ? LANGUAGE_KERNEL : LANGUAGE_OTHER;
		m.has_symtab = pm->slideops_has_symtab;
		m.from_package = pm->slideops_from_package;
		m.start = pm->memory_start;
		m.limit = pm->memory_limit > pm->memory_start ? pm->memory_limit : 0;
		m.offset = pm->file_offset;
		m.vaddr = d->ours ? pm->slideops_vaddr : pm->file_offset;
		if (!m.limit)
			m.start = m.offset = m.vaddr = 0;
		/* pprof keeps build ids; only our own early captures may lack them. */
		m.build_id_recorded = d->ours ? pm->slideops_build_id_recorded : true;

		err = -ENOMEM;
		d->mapping_of[i] = profile__add_mapping(d->p, &m);
		if (d->mapping_of[i] == UINT32_MAX)
			goto out_free;
		ids[i] = pm->id;
		pos[i] = (uint32_t)i;
	}
	/* By pprof id to the position in pb->mapping: locations need both the model's
	 * index (mapping_of) and the pprof mapping's addresses. */
	err = id_index__build(&d->mappings, ids, pos, pb->n_mapping);
out_free:
	free(ids);
	free(pos);
	return err;
}

static int dec__functions(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	uint64_t *ids;
	uint32_t *pos;
	int err = -ENOMEM;

	d->function_name = calloc_n(pb->n_function, sizeof(*d->function_name));
	d->function_file = calloc_n(pb->n_function, sizeof(*d->function_file));
	d->function_start = calloc_n(pb->n_function, sizeof(*d->function_start));
	ids = calloc_n(pb->n_function, sizeof(*ids));
	pos = calloc_n(pb->n_function, sizeof(*pos));
	if (!d->function_name || !d->function_file || !d->function_start || !ids || !pos)
		goto out_free;
	err = -EBADMSG;
	for (size_t i = 0; i < pb->n_function; i++) {
		const PbFunction *f = pb->function[i];

		if (!str_ok(d, f->name) || !str_ok(d, f->system_name) || !str_ok(d, f->filename))
			goto out_free;
		/* Some writers fill only system_name. */
		d->function_name[i] = d->str[f->name ? f->name : f->system_name];
		d->function_file[i] = d->str[f->filename];
		d->function_start[i] = f->start_line;
		ids[i] = f->id;
		pos[i] = (uint32_t)i;
	}
	err = id_index__build(&d->functions, ids, pos, pb->n_function);
out_free:
	free(ids);
	free(pos);
	return err;
}

/* The mapping for locations that name none: one anonymous mapping, made on first use. */
static uint32_t dec__anon_mapping(struct decoder *d)
{
	struct prof_mapping m = { .kind = MAPPING_ANON,
				  .language = LANGUAGE_OTHER,
				  .build_id_recorded = true };

	if (d->anon_mapping == UINT32_MAX)
		d->anon_mapping = profile__add_mapping(d->p, &m);
	return d->anon_mapping;
}

static int dec__locations(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	uint64_t *ids;
	uint32_t *index;
	int err = -ENOMEM;

	ids = calloc_n(pb->n_location, sizeof(*ids));
	index = calloc_n(pb->n_location, sizeof(*index));
	if (!ids || !index)
		goto out_free;
	for (size_t i = 0; i < pb->n_location; i++) {
		const PbLocation *pl = pb->location[i];
		struct prof_location l = { 0 };

		err = -EBADMSG;
		if (pl->mapping_id) {
			uint32_t pos = id_index__find(&d->mappings, pl->mapping_id);
			const PbMapping *pm;

			if (pos == UINT32_MAX)
				goto out_free;
			pm = pb->mapping[pos];
			l.mapping = d->mapping_of[pos];
			l.address = pl->address;
			/* Others (and our exports) record run-time addresses; the model keeps
			 * file-relative ones. */
			if (!d->ours && pm->memory_start && pl->address >= pm->memory_start)
				l.address = pl->address - pm->memory_start + pm->file_offset;
			else if (d->ours && d->pb->slideops->runtime_addresses &&
				 pm->memory_limit > pm->memory_start &&
				 pl->address >= pm->memory_start && pl->address < pm->memory_limit)
				l.address = pl->address - pm->memory_start + pm->slideops_vaddr;
		} else {
			l.mapping = dec__anon_mapping(d);
			l.address = pl->address;
			err = -ENOMEM;
			if (l.mapping == UINT32_MAX)
				goto out_free;
		}
		err = -EBADMSG;
		for (size_t j = 0; j < pl->n_line; j++) {
			uint32_t f = id_index__find(&d->functions, pl->line[j]->function_id);

			if (f == UINT32_MAX)
				goto out_free;
			/* The model has one function a location; the innermost names it. */
			if (j == 0) {
				l.function = d->function_name[f];
				l.file = d->function_file[f];
				l.line = pl->line[j]->line;
				l.start_line = d->function_start[f];
			}
		}
		index[i] = profile__add_location(d->p, &l);
		err = -ENOMEM;
		if (index[i] == UINT32_MAX)
			goto out_free;
		ids[i] = pl->id;
	}
	err = id_index__build(&d->locations, ids, index, pb->n_location);
out_free:
	free(ids);
	free(index);
	return err;
}

/* Reads one label into labels. Unknown keys (other tools') are skipped. */
static int dec__label(struct decoder *d, const PbLabel *pl, struct prof_labels *lb)
{
	const char *key;
	uint32_t str;
	int kind;

	if (!str_ok(d, pl->key) || !str_ok(d, pl->str) || !str_ok(d, pl->num_unit))
		return -EBADMSG;
	key = pb_str(d, pl->key);
	str = d->str[pl->str];
	if (strcmp(key, "pid") == 0 || strcmp(key, "tid") == 0) {
		if (pl->num < INT32_MIN || pl->num > INT32_MAX)
			return -EBADMSG;
		*(key[0] == 'p' ? &lb->pid : &lb->tid) = (int32_t)pl->num;
	} else if (strcmp(key, "comm") == 0) {
		lb->comm = str;
	} else if (strcmp(key, "thread") == 0) {
		lb->thread = str;
	} else if (strcmp(key, "group") == 0) {
		lb->group = str;
	} else if (strcmp(key, "group_kind") == 0) {
		kind = group_kind__parse(pb_str(d, pl->str));
		lb->group_kind = kind >= 0 ? (enum group_kind)kind : GROUP_OTHER;
	} else if (strcmp(key, "exe") == 0) {
		lb->exe = str;
	} else if (strcmp(key, "state") == 0) {
		lb->state = str;
	} else if (strcmp(key, "wait") == 0) {
		lb->wait = str;
	} else if (strcmp(key, "lock") == 0) {
		lb->lock = (uint64_t)pl->num;
	} else if (strcmp(key, "lock_kind") == 0) {
		lb->lock_kind = str;
	}
	return 0;
}

static int dec__samples(struct decoder *d)
{
	const PbProfile *pb = d->pb;
	int64_t totals[PROFILE_MAX_VALUES] = { 0 };
	uint32_t no_frames[1] = { 0 }, *locs = NULL;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < pb->n_sample; i++) {
		const PbSample *ps = pb->sample[i];
		struct prof_labels lb = { .group_kind = GROUP_OTHER };
		int64_t values[PROFILE_MAX_VALUES] = { 0 };
		uint32_t stack;

		err = -EBADMSG;
		if (ps->n_value != pb->n_sample_type || ps->n_location_id > UINT32_MAX / 2)
			break;
		if (ps->n_location_id > cap) {
			uint32_t *n = realloc(locs, sizeof(*locs) * ps->n_location_id);

			err = -ENOMEM;
			if (!n)
				break;
			locs = n;
			cap = ps->n_location_id;
		}
		err = -EBADMSG;
		for (size_t j = 0; j < ps->n_location_id; j++) {
			locs[j] = id_index__find(&d->locations, ps->location_id[j]);
			if (locs[j] == UINT32_MAX)
				goto out_free;
		}
		/* Counts, nanoseconds and bytes: never negative, and their sums must fit, so
		 * totals and merged samples cannot overflow downstream. */
		for (uint32_t j = 0; j < d->p->nvalues; j++) {
			values[j] = d->value_cols[j] < 0 ? 0 : ps->value[d->value_cols[j]];
			if (values[j] < 0 ||
			    __builtin_add_overflow(totals[j], values[j], &totals[j]))
				goto out_free;
		}
		for (size_t j = 0; j < ps->n_label; j++) {
			err = dec__label(d, ps->label[j], &lb);
			if (err)
				goto out_free;
		}
		err = -ENOMEM;
		/* Never NULL, even for a sample without frames: memcpy/memcmp want a pointer. */
		stack = profile__add_stack(d->p, locs ? locs : no_frames,
					   (uint32_t)ps->n_location_id);
		if (stack == UINT32_MAX)
			break;
		err = profile__add_sample(d->p, stack, values, &lb);
		if (err)
			break;
	}
out_free:
	free(locs);
	return err;
}

static int dec__profile(struct decoder *d)
{
	int err;

	err = dec__strings_and_question(d);
	if (err)
		return err;
	err = dec__header(d);
	if (!err)
		err = dec__mappings(d);
	if (!err)
		err = dec__functions(d);
	if (!err)
		err = dec__locations(d);
	if (!err)
		err = dec__samples(d);
	return err;
}

int pprof__decode(const void *data, size_t len, struct profile **out)
{
	struct decoder d = { .anon_mapping = UINT32_MAX };
	const unsigned char *bytes = data;
	void *raw = NULL;
	size_t raw_len = len;
	PbProfile *pb;
	int err;

	*out = NULL;
	/* Stored and exported profiles are gzip'd; pprof also reads them plain. */
	if (len >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
		err = gzip__decompress(data, len, &raw, &raw_len);
		if (err)
			return err;
		data = raw;
	}
	pb = perftools__profiles__profile__unpack(NULL, raw_len, data);
	if (!pb) {
		free(raw);
		return -EBADMSG;
	}
	d.pb = pb;
	d.ours = pb->slideops != NULL;
	err = dec__profile(&d);
	if (err) {
		profile__free(d.p);
	} else {
		*out = d.p;
	}
	free(d.str);
	free(d.mapping_of);
	free(d.function_name);
	free(d.function_file);
	free(d.function_start);
	free(d.mappings.entries);
	free(d.functions.entries);
	free(d.locations.entries);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(raw);
	return err;
}
