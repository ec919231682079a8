// SPDX-License-Identifier: MIT
/*
 * What a symbolized profile says (DESIGN §6, §7, §8): owner groups and their processes,
 * "most of it in", the answer, the functions by self and total, and the stripped-binary
 * card. One pass over the samples per measure; everything keyed by dense ids (string ids
 * of names and labels, indexes of locations and mappings), so a profile of 100k samples
 * and 50k locations is analysed in a few arrays, without hashing strings.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/answer.h"
#include "analysis/format.h"
#include "analysis/waits.h"
#include "elf/elf_file.h"
#include "unwind/python.h"

#define NONE UINT32_MAX

/*
 * How far a frame is from "the group's own code", best first. "Most of it in" takes
 * each sample's leaf-most frame of the best tier it has (DESIGN §6).
 */
enum tier {
	TIER_OWN,    /* the group's own code: not kernel, not a runtime, not a system library */
	TIER_USER,   /* any other user-space frame (runtimes, system libraries, vdso, anon) */
	TIER_KERNEL,
	TIER__COUNT,
};

struct ctx {
	const struct profile *p;
	uint32_t main;         /* index of the main value */
	uint8_t *tier;         /* per location */
	uint32_t *group;       /* per sample: index into groups (unsorted); NONE: left out */
	uint8_t *skip;         /* per sample: not what the question is about (locks) */
	struct analysis_group *groups;
	uint32_t ngroups;
};

/* ---- frames ---- */

/* A binary of the user's: what the card lists and "most of it in" prefers. */
static bool mapping__is_ours(const struct profile *p, const struct prof_mapping *m)
{
	const char *path = profile__str(p, m->path);

	if (m->kind != MAPPING_EXE && m->kind != MAPPING_LIB && m->kind != MAPPING_JIT)
		return false;
	return !binary__is_system(path, m->from_package);
}

static uint32_t location__name(const struct prof_location *l)
{
	return l->name ? l->name : l->function;
}

static bool ctx__counts(const struct ctx *c, uint32_t sample)
{
	return !c->skip || !c->skip[sample];
}

/*
 * Samples kept in the profile but not in the answer, groups, shares or functions:
 * locks, the waits that are not for a lock (condition variables, joins, idle pools);
 * wall, the threads that never ran in the window (idle kernel threads and pools would
 * swamp the answer).
 */
static int ctx__classify_samples(struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	enum question q = p->header.question;

	a->total = 0;
	if (q == QUESTION_LOCKS || q == QUESTION_WALL) {
		c->skip = calloc(p->nsamples ? p->nsamples : 1, 1);
		if (!c->skip)
			return -ENOMEM;
		for (uint32_t i = 0; i < p->nsamples; i++)
			c->skip[i] = !sample__counts(p, &p->samples[i]);
	}
	for (uint32_t i = 0; i < p->nsamples; i++)
		if (ctx__counts(c, i))
			a->total += p->samples[i].values[c->main];
	return 0;
}

static int ctx__classify_locations(struct ctx *c)
{
	const struct profile *p = c->p;
	uint8_t *ours;

	c->tier = calloc(p->nlocations ? p->nlocations : 1, 1);
	ours = calloc(p->nmappings ? p->nmappings : 1, 1);
	if (!c->tier || !ours) {
		free(ours);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < p->nmappings; i++)
		ours[i] = mapping__is_ours(p, &p->mappings[i]);
	for (uint32_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *l = &p->locations[i];
		const struct prof_mapping *m = l->mapping < p->nmappings ?
						       &p->mappings[l->mapping] : NULL;

		if (m && m->kind == MAPPING_KERNEL)
			c->tier[i] = TIER_KERNEL;
		else if (l->file && python__is_library_file(profile__str(p, l->file)))
			c->tier[i] = TIER_USER; /* Python's standard library, installed packages */
		else if (l->file || (m && ours[l->mapping]))
			c->tier[i] = TIER_OWN; /* the user's interpreted code */
		else
			c->tier[i] = TIER_USER;
	}
	free(ours);
	return 0;
}

