// SPDX-License-Identifier: MIT
/*
 * The flame graph file: the profile folded into one tree (root, owner groups, processes by
 * name, frames root to leaf), written as JSON into web/flamegraph.html, which the build
 * embeds into the binary. The tree goes out flat, in pre-order with each node's depth, so
 * the page rebuilds positions in one pass and a 50k-node profile stays a few hundred kB.
 */
#include "analysis/flamegraph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/format.h"
#include "util/outfile.h"
#include "analysis/waits.h"
#include "elf/elf_file.h"
#include "util/text.h"
#include "profile/profile.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/messages.h"

/* web/flamegraph.html with the UI's flame graph inlined (web/bundle.py), NUL-terminated
 * (embedded by web/assets.py). */
extern const char flamegraph_html[];

#define PLACEHOLDER "/*SLIDEOPS_PROFILE*/"
#define NONE UINT32_MAX
#define NO_LANGUAGE 0xff

enum node_kind {
	NODE_ROOT,
	NODE_GROUP,
	NODE_PROCESS,
	NODE_FRAME,
};

struct node {
	uint32_t name;         /* string id */
	uint32_t parent;
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t group;        /* index into the tree's groups */
	int64_t value;
	uint8_t kind;
	uint8_t language;
	uint8_t system;        /* a runtime's or system library's frame (architecture.md) */
};

struct tree {
	const struct profile *p;
	struct node *nodes;
	uint32_t n, cap;
	struct hashmap *index;  /* (parent, kind, name) -> node */
	uint32_t *groups;       /* label string id per group index */
	uint32_t ngroups;
	/* Some sample says why it waited (its wait_reason label, wall's); then waiting holds,
	 * per node, PROFILE_WAIT_REASONS apiece: its waiting by why. */
	bool by_reason;
	int64_t *waiting;
};

static const char *const colour_names[] = {
	[FLAMEGRAPH_COLOUR_LANGUAGE] = "language",
	[FLAMEGRAPH_COLOUR_GROUP] = "group",
};

const char *flamegraph_colour__name(enum flamegraph_colour c)
{
	return c == FLAMEGRAPH_COLOUR_GROUP ? colour_names[c] : colour_names[0];
}

int flamegraph_colour__parse(const char *name)
{
	for (int i = 0; name && i < (int)(sizeof(colour_names) / sizeof(colour_names[0])); i++)
		if (strcmp(name, colour_names[i]) == 0)
			return i;
	return -1;
}

/* ---- the tree ---- */

struct node_key {
	uint32_t parent;
	uint32_t name;
	uint8_t kind;
};

static uint64_t node_key__hash(const struct node_key *k)
{
	return hash_u64(hash_u64(hash_u64(5, k->parent), k->name), k->kind);
}

static bool node__equal(const void *key, uint32_t id, void *ctx)
{
	const struct node_key *k = key;
	const struct node *n = &((struct tree *)ctx)->nodes[id];

	return n->parent == k->parent && n->name == k->name && n->kind == k->kind;
}

/* The child of parent with this name and kind, made when new. NONE on ENOMEM. */
static uint32_t tree__child(struct tree *t, uint32_t parent, enum node_kind kind, uint32_t name,
			    uint8_t language, uint32_t group)
{
	struct node_key k = { parent, name, (uint8_t)kind };
	uint64_t h = node_key__hash(&k);
	uint32_t id = hashmap__find(t->index, h, &k, node__equal, t);
	struct node *n;

	if (id != HASHMAP_NONE)
		return id;
	if (t->n == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 1024;
		struct node *nn = ncap > t->cap ? realloc(t->nodes, sizeof(*nn) * ncap) : NULL;

		if (!nn)
			return NONE;
		t->nodes = nn;
		if (t->by_reason) {
			int64_t *nw = realloc(t->waiting,
					      sizeof(*nw) * PROFILE_WAIT_REASONS * ncap);

			if (!nw)
				return NONE;
			t->waiting = nw;
		}
		t->cap = ncap;
	}
	id = t->n;
	if (hashmap__insert(t->index, h, id))
		return NONE;
	if (t->by_reason)
		memset(&t->waiting[(size_t)id * PROFILE_WAIT_REASONS], 0,
		       sizeof(*t->waiting) * PROFILE_WAIT_REASONS);
	n = &t->nodes[t->n++];
	*n = (struct node){ .name = name, .parent = parent, .first_child = NONE,
			    .next_sibling = NONE, .group = group, .kind = (uint8_t)kind,
			    .language = language };
	if (parent != NONE) {
		n->next_sibling = t->nodes[parent].first_child;
		t->nodes[parent].first_child = id;
	}
	return id;
}

