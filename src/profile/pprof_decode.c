// SPDX-License-Identifier: MIT
/*
 * pprof reading: profile.proto (gzip'd or plain) to the profile model.
 *
 * Reading trusts nothing: every string index, mapping, location and function id is
 * checked, and the model is rebuilt through profile__add_* so its interning holds.
 * A pprof written by another tool (no SlideOps header) is read with defaults guessed
 * from its sample types. Reads outnumber writes: every `show` decodes a stored blob.
 * One decoder over one message, its passes in order; the first ones (strings, which
 * question, the SlideOps header) are pprof_decode_header.c.
 */
#include "profile/pprof.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_decoder.h"
#include "profile/pprof_internal.h"
#include "profile/profile.h"
#include "util/pb_limits.h"

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
	} else if (strcmp(key, "wait_reason") == 0) {
		lb->wait_reason = str;
	} else if (strcmp(key, "thread_ran_ns") == 0) {
		if (pl->num < 0)
			return -EBADMSG;
		lb->thread_ran_ns = pl->num;
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

/* Past a limit of l (0: none): its name, else NULL. */
static const char *past_limit(const PbProfile *pb, const struct pprof_limits *l)
{
	uint64_t stack_locations = 0, string_bytes = 0;

	if (l->mappings && pb->n_mapping > l->mappings)
		return "mappings";
	if (l->locations && pb->n_location > l->locations)
		return "locations";
	if (l->functions && pb->n_function > l->functions)
		return "functions";
	if (l->samples && pb->n_sample > l->samples)
		return "samples";
	if (l->strings && pb->n_string_table > l->strings)
		return "strings";
	for (size_t i = 0; l->stack_locations && i < pb->n_sample; i++)
		stack_locations += pb->sample[i]->n_location_id;
	if (l->stack_locations && stack_locations > l->stack_locations)
		return "stack_locations";
	for (size_t i = 0; l->string_bytes && i < pb->n_string_table; i++)
		string_bytes += strlen(pb->string_table[i]);
	if (l->string_bytes && string_bytes > l->string_bytes)
		return "string_bytes";
	return NULL;
}

/* Before unpacking: how many samples, mappings, locations, functions and strings the
 * bytes hold, against l, without allocating. */
static const char *past_limit_on_wire(const void *data, size_t len, const struct pprof_limits *l)
{
	uint64_t n[6];

	if (pb_count_fields(data, len, n, 6))
		return NULL; /* not a message: the unpack says so */
	if (l->samples && n[1] > l->samples)
		return "samples";
	if (l->mappings && n[2] > l->mappings)
		return "mappings";
	if (l->locations && n[3] > l->locations)
		return "locations";
	if (l->functions && n[4] > l->functions)
		return "functions";
	if (l->strings && n[5] > l->strings)
		return "strings";
	return NULL;
}

int pprof__decode_within(const void *data, size_t len, const struct pprof_limits *l,
			 struct profile **out, const char **which)
{
	struct decoder d = { .anon_mapping = UINT32_MAX };
	const unsigned char *bytes = data;
	struct pb_budget budget;
	const char *past;
	void *raw = NULL;
	size_t raw_len = len;
	PbProfile *pb;
	int err;

	*out = NULL;
	if (which)
		*which = NULL;
	/* Stored and exported profiles are gzip'd; pprof also reads them plain. */
	if (len >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
		err = gzip__decompress(data, len, &raw, &raw_len);
		if (err)
			return err;
		data = raw;
	}
	past = l ? past_limit_on_wire(data, raw_len, l) : NULL;
	if (past) {
		if (which)
			*which = past;
		free(raw);
		return -E2BIG;
	}
	pb_budget__init(&budget, l && l->unpack_bytes ? l->unpack_bytes : SIZE_MAX,
			l ? l->pool : NULL);
	pb = perftools__profiles__profile__unpack(&budget.allocator, raw_len, data);
	if (!pb) {
		free(raw);
		if (budget.pool_refused)
			return -EBUSY;
		if (budget.refused && which)
			*which = "bytes";
		return budget.refused ? -E2BIG : -EBADMSG;
	}
	past = l ? past_limit(pb, l) : NULL;
	if (past) {
		if (which)
			*which = past;
		perftools__profiles__profile__free_unpacked(pb, &budget.allocator);
		free(raw);
		return -E2BIG;
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
	perftools__profiles__profile__free_unpacked(pb, &budget.allocator);
	free(raw);
	return err;
}

int pprof__decode(const void *data, size_t len, struct profile **out)
{
	return pprof__decode_within(data, len, NULL, out, NULL);
}