/* The sample's "where" frame: leaf-most of its best tier. NONE for an empty stack. */
static uint32_t ctx__where(const struct ctx *c, uint32_t stack, enum tier *tier)
{
	uint32_t depth, best = NONE;
	const uint32_t *locs = profile__stack(c->p, stack, &depth);
	enum tier best_tier = TIER__COUNT;

	for (uint32_t i = 0; i < depth && best_tier != TIER_OWN; i++) {
		if (c->tier[locs[i]] < best_tier) {
			best_tier = c->tier[locs[i]];
			best = locs[i];
		}
	}
	*tier = best_tier;
	return best;
}

/* ---- tallies: sums by (key, tier, name), reduced by sorting ---- */

struct tally {
	uint32_t key;
	uint32_t tier;
	uint32_t name;
	int64_t value;
};

static int tally__cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return 0;
}

/* Sorts and merges equal (key, tier, name) entries; returns the new count. */
static size_t tally__reduce(struct tally *t, size_t n)
{
	size_t out = 0;

	if (!n)
		return 0;
	qsort(t, n, sizeof(*t), tally__cmp);
	for (size_t i = 1; i < n; i++) {
		if (tally__cmp(&t[out], &t[i]) == 0)
			t[out].value += t[i].value;
		else
			t[++out] = t[i];
	}
	return out + 1;
}

/* Is name a better pick than the current best (more value, then the first by name)? */
static bool tally__better(const struct profile *p, const struct tally *cand,
			  const struct tally *best)
{
	if (!best)
		return true;
	if (cand->value != best->value)
		return cand->value > best->value;
	return strcmp(profile__str(p, cand->name), profile__str(p, best->name)) < 0;
}

/*
 * For each key in [0, nkeys): the name with the most value in the best tier the key
 * has. out[key] is a string id, or NONE. t is reduced in place.
 */
static void tally__best(const struct profile *p, struct tally *t, size_t n, uint32_t nkeys,
			uint32_t *out)
{
	const struct tally *best = NULL;

	for (uint32_t k = 0; k < nkeys; k++)
		out[k] = NONE;
	n = tally__reduce(t, n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].value <= 0)
			continue;
		best = out[t[i].key] == NONE ? NULL : best;
		/* Entries are sorted by tier within a key: the first tier seen is the best. */
		if (best && t[i].tier != best->tier)
			continue;
		if (tally__better(p, &t[i], best)) {
			best = &t[i];
			out[t[i].key] = t[i].name;
		}
	}
}

/*
 * "Most of it in" for every group, over the samples include() accepts (NULL: all).
 * out[g] is a string id or NONE.
 */
static int ctx__top_places(const struct ctx *c, bool (*include)(const struct ctx *, uint32_t),
			   uint32_t *out)
{
	const struct profile *p = c->p;
	struct tally *t = malloc(sizeof(*t) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0;

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		enum tier tier;
		uint32_t loc;

		if (c->group[i] == NONE || (include && !include(c, i)))
			continue;
		loc = ctx__where(c, s->stack, &tier);
		if (loc == NONE)
			continue;
		t[n++] = (struct tally){ c->group[i], tier,
					 location__name(&p->locations[loc]),
					 s->values[c->main] };
	}
	tally__best(p, t, n, c->ngroups, out);
	free(t);
	return 0;
}

/* ---- groups and their processes ---- */

static const char *group__name(const char *label, enum group_kind kind)
{
	const char *space = strchr(label, ' ');

	/* "Service billing" -> "billing"; "Signed-in sessions" and "System" are their own. */
	if ((kind == GROUP_SERVICE || kind == GROUP_CONTAINER || kind == GROUP_UNIT) && space)
		return space + 1;
	return label;
}

struct proc_entry {
	uint32_t group;
	int32_t pid;
	uint32_t comm;
	int64_t value;
};

static int proc_entry__cmp(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return 0;
}

static int process__cmp(const void *a, const void *b)
{
	const struct analysis_process *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int group__cmp(const void *a, const void *b)
{
	const struct analysis_group *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->label, y->label);
}

static double share(int64_t value, int64_t of)
{
	return of > 0 ? (double)value / (double)of : 0.0;
}

static bool sample__running(const struct profile *p, const struct prof_sample *s);