/* Per mapping: a language runtime or a system library, the frames "Hide system code"
 * folds into the user's function that called them. NULL on ENOMEM. */
static uint8_t *system_mappings(const struct profile *p)
{
	uint8_t *sys = calloc(p->nmappings ? p->nmappings : 1, 1);

	for (uint32_t i = 0; sys && i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];
		const char *path = profile__str(p, m->path);

		sys[i] = (m->kind == MAPPING_EXE || m->kind == MAPPING_LIB || m->kind == MAPPING_VDSO) &&
			 (m->kind == MAPPING_VDSO || binary__is_runtime(path) ||
			  binary__is_system_library(path));
	}
	return sys;
}

/* Why the sample waited: an index of profile_wait_reasons, or -1 (it ran, or says not). */
static int sample__wait_reason(const struct profile *p, const struct prof_sample *s)
{
	if (!s->labels.wait_reason || strcmp(profile__str(p, s->labels.state), "running") == 0)
		return -1;
	return wait_reason__parse(profile__str(p, s->labels.wait_reason));
}

/* Adds v waited for reason r to node (nothing for r -1). */
static void tree__add_waiting(struct tree *t, uint32_t node, int r, int64_t v)
{
	if (t->by_reason && r >= 0)
		t->waiting[(size_t)node * PROFILE_WAIT_REASONS + (size_t)r] += v;
}

static int tree__build(struct tree *t, int64_t root_value)
{
	const struct profile *p = t->p;
	uint32_t nstr = strtab__count(p->strings);
	uint32_t main = profile__main_value(p);
	uint32_t *group_of = malloc(sizeof(*group_of) * (nstr ? nstr : 1));
	uint8_t *sys = system_mappings(p);
	int err = -ENOMEM;

	t->index = hashmap__new();
	t->groups = malloc(sizeof(*t->groups) * (p->nsamples ? p->nsamples : 1));
	if (!group_of || !sys || !t->index || !t->groups)
		goto out_free;
	for (uint32_t i = 0; i < nstr; i++)
		group_of[i] = NONE;
	/* Each node's waiting by why, where the samples say why (tree__child grows it). */
	for (uint32_t i = 0; i < p->nsamples && !t->by_reason; i++)
		t->by_reason = sample__wait_reason(p, &p->samples[i]) >= 0;
	/* The root's name is a word of ours, not a string of the profile: kept as NONE. */
	if (tree__child(t, NONE, NODE_ROOT, NONE, NO_LANGUAGE, NONE) != 0)
		goto out_free;
	t->nodes[0].value = root_value;

	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		int64_t v = s->values[main];
		uint32_t label = s->labels.group < nstr ? s->labels.group : 0;
		uint32_t g = group_of[label], node, depth;
		const uint32_t *locs = profile__stack(p, s->stack, &depth);
		int why = sample__wait_reason(p, s);

		if (v <= 0 || !sample__counts(p, s))
			continue;
		tree__add_waiting(t, 0, why, v);
		if (g == NONE) {
			g = group_of[label] = t->ngroups;
			t->groups[t->ngroups++] = label;
		}
		node = tree__child(t, 0, NODE_GROUP, label, NO_LANGUAGE, g);
		if (node == NONE)
			goto out_free;
		t->nodes[node].value += v;
		tree__add_waiting(t, node, why, v);
		node = tree__child(t, node, NODE_PROCESS, s->labels.comm, NO_LANGUAGE, g);
		if (node == NONE)
			goto out_free;
		t->nodes[node].value += v;
		tree__add_waiting(t, node, why, v);
		for (uint32_t d = depth; d-- > 0;) {
			const struct prof_location *l = &p->locations[locs[d]];

			node = tree__child(t, node, NODE_FRAME, l->name ? l->name : l->function,
					   (uint8_t)l->language, g);
			if (node == NONE)
				goto out_free;
			t->nodes[node].value += v;
			tree__add_waiting(t, node, why, v);
			t->nodes[node].system = !l->file && l->mapping < p->nmappings &&
						sys[l->mapping];
		}
	}
	err = 0;

