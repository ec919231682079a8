// SPDX-License-Identifier: MIT
/*
 * Names for a profile's locations, looked up each time a profile is read (never stored
 * with it): that is how an upload names profiles captured before it, and how deleting
 * the upload brings their addresses back.
 *
 * Per mapping, the best table kept for its build id (upload, then the binary's own
 * .symtab, then .dynsym) is loaded once; each location is then one binary search. An
 * address in a function the table knows only by its bounds (unnamed, from .eh_frame) is
 * named by the function's start, so a stripped function is one row, not one per address.
 * A profile has hundreds of mappings at most and tens of thousands of locations.
 */
#include "symbols/symbolize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_file.h"
#include "profile/profile.h"
#include "symbols/demangle.h"
#include "symbols/symtab.h"

struct mapping_names {
	struct symtab *tab;  /* NULL: no names for this build */
	bool owns;           /* false when shared with an earlier mapping of the same build */
	const char *base;    /* the binary's file name, for "app+0x4a1f20" */
};

static const char *base_name(const struct profile *p, const struct prof_mapping *m)
{
	const char *path = profile__str(p, m->path);
	const char *base = basename(path);

	if (*base)
		return base;
	if (*path)
		return path;
	return mapping_kind__name(m->kind);
}

/* Loads the table of each build once. -ENOMEM only: a build without a usable table
 * (none kept, or a damaged one) simply stays unnamed. */
static int load_tables(struct profile *p, const struct symbol_lookup *src,
		       struct mapping_names *names)
{
	for (uint32_t i = 0; i < p->nmappings; i++) {
		const struct prof_mapping *m = &p->mappings[i];
		int err;

		names[i].base = base_name(p, m);
		if (!src || m->build_id == 0 || m->kind == MAPPING_KERNEL ||
		    !*profile__str(p, m->build_id))
			continue;
		for (uint32_t j = 0; j < i; j++) {
			if (p->mappings[j].build_id == m->build_id && names[j].tab) {
				names[i].tab = names[j].tab;
				break;
			}
		}
		if (names[i].tab)
			continue;
		err = src->get(src->ctx, profile__str(p, m->build_id), &names[i].tab);
		if (err == -ENOMEM)
			return err;
		if (err)
			names[i].tab = NULL;
		names[i].owns = names[i].tab != NULL;
	}
	return 0;
}

/* The string id of name as people read it: without its symbol version, demangled when
 * it is mangled. */
static uint32_t intern_readable(struct profile *p, const char *name)
{
	char *readable = symbol__readable(name);
	uint32_t id = profile__intern(p, readable ? readable : name);

	free(readable);
	return id;
}

/* One of node's own Builtins_* functions (V8's interpreter, its bytecode handlers and
 * the JIT's entry points, embedded in the node binary). */
static bool is_node_builtin(const char *path, const char *name)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && name && (strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0) &&
	       strncmp(name, "Builtins_", 9) == 0;
}

static int name_location(struct profile *p, struct prof_location *l,
			 const struct mapping_names *names)
{
	const struct prof_mapping *m = l->mapping < p->nmappings ? &p->mappings[l->mapping] : NULL;
	enum language lang = m ? m->language : LANGUAGE_OTHER;
	const char *name = NULL;
	uint64_t offset = 0;
	char unnamed[256];
	uint32_t id;

	if (m && m->kind == MAPPING_KERNEL)
		lang = LANGUAGE_KERNEL;

	if (l->function) {
		/* A name known at capture: kernel symbols, interpreter frames, binaries
		 * named from their own file at capture. */
		name = profile__str(p, l->function);
		id = lang == LANGUAGE_KERNEL ? l->function : intern_readable(p, name);
		l->named = true;
	} else {
		if (m)
			name = symtab__lookup(names[l->mapping].tab, l->address, &offset);
		if (name && *name) {
			id = intern_readable(p, name);
			l->named = true;
		} else {
			/* One row per function where its bounds are known (a "" entry), else
			 * per address. */
			snprintf(unnamed, sizeof(unnamed), "%s+0x%" PRIx64,
				 m ? names[l->mapping].base : "[unknown]",
				 name ? l->address - offset : l->address);
			name = NULL;
			id = profile__intern(p, unnamed);
			l->named = false;
		}
	}
	if (id == UINT32_MAX)
		return -ENOMEM;
	l->name = id;
	/* By the name as the binary has it: mangling tells Rust from C++. */
	l->language = l->named && lang != LANGUAGE_KERNEL ? symbol__language(name, lang) : lang;
	if (l->named && m && is_node_builtin(profile__str(p, m->path), name)) {
		/* node's interpreter and JIT entry points run JavaScript: the frame the
		 * capture makes of its JIT code, not a run of V8's builtins (architecture.md). */
		l->name = profile__intern(p, "[JavaScript]");
		l->language = LANGUAGE_JAVASCRIPT;
		if (l->name == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

/* A frame that stands for a run of a runtime's code: [JavaScript], [Java]. */
static bool is_runtime_run(const struct profile *p, uint32_t loc)
{
	const struct prof_location *l = &p->locations[loc];
	const char *name;

	if (l->language != LANGUAGE_JAVASCRIPT && l->language != LANGUAGE_JAVA)
		return false;
	name = profile__str(p, l->name);
	return name && name[0] == '[';
}

/*
 * Node's JIT code (one frame from the capture) and its builtins (named here) alternate:
 * each run of them is one [JavaScript] frame (architecture.md). Stacks shrink in place, so the
 * profile's stack index no longer finds them: a stack added later is a stack of its own.
 */
static void merge_runtime_runs(struct profile *p)
{
	for (uint32_t i = 0; i < p->nstacks; i++) {
		uint32_t *locs = p->stack_locations + p->stacks[i].first;
		uint32_t depth = p->stacks[i].depth, n = 0;

		for (uint32_t j = 0; j < depth; j++) {
			if (n && p->locations[locs[j]].name == p->locations[locs[n - 1]].name &&
			    is_runtime_run(p, locs[j]) && is_runtime_run(p, locs[n - 1]))
				continue;
			locs[n++] = locs[j];
		}
		p->stacks[i].depth = n;
	}
}

int profile__symbolize(struct profile *p, const struct symbol_lookup *src)
{
	struct mapping_names *names;
	int err;

	names = calloc(p->nmappings ? p->nmappings : 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	err = load_tables(p, src, names);
	for (uint32_t i = 0; i < p->nlocations && !err; i++)
		err = name_location(p, &p->locations[i], names);
	if (!err) {
		merge_runtime_runs(p);
		p->symbolized = true;
	}

	for (uint32_t i = 0; i < p->nmappings; i++) {
		if (!names[i].owns)
			continue;
		if (src->release)
			src->release(src->ctx, names[i].tab);
		else
			symtab__free(names[i].tab);
	}
	free(names);
	return err;
}