/* What each question adds to a group beside its value. */
static void ctx__group_extras(const struct ctx *c, struct analysis_group *g,
			      const struct prof_sample *s)
{
	switch (c->p->header.question) {
	case QUESTION_WALL:
	case QUESTION_THREADS:
		if (sample__running(c->p, s))
			g->running += s->values[c->main];
		else
			g->waiting += s->values[c->main];
		break;
	case QUESTION_LOCKS:
		g->contentions += s->values[0];
		if (c->p->nvalues > 2 && s->values[2] > g->longest)
			g->longest = s->values[2];
		break;
	case QUESTION_MEMORY:
		if (c->p->nvalues > 2) {
			g->file_bytes += s->values[1];
			g->net_bytes += s->values[0] - s->values[2];
		}
		break;
	default:
		break;
	}
}

static int ctx__groups(struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t nstr = strtab__count(p->strings);
	uint32_t *by_label = malloc(sizeof(*by_label) * (nstr ? nstr : 1));
	struct proc_entry *procs = malloc(sizeof(*procs) * (p->nsamples ? p->nsamples : 1));
	size_t nprocs = 0;
	int err = -ENOMEM;

	c->group = malloc(sizeof(*c->group) * (p->nsamples ? p->nsamples : 1));
	c->groups = calloc(p->nsamples ? p->nsamples : 1, sizeof(*c->groups));
	if (!by_label || !procs || !c->group || !c->groups)
		goto out_free;
	for (uint32_t i = 0; i < nstr; i++)
		by_label[i] = NONE;

	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		uint32_t label = s->labels.group < nstr ? s->labels.group : 0;
		uint32_t g = by_label[label];

		if (!ctx__counts(c, i)) {
			c->group[i] = NONE;
			continue;
		}
		if (g == NONE) {
			struct analysis_group *ng = &c->groups[c->ngroups];

			g = by_label[label] = c->ngroups++;
			ng->label = profile__str(p, label);
			ng->kind = s->labels.group_kind;
			ng->name = group__name(ng->label, ng->kind);
		}
		c->group[i] = g;
		c->groups[g].value += s->values[c->main];
		ctx__group_extras(c, &c->groups[g], s);
		procs[nprocs++] = (struct proc_entry){ g, s->labels.pid, s->labels.comm,
						       s->values[c->main] };
	}

	/* Processes: merge by (group, pid, comm), then hand each group its run. */
	if (nprocs) {
		size_t out = 0;

		qsort(procs, nprocs, sizeof(*procs), proc_entry__cmp);
		for (size_t i = 1; i < nprocs; i++) {
			if (proc_entry__cmp(&procs[out], &procs[i]) == 0)
				procs[out].value += procs[i].value;
			else
				procs[++out] = procs[i];
		}
		nprocs = out + 1;
	}
	for (size_t i = 0; i < nprocs; i++)
		c->groups[procs[i].group].nprocesses++;
	for (uint32_t g = 0; g < c->ngroups; g++) {
		c->groups[g].processes = calloc(c->groups[g].nprocesses,
						sizeof(*c->groups[g].processes));
		if (!c->groups[g].processes)
			goto out_free;
		c->groups[g].nprocesses = 0;
	}
	for (size_t i = 0; i < nprocs; i++) {
		struct analysis_group *g = &c->groups[procs[i].group];
		struct analysis_process *pr = &g->processes[g->nprocesses++];

		pr->pid = procs[i].pid;
		pr->comm = profile__str(p, procs[i].comm);
		pr->value = procs[i].value;
		pr->share = share(pr->value, a->share_of);
	}
	for (uint32_t g = 0; g < c->ngroups; g++) {
		c->groups[g].share = share(c->groups[g].value, a->share_of);
		qsort(c->groups[g].processes, c->groups[g].nprocesses,
		      sizeof(*c->groups[g].processes), process__cmp);
	}
	err = 0;

out_free:
	free(by_label);
	free(procs);
	return err;
}

static int ctx__top_functions(struct ctx *c)
{
	uint32_t *top = malloc(sizeof(*top) * (c->ngroups ? c->ngroups : 1));

	if (!top || ctx__top_places(c, NULL, top)) {
		free(top);
		return -ENOMEM;
	}
	for (uint32_t g = 0; g < c->ngroups; g++)
		c->groups[g].top_function = top[g] == NONE ? NULL : profile__str(c->p, top[g]);
	free(top);
	return 0;
}

/* ---- functions ---- */

struct fn_acc {
	uint32_t name;
	enum language language;
	int64_t self, total;
	uint32_t seen;  /* the last sample (+1) that counted it: once per sample */
};