out_free:
	free(sys);
	free(group_of);
	return err;
}

static void tree__free(struct tree *t)
{
	free(t->nodes);
	free(t->groups);
	free(t->waiting);
	hashmap__free(t->index);
}

/* ---- JSON, written by hand: one pass, no document in memory ---- */

/*
 * A JSON string that is also safe inside <script>: '<', '>' and '&' are escaped so no
 * name can close the script element or open a comment, and U+2028/2029 so older
 * parsers of JavaScript do not break a line in it. Invalid UTF-8 reads as \xNN.
 */
static void put_string(FILE *out, const char *s)
{
	const unsigned char *c = (const unsigned char *)s;

	putc('"', out);
	for (; *c; c++) {
		if (*c == '"' || *c == '\\') {
			putc('\\', out);
			putc(*c, out);
		} else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&' || *c == 0x7f) {
			fprintf(out, "\\u%04x", *c);
		} else if (c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9)) {
			fprintf(out, "\\u%04x", c[2] == 0xa8 ? 0x2028 : 0x2029);
			c += 2;
		} else if (*c >= 0x80) {
			/* Valid UTF-8 as it is; each invalid byte as the text \xNN, as everywhere. */
			size_t n = text__utf8_sequence((const char *)c);

			if (n)
				fwrite(c, 1, n, out);
			else
				fprintf(out, "\\\\x%02x", *c);
			c += n ? n - 1 : 0;
		} else {
			putc(*c, out);
		}
	}
	putc('"', out);
}

struct order {
	uint32_t *ids;     /* pre-order */
	uint16_t *depth;
	uint32_t n;
};

/* Children largest first (then by name), so the big boxes sit at the left. The tree
 * comes as qsort_r's argument: the server draws several at once, on several threads. */
static int child__cmp(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	const struct node *x = &t->nodes[*(const uint32_t *)a];
	const struct node *y = &t->nodes[*(const uint32_t *)b];

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(profile__str(t->p, x->name), profile__str(t->p, y->name));
}

static int tree__preorder(const struct tree *t, struct order *o)
{
	uint32_t *stack = malloc(sizeof(*stack) * t->n), *kids = malloc(sizeof(*kids) * t->n);
	uint16_t *sdepth = malloc(sizeof(*sdepth) * t->n);
	uint32_t top = 0;

	o->ids = malloc(sizeof(*o->ids) * t->n);
	o->depth = malloc(sizeof(*o->depth) * t->n);
	o->n = 0;
	if (!stack || !kids || !sdepth || !o->ids || !o->depth) {
		free(stack);
		free(kids);
		free(sdepth);
		return -ENOMEM;
	}
	stack[top] = 0;
	sdepth[top++] = 0;
	while (top) {
		uint32_t id = stack[--top], nk = 0;
		uint16_t d = sdepth[top];

		o->ids[o->n] = id;
		o->depth[o->n++] = d;
		for (uint32_t c = t->nodes[id].first_child; c != NONE; c = t->nodes[c].next_sibling)
			kids[nk++] = c;
		qsort_r(kids, nk, sizeof(*kids), child__cmp, (void *)t);
		/* Deeper than 65535 frames cannot come from a kernel stack walk; stop there. */
		if (d == UINT16_MAX)
			continue;
		for (uint32_t k = nk; k-- > 0;) {
			stack[top] = kids[k];
			sdepth[top++] = (uint16_t)(d + 1);
		}
	}
	free(stack);
	free(kids);
	free(sdepth);
	return 0;
}