static int function__cmp(const void *a, const void *b)
{
	const struct analysis_function *x = a, *y = b;

	if (x->self_value != y->self_value)
		return x->self_value > y->self_value ? -1 : 1;
	if (x->total_value != y->total_value)
		return x->total_value > y->total_value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int ctx__functions(struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t nstr = strtab__count(p->strings), n = 0;
	uint32_t *by_name = malloc(sizeof(*by_name) * (nstr ? nstr : 1));
	struct fn_acc *acc = calloc(p->nlocations ? p->nlocations : 1, sizeof(*acc));
	int err = -ENOMEM;

	if (!by_name || !acc)
		goto out_free;
	for (uint32_t i = 0; i < nstr; i++)
		by_name[i] = NONE;

	for (uint32_t si = 0; si < p->nsamples; si++) {
		const struct prof_sample *s = &p->samples[si];
		int64_t v = s->values[c->main];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);

		for (uint32_t i = 0; i < depth && ctx__counts(c, si); i++) {
			const struct prof_location *l = &p->locations[locs[i]];
			uint32_t name = location__name(l) < nstr ? location__name(l) : 0;
			struct fn_acc *f;

			if (by_name[name] == NONE) {
				/* At most one function per location: n < nlocations. */
				by_name[name] = n;
				acc[n].name = name;
				acc[n].language = l->language;
				n++;
			}
			f = &acc[by_name[name]];
			if (i == 0)
				f->self += v;
			if (f->seen != si + 1) {
				f->seen = si + 1;
				f->total += v;
			}
		}
	}

	a->functions = calloc(n ? n : 1, sizeof(*a->functions));
	if (!a->functions)
		goto out_free;
	for (uint32_t i = 0; i < n; i++) {
		struct analysis_function *f = &a->functions[i];

		f->name = profile__str(p, acc[i].name);
		f->language = acc[i].language;
		f->self_value = acc[i].self;
		f->total_value = acc[i].total;
		f->self = share(acc[i].self, a->total);
		f->total = share(acc[i].total, a->total);
	}
	a->nfunctions = n;
	qsort(a->functions, n, sizeof(*a->functions), function__cmp);
	err = 0;

out_free:
	free(by_name);
	free(acc);
	return err;
}

/* ---- the stripped-binary card ---- */

static int stripped__cmp(const void *a, const void *b)
{
	const struct analysis_stripped *x = a, *y = b;

	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int ctx__stripped(struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t nm = p->nmappings ? p->nmappings : 1;
	uint32_t *unnamed = malloc(sizeof(*unnamed) * (p->nlocations ? p->nlocations : 1));
	uint32_t *seen = calloc(nm, sizeof(*seen));
	int64_t *value = calloc(nm, sizeof(*value));
	uint8_t *ours = calloc(nm, 1);
	int err = -ENOMEM;
	size_t n = 0;

	if (!unnamed || !seen || !value || !ours)
		goto out_free;
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];

		/* JIT code is named by its runtime, never by an upload: not on the card. */
		ours[i] = m->kind != MAPPING_JIT && mapping__is_ours(p, m);
	}
	for (uint32_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *l = &p->locations[i];

		unnamed[i] = !l->named && !l->file && l->mapping < p->nmappings &&
					     ours[l->mapping] ?
				     l->mapping :
				     NONE;
	}
	/* A sample counts once for a binary, however many of its frames have no name. */
	for (uint32_t si = 0; si < p->nsamples; si++) {
		const struct prof_sample *s = &p->samples[si];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);

		for (uint32_t i = 0; i < depth && ctx__counts(c, si); i++) {
			uint32_t m = unnamed[locs[i]];

			if (m == NONE || seen[m] == si + 1)
				continue;
			seen[m] = si + 1;
			value[m] += s->values[c->main];
		}
	}

	a->stripped = calloc(nm, sizeof(*a->stripped));
	if (!a->stripped)
		goto out_free;
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];
		struct analysis_stripped *st;
		double sh = share(value[i], a->total);

		if (value[i] <= 0 || sh < 0.01)
			continue;
		st = &a->stripped[n++];
		st->path = profile__str(p, m->path);
		st->share = sh;
		st->build_id = profile__str(p, m->build_id);
		st->has_build_id = st->build_id[0] != '\0';
		st->build_id_recorded = m->build_id_recorded;
		if (!m->build_id_recorded)
			a->build_ids_missing = true;
	}
	a->nstripped = n;
	qsort(a->stripped, n, sizeof(*a->stripped), stripped__cmp);
	err = 0;