/* Samples taken: the sum of a value counted in "count" where the question has one, else
 * the distinct stacks sampled (fewer than the samples: a cautious count). */
static uint64_t flamegraph__samples(const struct profile *p)
{
	uint64_t n = 0;

	for (uint32_t v = 0; v < p->nvalues; v++) {
		if (strcmp(profile__str(p, p->value_types[v].unit), "count") != 0)
			continue;
		for (uint32_t i = 0; i < p->nsamples; i++)
			if (p->samples[i].values[v] > 0)
				n += (uint64_t)p->samples[i].values[v];
		return n;
	}
	return p->nsamples;
}

static int flamegraph__put_data(const struct tree *t, const struct order *o,
				const struct analysis *a, enum flamegraph_colour colour, FILE *out)
{
	const struct profile *p = t->p;
	uint32_t nstr = strtab__count(p->strings), nnames = 0;
	uint32_t *name_index = malloc(sizeof(*name_index) * (nstr ? nstr : 1));
	char started[32], root[64];

	if (!name_index)
		return -ENOMEM;
	for (uint32_t i = 0; i < nstr; i++)
		name_index[i] = NONE;
	profile__format_started_at(p, started, sizeof(started));
	msg_format(root, sizeof(root), MSG_FLAMEGRAPH_ROOT);

	fputs("{\"question\":", out);
	put_string(out, question__id(p->header.question));
	fputs(",\"title\":", out);
	put_string(out, question__title(p->header.question));
	fputs(",\"server\":", out);
	put_string(out, profile__str(p, p->header.hostname));
	fputs(",\"started_at\":", out);
	put_string(out, started);
	fprintf(out, ",\"seconds\":%lld", (long long)format_whole_seconds(p->header.duration_ns));
	fputs(",\"answer\":", out);
	put_string(out, a->answer);
	fputs(",\"unit\":", out);
	put_string(out, a->unit);
	/* share_of: what shares of the server are of; samples: how many the shares rest on,
	 * for the web UI's compare to tell a change from sampling error. */
	fprintf(out, ",\"share_of\":%lld,\"samples\":%llu", (long long)a->share_of,
		(unsigned long long)flamegraph__samples(p));
	fprintf(out, ",\"total\":%lld,\"colour\":", (long long)a->total);
	put_string(out, flamegraph_colour__name(colour));

	fputs(",\"languages\":[", out);
	for (int l = 0; l < LANGUAGE__COUNT; l++) {
		fputs(l ? ",[" : "[", out);
		put_string(out, language__name((enum language)l));
		putc(',', out);
		put_string(out, language__colour((enum language)l));
		putc(']', out);
	}
	fputs("],\"groups\":[", out);
	for (uint32_t g = 0; g < t->ngroups; g++) {
		if (g)
			putc(',', out);
		put_string(out, profile__str(p, t->groups[g]));
	}

	/* Names once each; nodes refer to them by index. The root's is ours. */
	fputs("],\"names\":[", out);
	put_string(out, root);
	nnames = 1;
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t name = t->nodes[o->ids[i]].name;

		if (name == NONE || name >= nstr || name_index[name] != NONE)
			continue;
		name_index[name] = nnames++;
		putc(',', out);
		put_string(out, profile__str(p, name));
	}

	fputs("],\"name\":[", out);
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t name = t->nodes[o->ids[i]].name;

		fprintf(out, i ? ",%u" : "%u", name < nstr ? name_index[name] : 0);
	}
	fputs("],\"depth\":[", out);
	for (uint32_t i = 0; i < o->n; i++)
		fprintf(out, i ? ",%u" : "%u", o->depth[i]);
	fputs("],\"value\":[", out);
	for (uint32_t i = 0; i < o->n; i++)
		fprintf(out, i ? ",%lld" : "%lld", (long long)t->nodes[o->ids[i]].value);
	fputs("],\"lang\":[", out);
	for (uint32_t i = 0; i < o->n; i++) {
		const struct node *n = &t->nodes[o->ids[i]];

		fprintf(out, i ? ",%d" : "%d", n->language == NO_LANGUAGE ? -1 : n->language);
	}
	fputs("],\"group\":[", out);
	for (uint32_t i = 0; i < o->n; i++) {
		const struct node *n = &t->nodes[o->ids[i]];

		fprintf(out, i ? ",%d" : "%d", n->group == NONE ? -1 : (int)n->group);
	}
	fputs("],\"system\":[", out);
	for (uint32_t i = 0; i < o->n; i++)
		fputs(i ? (t->nodes[o->ids[i]].system ? ",1" : ",0") :
			  (t->nodes[o->ids[i]].system ? "1" : "0"), out);
	fputc(']', out);
	if (t->by_reason) {
		/* Each reason's waiting per node, as value is: the node's and its callees'. */
		fputs(",\"waiting_by_reason\":{", out);
		for (int r = 0; r < PROFILE_WAIT_REASONS; r++) {
			fputs(r ? ",\"" : "\"", out);
			fputs(profile_wait_reasons[r], out);
			fputs("\":[", out);
			for (uint32_t i = 0; i < o->n; i++) {
				size_t at = (size_t)o->ids[i] * PROFILE_WAIT_REASONS + (size_t)r;

				fprintf(out, i ? ",%lld" : "%lld", (long long)t->waiting[at]);
			}
			putc(']', out);
		}
		putc('}', out);
	}
	putc('}', out);
	free(name_index);
	return 0;
}