out_free:
	free(unnamed);
	free(seen);
	free(value);
	free(ours);
	return err;
}

/* ---- answers ---- */

static struct answer_group answer_group__of(const struct analysis_group *g)
{
	return (struct answer_group){ .label = g->label, .share = g->share, .value = g->value,
				      .where = g->top_function };
}

/* memory: the two groups that grew the most, net of what they gave back. */
static char *analysis__answer_memory(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	const struct analysis_group *best[2] = { NULL, NULL };
	struct answer_group first, next;

	for (size_t g = 0; g < a->ngroups; g++) {
		const struct analysis_group *x = &a->groups[g];

		if (x->net_bytes <= 0)
			continue;
		if (!best[0] || x->net_bytes > best[0]->net_bytes) {
			best[1] = best[0];
			best[0] = x;
		} else if (!best[1] || x->net_bytes > best[1]->net_bytes) {
			best[1] = x;
		}
	}
	for (int i = 0; i < 2 && best[i]; i++) {
		struct answer_group *ag = i == 0 ? &first : &next;

		*ag = answer_group__of(best[i]);
		ag->value = best[i]->net_bytes;
	}
	return answer__memory(h->duration_ns, best[0] ? &first : NULL, best[1] ? &next : NULL);
}

/* cpu, locks: the two largest groups by the main value. */
static char *analysis__answer_amount(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	struct answer_group first, next;
	bool any = a->ngroups && a->total > 0;
	bool more = any && a->ngroups > 1 && a->groups[1].value > 0;

	if (any)
		first = answer_group__of(&a->groups[0]);
	if (more)
		next = answer_group__of(&a->groups[1]);
	switch (h->question) {
	case QUESTION_LOCKS:
		return answer__locks(h->duration_ns, any ? &first : NULL, more ? &next : NULL);
	case QUESTION_MEMORY:
		return analysis__answer_memory(a);
	default:
		return answer__cpu(h->duration_ns, any ? &first : NULL, more ? &next : NULL);
	}
}

static bool sample__running(const struct profile *p, const struct prof_sample *s)
{
	return strcmp(profile__str(p, s->labels.state), "running") == 0;
}

static bool include_waiting(const struct ctx *c, uint32_t sample)
{
	return !sample__running(c->p, &c->p->samples[sample]);
}

struct wall_rank {
	uint32_t group;
	int64_t running, waiting;
	int64_t rank;
};

static int wall_rank__cmp(const void *a, const void *b)
{
	const struct wall_rank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->running + x->waiting != y->running + y->waiting)
		return x->running + x->waiting > y->running + y->waiting ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

/*
 * wall: which group's threads spent their time how. A machine has dozens of kernel
 * threads asleep for the whole capture; their waiting says nothing, so the System
 * group's waiting does not count towards which group leads.
 */
static char *analysis__answer_wall(const struct ctx *c, const struct analysis *a)
{
	const struct profile *p = c->p;
	uint32_t ng = c->ngroups ? c->ngroups : 1;
	struct wall_rank *r = calloc(ng, sizeof(*r));
	uint32_t *waited_in = malloc(sizeof(*waited_in) * ng);
	struct answer_group first, next;
	char *answer = NULL;

	if (!r || !waited_in || ctx__top_places(c, include_waiting, waited_in))
		goto out_free;
	for (uint32_t g = 0; g < c->ngroups; g++)
		r[g].group = g;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (c->group[i] == NONE)
			continue;
		if (sample__running(p, s))
			r[c->group[i]].running += s->values[c->main];
		else
			r[c->group[i]].waiting += s->values[c->main];
	}
	for (uint32_t g = 0; g < c->ngroups; g++)
		r[g].rank = r[g].running +
			    (c->groups[g].kind == GROUP_SYSTEM ? 0 : r[g].waiting);
	qsort(r, c->ngroups, sizeof(*r), wall_rank__cmp);
	for (int i = 0; i < 2 && (uint32_t)i < c->ngroups; i++) {
		struct answer_group *ag = i == 0 ? &first : &next;

		*ag = (struct answer_group){
			.label = c->groups[r[i].group].label,
			.share = c->groups[r[i].group].share,
			.value = r[i].running,
			.waiting = r[i].waiting,
			.where = waited_in[r[i].group] == NONE ?
					 NULL :
					 profile__str(p, waited_in[r[i].group]),
		};
	}
	if (!c->ngroups || a->total <= 0)
		answer = answer__wall(p->header.duration_ns, NULL, NULL);
	else
		answer = answer__wall(p->header.duration_ns, &first,
				      c->ngroups > 1 && r[1].running + r[1].waiting > 0 ? &next :
											  NULL);