struct write_args {
	const struct profile *p;
	enum flamegraph_colour colour;
};

/* The tree as JSON; page: write it into the page around it (the HTML file). */
static int flamegraph__emit(const struct profile *p, FILE *out, enum flamegraph_colour colour,
			    bool page)
{
	const char *mark = strstr(flamegraph_html, PLACEHOLDER);
	struct tree t = { .p = p };
	struct order o = { 0 };
	struct analysis *a;
	int err;

	if (page && !mark)
		return -EINVAL; /* the build embedded a page without its placeholder */
	a = analysis__new(p);
	if (!a)
		return -ENOMEM;
	err = tree__build(&t, a->total);
	if (!err)
		err = tree__preorder(&t, &o);
	if (!err) {
		if (page)
			fwrite(flamegraph_html, 1, (size_t)(mark - flamegraph_html), out);
		err = flamegraph__put_data(&t, &o, a, colour, out);
		if (page)
			fputs(mark + strlen(PLACEHOLDER), out);
	}
	if (!err && ferror(out))
		err = -EIO;
	free(o.ids);
	free(o.depth);
	tree__free(&t);
	analysis__free(a);
	return err;
}

int flamegraph__write(const struct profile *p, FILE *out, enum flamegraph_colour colour)
{
	return flamegraph__emit(p, out, colour, true);
}

int flamegraph__write_data(const struct profile *p, FILE *out, enum flamegraph_colour colour)
{
	return flamegraph__emit(p, out, colour, false);
}

static int flamegraph__write_cb(const void *ctx, FILE *out)
{
	const struct write_args *w = ctx;

	return flamegraph__write(w->p, out, w->colour);
}

int flamegraph__write_file(const struct profile *p, const char *path,
			   enum flamegraph_colour colour)
{
	struct write_args w = { p, colour };

	return outfile__write(path, flamegraph__write_cb, &w);
}