out_free:
	free(r);
	free(waited_in);
	return answer;
}

/*
 * threads: how many, running and waiting, and the largest set of threads waiting in the
 * same place (one group, one "where" frame). Kernel threads all sleep in the same few
 * kernel functions; the System group is only chosen when nothing else waits.
 */
static char *analysis__answer_threads(const struct ctx *c)
{
	const struct profile *p = c->p;
	struct tally *t = malloc(sizeof(*t) * (p->nsamples ? p->nsamples : 1));
	struct answer_threads at = { 0 };
	const struct tally *best[2] = { NULL, NULL }; /* [0] others, [1] System */
	size_t n = 0;
	char *answer;

	if (!t)
		return NULL;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		int64_t v = s->values[c->main];
		enum tier tier;
		uint32_t loc;

		at.threads += v;
		if (sample__running(p, s)) {
			at.running += v;
			continue;
		}
		at.waiting += v;
		loc = ctx__where(c, s->stack, &tier);
		if (loc != NONE)
			t[n++] = (struct tally){ c->group[i], 0, location__name(&p->locations[loc]),
						 v };
	}
	n = tally__reduce(t, n);
	for (size_t i = 0; i < n; i++) {
		int sys = c->groups[t[i].key].kind == GROUP_SYSTEM;

		if (t[i].value > 0 && tally__better(p, &t[i], best[sys]))
			best[sys] = &t[i];
	}
	if (!best[0] || best[0]->value < 2)
		best[0] = best[1];
	if (best[0]) {
		at.set_size = best[0]->value;
		at.set_group = c->groups[best[0]->key].label;
		at.set_where = profile__str(p, best[0]->name);
	}
	answer = answer__threads(&at);
	free(t);
	return answer;
}

/* ---- threads: sets of threads ---- */

static int thread_set__cmp(const void *a, const void *b)
{
	const struct analysis_thread_set *x = a, *y = b;
	int c;

	if (x->threads != y->threads)
		return x->threads > y->threads ? -1 : 1;
	if ((c = strcmp(x->group, y->group)))
		return c;
	if ((c = strcmp(x->state, y->state)))
		return c;
	if ((c = strcmp(x->wait, y->wait)))
		return c;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The same set: the strings are the profile's interned ones, so equal text is an equal
 * pointer. */
static int thread_set__cmp_key(const void *a, const void *b)
{
	const struct analysis_thread_set *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait < y->wait ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int ctx__thread_sets(const struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	size_t n = 0;

	a->thread_sets = calloc(p->nsamples ? p->nsamples : 1, sizeof(*a->thread_sets));
	if (!a->thread_sets)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		a->thread_sets[n++] = (struct analysis_thread_set){
			.threads = s->values[c->main],
			.state = profile__str(p, s->labels.state),
			.wait = profile__str(p, s->labels.wait),
			.group = profile__str(p, s->labels.group),
			.stack = s->stack,
		};
	}
	/* Equal sets next to each other, merged, then largest first. */
	qsort(a->thread_sets, n, sizeof(*a->thread_sets), thread_set__cmp_key);
	if (n) {
		size_t out = 0;

		for (size_t i = 1; i < n; i++) {
			struct analysis_thread_set *x = &a->thread_sets[out], *y = &a->thread_sets[i];

			if (thread_set__cmp_key(x, y) == 0)
				x->threads += y->threads;
			else
				a->thread_sets[++out] = *y;
		}
		n = out + 1;
	}
	qsort(a->thread_sets, n, sizeof(*a->thread_sets), thread_set__cmp);
	a->nthread_sets = n;
	return 0;
}


/* ---- locks: by address ---- */

struct lock_wait {
	uint64_t address;
	int32_t pid;          /* 0 for the kernel's locks: one address space */
	uint32_t kind;        /* string id */
	uint32_t function;    /* where the wait came from (string id); NONE: no stack */
	uint32_t comm;
	int32_t process;      /* the waiting process's pid */
	/* The waiter being tallied: (function, 0) or (comm, pid). */
	uint32_t name;
	int32_t waiter_pid;
	int64_t contentions, wait_ns, longest_ns;
};

static int lock_wait__cmp_lock(const void *a, const void *b)
{
	const struct lock_wait *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int lock_wait__cmp_waiter(const void *a, const void *b)
{
	const struct lock_wait *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->waiter_pid < y->waiter_pid ? -1 : x->waiter_pid > y->waiter_pid;
}

/* The ANALYSIS_LOCK_WAITERS largest waiters of one lock's run w[0..n) (sorted here). */
static void lock__waiters(const struct profile *p, struct lock_wait *w, size_t n,
			  struct analysis_lock_waiter *out)
{
	qsort(w, n, sizeof(*w), lock_wait__cmp_waiter);
	for (size_t i = 0; i < n;) {
		struct analysis_lock_waiter cand = { profile__str(p, w[i].name), w[i].waiter_pid,
						     0 };
		size_t j = i;

		for (; j < n && lock_wait__cmp_waiter(&w[i], &w[j]) == 0; j++)
			cand.wait_ns += w[j].wait_ns;
		if (w[i].name != NONE) {
			for (int k = 0; k < ANALYSIS_LOCK_WAITERS; k++) {
				if (out[k].name && out[k].wait_ns >= cand.wait_ns)
					continue;
				memmove(&out[k + 1], &out[k],
					sizeof(*out) * (size_t)(ANALYSIS_LOCK_WAITERS - 1 - k));
				out[k] = cand;
				break;
			}
		}
		i = j;
	}
}

static int analysis_lock__cmp(const void *a, const void *b)
{
	const struct analysis_lock *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * The waits that count, by the lock they waited on: a user address names a lock only
 * within its process (two processes' mutexes may sit at the same address), a kernel
 * address is one lock for all. Each lock gets its totals and its largest waiters, by
 * function ("where", as "most of it in" picks it) and by process.
 */
static int ctx__locks(const struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	struct lock_wait *w = malloc(sizeof(*w) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0, nlocks = 0;

	if (!w)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const char *kind = profile__str(p, s->labels.lock_kind);
		enum tier tier;
		uint32_t loc;

		if (!ctx__counts(c, i) || !s->labels.lock)
			continue;
		loc = ctx__where(c, s->stack, &tier);
		w[n++] = (struct lock_wait){
			.address = s->labels.lock,
			.pid = strncmp(kind, "kernel ", 7) == 0 ? 0 : s->labels.pid,
			.kind = s->labels.lock_kind,
			.function = loc == NONE ? NONE : location__name(&p->locations[loc]),
			.comm = s->labels.comm,
			.process = s->labels.pid,
			.contentions = s->values[0],
			.wait_ns = s->values[c->main],
			.longest_ns = p->nvalues > 2 ? s->values[2] : 0,
		};
	}
	qsort(w, n, sizeof(*w), lock_wait__cmp_lock);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || lock_wait__cmp_lock(&w[i - 1], &w[i]))
			nlocks++;
	a->locks = calloc(nlocks ? nlocks : 1, sizeof(*a->locks));
	if (!a->locks) {
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		struct analysis_lock *l = &a->locks[a->nlocks++];
		size_t j = i;

		l->address = w[i].address;
		l->pid = w[i].pid;
		l->kind = profile__str(p, w[i].kind);
		for (; j < n && lock_wait__cmp_lock(&w[i], &w[j]) == 0; j++) {
			l->contentions += w[j].contentions;
			l->wait_ns += w[j].wait_ns;
			if (w[j].longest_ns > l->longest_ns)
				l->longest_ns = w[j].longest_ns;
		}
		l->share = share(l->wait_ns, a->total);
		for (size_t k = i; k < j; k++) {
			w[k].name = w[k].function;
			w[k].waiter_pid = 0;
		}
		lock__waiters(p, &w[i], j - i, l->functions);
		/* The same run again, each wait now under its process. */
		for (size_t k = i; k < j; k++) {
			w[k].name = w[k].comm;
			w[k].waiter_pid = w[k].process;
		}
		lock__waiters(p, &w[i], j - i, l->processes);
		i = j;
	}
	qsort(a->locks, a->nlocks, sizeof(*a->locks), analysis_lock__cmp);
	free(w);
	return 0;
}

/* ---- the analysis ---- */

/* ---- stack quality ---- */

bool analysis__is_stack_root(const char *name)
{
	static const char *const roots[] = {
		"libc_start_main", "libc_start_main_impl", "libc_start_call_main",
		"clone", "clone3", "start_thread",
	};
	size_t len;

	/* _start is the ELF entry point; a function called start is anybody's. */
	if (strncmp(name, "_start", 6) == 0 && (name[6] == '\0' || name[6] == '@'))
		return true;
	while (*name == '_')
		name++;
	if (strncmp(name, "GI_", 3) == 0)
		for (name += 3; *name == '_'; name++)
			;
	len = strcspn(name, "@");
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (strlen(roots[i]) == len && strncmp(name, roots[i], len) == 0)
			return true;
	return false;
}

/* The share of the main value in samples whose outermost user frame is a root. A stack
 * cut short ends in [truncated], which is no root. */
static void analysis__stack_quality(const struct ctx *c, struct analysis *a)
{
	const struct profile *p = c->p;
	int64_t with_user = 0, complete = 0;
	uint8_t *root = calloc(p->nlocations ? p->nlocations : 1, 1);

	a->stacks_complete = -1;
	if (!root)
		return;
	for (uint32_t i = 0; i < p->nlocations; i++)
		root[i] = c->tier[i] != TIER_KERNEL &&
			  analysis__is_stack_root(profile__str(p, location__name(&p->locations[i])));
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);

		/* Leaf first: the last location is the outermost. */
		if (depth == 0 || c->tier[locs[depth - 1]] == TIER_KERNEL)
			continue;
		with_user += s->values[c->main];
		if (root[locs[depth - 1]])
			complete += s->values[c->main];
	}
	if (with_user > 0)
		a->stacks_complete = (double)complete / (double)with_user;
	free(root);
}

struct analysis *analysis__new(const struct profile *p)
{
	struct analysis *a = calloc(1, sizeof(*a));
	struct ctx c = { .p = p };
	const struct prof_header *h = &p->header;

	if (!a)
		return NULL;
	a->profile = p;
	c.main = profile__main_value(p);
	a->unit = profile__str(p, p->value_types[c.main].unit);
	if (ctx__classify_samples(&c, a))
		goto out_free;
	a->share_of = a->total;
	if (question__share_of_server(h->question) && h->ncpus && h->duration_ns)
		a->share_of = (int64_t)h->ncpus * (int64_t)h->duration_ns;

	if (ctx__classify_locations(&c) || ctx__groups(&c, a) || ctx__top_functions(&c) ||
	    ctx__functions(&c, a) || ctx__stripped(&c, a))
		goto out_free;
	analysis__stack_quality(&c, a);

	switch (h->question) {
	case QUESTION_WALL:
		a->answer = analysis__answer_wall(&c, a);
		break;
	case QUESTION_THREADS:
		if (ctx__thread_sets(&c, a))
			goto out_free;
		a->answer = analysis__answer_threads(&c);
		break;
	case QUESTION_LOCKS:
		if (ctx__locks(&c, a))
			goto out_free;
		break;
	default:
		break;
	}

	/* The groups go out largest first; the answers above used them unsorted. */
	qsort(c.groups, c.ngroups, sizeof(*c.groups), group__cmp);
	a->groups = c.groups;
	a->ngroups = c.ngroups;
	c.groups = NULL;
	if (h->question != QUESTION_WALL && h->question != QUESTION_THREADS)
		a->answer = analysis__answer_amount(a);
	if (!a->answer)
		goto out_free;

	free(c.tier);
	free(c.group);
	free(c.skip);
	return a;

out_free:
	if (c.groups) {
		for (uint32_t g = 0; g < c.ngroups; g++)
			free(c.groups[g].processes);
		free(c.groups);
	}
	free(c.tier);
	free(c.group);
	free(c.skip);
	analysis__free(a);
	errno = ENOMEM;
	return NULL;
}

void analysis__free(struct analysis *a)
{
	if (!a)
		return;
	for (size_t g = 0; g < a->ngroups; g++)
		free(a->groups[g].processes);
	free(a->groups);
	free(a->functions);
	free(a->stripped);
	free(a->thread_sets);
	free(a->locks);
	free(a->answer);
	free(a);
}
