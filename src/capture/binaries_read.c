// SPDX-License-Identifier: MIT
/*
 * Reading a capture's binaries (binaries.h), at the end, never on the sampling path: only
 * binaries that have frames, heaviest first, each within the caps of a budget (bytes,
 * sections, symbols, CPU time), for their facts, names and lines; symbol tables only when
 * the caller does not keep that build's table already. What was not read is said, why.
 */
#include "capture/binaries.h"
#include "capture/binaries_internal.h"
#include "capture/elf_facts.h"
#include "capture/guarded_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_reader.h"
#include "proc/mounts.h"
#include "proc/packages.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/time_factor.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/messages.h"

const struct binaries_budget binaries_budget_default = {
	.total_ns = 4000000000ULL,
	.per_binary_ns = 1000000000ULL,
	.bytes = 512ULL << 20,
	.sections = 16384,
	.symbols = 8ULL << 20,
};

static struct binaries_budget budget_in_force;
static pthread_once_t budget_in_force_once = PTHREAD_ONCE_INIT;

static void budget_in_force__init(void)
{
	unsigned factor = time_factor__read();

	budget_in_force = binaries_budget_default;
	budget_in_force.total_ns *= factor;
	budget_in_force.per_binary_ns *= factor;
}

const struct binaries_budget *binaries_budget__in_force(void)
{
	pthread_once(&budget_in_force_once, budget_in_force__init);
	return &budget_in_force;
}

void binary_symbols__free(struct binary_symbols *s, size_t n)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		symtab__free(s[i].tab);
	free(s);
}

void binaries_read_result__release(struct binaries_read_result *r)
{
	binary_symbols__free(r->symbols, r->nsymbols);
	for (size_t i = 0; r->lines && i < r->nlines; i++)
		line_table__free(r->lines[i].table);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

/* The caps for one binary, from now: its own time, and never past the whole budget's. */
static void limits__init(struct elf_limits *l, const struct binaries_budget *budget,
			 struct clock_budget total)
{
	l->max_sections = budget->sections;
	l->max_symbols = budget->symbols;
	l->bytes_left = budget->bytes;
	l->deadline = clock_budget__min(clock_budget__from_now(budget->per_binary_ns), total);
}

/* Why bin was not read, in words, into p's header. */
static int binary__not_read(const struct binary *bin, struct profile *p,
			    const struct binaries_budget *budget, int err, bool total_ran_out)
{
	char reason[512];

	switch (err) {
	case -E2BIG:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_SECTIONS, budget->sections);
		break;
	case -EOVERFLOW:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_SYMBOLS,
			   (unsigned long long)budget->symbols);
		break;
	case -EFBIG:
		if (bin->guarded && bin->fd < 0)
			msg_format(reason, sizeof(reason), MSG_NOT_READ_COPY_BYTES, bin->mount,
				   (unsigned long long)(GUARDED_READ_FILE_MAX >> 20),
				   (unsigned long long)(GUARDED_READ_TOTAL_MAX >> 20));
		else
			msg_format(reason, sizeof(reason), MSG_NOT_READ_BYTES,
				   (unsigned long long)(budget->bytes >> 20));
		break;
	case -ETIMEDOUT:
		if (total_ran_out)
			msg_format(reason, sizeof(reason), MSG_NOT_READ_BUDGET,
				   (unsigned long long)(budget->total_ns / 1000000000ULL),
				   CLOCK_BUDGET_WALL_FACTOR);
		else
			msg_format(reason, sizeof(reason), MSG_NOT_READ_TIME,
				   (unsigned long long)(budget->per_binary_ns / 1000000ULL),
				   CLOCK_BUDGET_WALL_FACTOR);
		break;
	case -ENOEXEC:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_NOT_ELF);
		break;
	case -EBADF:
	case -ENOENT:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_UNOPENED);
		break;
	case GUARDED_READ_HUNG:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_HUNG,
			   (unsigned)GUARDED_READ_ANSWER_S * time_factor__read(), bin->mount);
		break;
	case -ECHILD:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_READER, bin->mount);
		break;
	default:
		msg_format(reason, sizeof(reason), MSG_NOT_READ_FAILED, strerror(-err));
		break;
	}
	return profile__add_not_read(p, bin->path, bin->elf_ok ? bin->info.build_id : "", reason);
}

static uint64_t binary__vaddr(const struct binary *bin, uint64_t file_offset);

/* Fills in bin's mapping from its ELF facts. */
static int binary__fill_mapping(const struct binary *bin, struct profile *p)
{
	struct prof_mapping *m = &p->mappings[bin->mapping];
	uint32_t build_id = profile__intern(p, bin->info.build_id);

	if (build_id == UINT32_MAX)
		return -ENOMEM;
	m->build_id = build_id;
	m->language = binary__language(bin->path, &bin->info);
	m->has_symtab = bin->info.has_symtab;
	m->vaddr = m->limit ? binary__vaddr(bin, m->offset) : 0;
	return 0;
}

/* The ELF address of a file offset in bin (the offset itself outside every segment). */
static uint64_t binary__vaddr(const struct binary *bin, uint64_t file_offset)
{
	uint64_t vaddr;

	if (bin->elf_ok && elf_info__offset_to_vaddr(&bin->info, file_offset, &vaddr))
		return vaddr;
	return file_offset;
}

/* bin's names, best first: its installed debug file, else its .symtab, else its .dynsym,
 * with its PLT stubs and unnamed .eh_frame functions (symtab__read_binary). */
static int binary__read_symbols(const struct binary *bin, const char *debug_root,
				struct elf_limits *limits, struct symtab **tab, bool *from_symtab)
{
	enum elf_symbols_from from = ELF_SYMBOLS_DYNSYM;
	int err = symtab__read_binary(bin->fd, bin->info.build_id, debug_root, limits, tab,
				      &from);

	*from_symtab = from == ELF_SYMBOLS_SYMTAB;
	return err;
}

/* Names the frames of a binary without a build id now: nothing can name them later.
 * The names go into the locations themselves (prof_location.function). */
static int binary__name_locations(const struct binary *bin, const struct symtab *tab,
				  struct profile *p)
{
	for (uint32_t i = 0; i < p->nlocations; i++) {
		struct prof_location *l = &p->locations[i];
		const char *name;
		uint64_t off;
		uint32_t id;

		if (l->mapping != bin->mapping || l->function)
			continue;
		name = symtab__lookup(tab, l->address, &off);
		if (!name)
			continue;
		id = profile__intern(p, name);
		if (id == UINT32_MAX)
			return -ENOMEM;
		l->function = id;
	}
	return 0;
}

struct reading {
	struct binaries *b;
	struct profile *p;
	const struct binaries_read_options *o;
	const struct binaries_budget *budget;
	struct clock_budget deadline; /* of the whole read (binaries_budget.total_ns) */
	struct binary **todo;    /* binaries with frames */
	uint32_t ntodo;
	struct binary_symbols *symbols;
	size_t nsymbols, cap_symbols;
	struct binary_lines *lines;
	size_t nlines, cap_lines;
	struct packages *packages; /* dpkg's view, read once, when first asked */
	/* Where installed debug files are read from: DEBUG_FILES_ROOT, or NULL when a mount
	 * that may hang is on the way to it (a lookup there is not guarded: it is not made). */
	const char *debug_root;
};

static int reading__keep(struct reading *rd, const struct binary *bin, struct symtab *tab,
			 bool from_symtab)
{
	struct binary_symbols *s;

	if (rd->nsymbols == rd->cap_symbols) {
		size_t cap = rd->cap_symbols ? rd->cap_symbols * 2 : 16;

		s = realloc(rd->symbols, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		rd->symbols = s;
		rd->cap_symbols = cap;
	}
	s = &rd->symbols[rd->nsymbols++];
	snprintf(s->build_id, sizeof(s->build_id), "%s", bin->info.build_id);
	s->from_symtab = from_symtab;
	s->tab = tab;
	return 0;
}

/* Step 1 for one binary: its ELF facts, within its caps. */
static int reading__facts(struct reading *rd, struct binary *bin)
{
	struct elf_limits limits;
	int err;

	/* A guarded read's copy is waited for within the whole read's time: its reader
	 * has been at it since the binary was met, and one that stopped answering is
	 * abandoned within GUARDED_READ_ANSWER_S of its last word. */
	if (binary__fd(bin, NULL, rd->deadline.wall_ns, &err) < 0)
		return binary__not_read(bin, rd->p, rd->budget, err, err == -ETIMEDOUT);
	if (clock_budget__over(&rd->deadline))
		return binary__not_read(bin, rd->p, rd->budget, -ETIMEDOUT, true);
	limits__init(&limits, rd->budget, rd->deadline);
	/* A copy is a new file each capture: the facts kept by file identity are the
	 * machine's files'. */
	err = elf_facts__read(bin->guarded ? NULL : rd->o->facts, bin->fd, &limits, &bin->info);
	if (err == -ENOMEM)
		return err;
	if (err)
		return binary__not_read(bin, rd->p, rd->budget, err,
					clock_budget__over(&rd->deadline));
	bin->elf_ok = true;
	/* One predicate decides "system" (architecture.md): the distribution's packages are.
	 * A guarded binary's path is not looked at (a stat there may not return): it is
	 * taken for the machine's own, not the distribution's. */
	err = bin->guarded ? 0 : packages__from_archive(rd->packages, bin->path, bin->dev, bin->ino);
	if (err < 0)
		return err;
	rd->p->mappings[bin->mapping].from_package = err == 1;
	return binary__fill_mapping(bin, rd->p);
}

/* Step 3 for one binary: its names, when nothing names this build yet. */
static int reading__names(struct reading *rd, struct binary *bin)
{
	struct elf_limits limits;
	struct symtab *tab = NULL;
	bool from_symtab;
	int err;

	if (!bin->elf_ok)
		return 0;
	if (bin->info.build_id[0] && rd->o->has_symbols &&
	    rd->o->has_symbols(rd->o->ctx, bin->info.build_id) == 1)
		return 0;
	if (bin->info.build_id[0] && !bin->info.has_symtab && rd->o->dynsym_kept &&
	    rd->o->dynsym_kept(rd->o->dynsym_ctx, bin->info.build_id) == 1)
		return 0;
	if (clock_budget__over(&rd->deadline))
		return binary__not_read(bin, rd->p, rd->budget, -ETIMEDOUT, true);
	limits__init(&limits, rd->budget, rd->deadline);
	err = binary__read_symbols(bin, rd->debug_root, &limits, &tab, &from_symtab);
	if (err == -ENOENT)
		return 0; /* no names to read: the card lists it */
	if (err == -ENOMEM)
		return err;
	if (err)
		return binary__not_read(bin, rd->p, rd->budget, err,
					clock_budget__over(&rd->deadline));
	if (!bin->info.build_id[0]) {
		err = binary__name_locations(bin, tab, rd->p);
		symtab__free(tab);
		return err;
	}
	err = reading__keep(rd, bin, tab, from_symtab);
	if (err)
		symtab__free(tab);
	return err;
}

static int reading__read_lines(struct reading *rd, const struct binary *bin, bool debug_file,
			       int fd, const uint64_t *addrs, size_t n,
			       const struct lines_caps *caps, struct line_table **table)
{
	if (rd->o->read_lines)
		return rd->o->read_lines(rd->o->lines_ctx, bin->info.build_id, debug_file, fd,
					 addrs, n, caps, table);
	return lines__read(fd, addrs, n, caps, table);
}

/* Step 4 for one binary: the source lines of its sampled addresses, from its own DWARF
 * or its installed debug file, within the same caps. A build without lines has none. */
static int reading__lines(struct reading *rd, struct binary *bin)
{
	struct lines_caps caps = LINES_CAPS_DEFAULT;
	struct line_table *table = NULL;
	uint64_t *addrs = NULL, left = clock_budget__cpu_left(&rd->deadline);
	size_t n = 0;
	int err, fd;

	if (!bin->elf_ok || !bin->info.build_id[0] || !left)
		return 0;
	err = lines__sampled_addresses(rd->p, bin->mapping, &addrs, &n);
	if (!err && n && rd->o->lines_known)
		rd->o->lines_known(rd->o->lines_ctx, bin->info.build_id, addrs, &n);
	if (err || !n) {
		free(addrs);
		return err;
	}
	caps.max_bytes = rd->budget->bytes;
	caps.max_ns = rd->budget->per_binary_ns < left ? rd->budget->per_binary_ns : left;
	/* libdw reads the file as its own: a descriptor of our own, which it closes. */
	fd = bin->info.debug_only || bin->info.has_symtab ? fcntl(bin->fd, F_DUPFD_CLOEXEC, 0) :
							     -1;
	err = fd >= 0 ? reading__read_lines(rd, bin, false, fd, addrs, n, &caps, &table) :
			-ENODATA;
	if (fd >= 0)
		close(fd);
	if (err == -ENODATA) {
		fd = symtab__open_installed_debug(rd->debug_root, bin->info.build_id);
		err = fd >= 0 ? reading__read_lines(rd, bin, true, fd, addrs, n, &caps, &table) :
				-ENODATA;
		if (fd >= 0)
			close(fd);
	}
	if (!err && table && !table->truncated && rd->o->lines_looked_up)
		rd->o->lines_looked_up(rd->o->lines_ctx, bin->info.build_id, addrs, n);
	free(addrs);
	if (err == -ENOMEM)
		return err;
	if (err || !table)
		return 0; /* no lines: the export has names without them */
	if (rd->nlines == rd->cap_lines) {
		size_t cap = rd->cap_lines ? rd->cap_lines * 2 : 16;
		struct binary_lines *grown = realloc(rd->lines, cap * sizeof(*grown));

		if (!grown) {
			line_table__free(table);
			return -ENOMEM;
		}
		rd->lines = grown;
		rd->cap_lines = cap;
	}
	snprintf(rd->lines[rd->nlines].build_id, sizeof(rd->lines[0].build_id), "%s",
		 bin->info.build_id);
	rd->lines[rd->nlines++].table = table;
	return 0;
}

/* Step 2: every frame of a read binary gets its ELF address; mappings lose their
 * capture-time identity (their build id tells builds apart from now on). */
static int reading__addresses(struct reading *rd)
{
	struct profile *p = rd->p;
	struct binary **of = calloc(p->nmappings ? p->nmappings : 1, sizeof(*of));

	if (!of)
		return -ENOMEM;
	for (uint32_t i = 0; i < rd->ntodo; i++)
		of[rd->todo[i]->mapping] = rd->todo[i];
	for (uint32_t i = 0; i < p->nlocations; i++) {
		struct prof_location *l = &p->locations[i];
		const struct binary *bin = l->mapping < p->nmappings ? of[l->mapping] : NULL;

		if (bin)
			l->address = binary__vaddr(bin, l->address);
	}
	for (uint32_t i = 0; i < p->nmappings; i++)
		p->mappings[i].identity = 0;
	free(of);
	return 0;
}

/* How much of the profile each mapping holds: the samples with a frame in it. */
static uint64_t *mapping_weights(const struct profile *p)
{
	uint64_t *weight = calloc(p->nmappings + 1, sizeof(*weight));
	uint32_t *seen = calloc(p->nmappings + 1, sizeof(*seen));

	if (!weight || !seen) {
		free(weight);
		free(seen);
		return NULL;
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *sm = &p->samples[i];
		const struct prof_stack *st;
		int64_t v = sm->values[0];
		uint64_t w = v < 0 ? (uint64_t)-v : (uint64_t)v;

		if (sm->stack >= p->nstacks)
			continue;
		st = &p->stacks[sm->stack];
		for (uint32_t d = 0; d < st->depth; d++) {
			uint32_t loc = p->stack_locations[st->first + d], m;

			if (loc >= p->nlocations || (m = p->locations[loc].mapping) >= p->nmappings)
				continue;
			/* Once a sample: a recursive stack is not more of the profile. */
			if (seen[m] == i + 1)
				continue;
			seen[m] = i + 1;
			weight[m] += w ? w : 1;
		}
	}
	free(seen);
	return weight;
}

static int binary__by_weight(const void *a, const void *b, void *ctx)
{
	const uint64_t *weight = ctx;
	const struct binary *x = *(struct binary *const *)a, *y = *(struct binary *const *)b;
	uint64_t wx = weight[x->mapping], wy = weight[y->mapping];

	return wx != wy ? (wx < wy ? 1 : -1) : (x->mapping > y->mapping) - (x->mapping < y->mapping);
}

static int reading__collect(struct reading *rd)
{
	struct binaries *b = rd->b;
	uint64_t *weight;
	uint32_t n = 0;

	rd->todo = calloc(b->n + 1, sizeof(*rd->todo));
	if (!rd->todo)
		return -ENOMEM;
	for (uint32_t i = 0; i <= b->n; i++) {
		struct binary *bin = i < b->n ? b->items[i] : b->vdso;

		/* Read once: its frames hold ELF addresses from then on. */
		if (bin && bin->mapping != UINT32_MAX && !bin->read) {
			bin->read = true;
			rd->todo[n++] = bin;
		}
	}
	rd->ntodo = n;
	/*
	 * Heaviest first: when a server's binaries take longer than the capture's budget,
	 * those left unread are the ones that hold least of the profile, not those that
	 * happened to be met last.
	 */
	weight = mapping_weights(rd->p);
	if (!weight)
		return -ENOMEM;
	qsort_r(rd->todo, n, sizeof(*rd->todo), binary__by_weight, weight);
	free(weight);
	return 0;
}

int binaries__read(struct binaries *b, struct profile *p, const struct binaries_read_options *o,
		   struct binaries_read_result *out)
{
	static const struct binaries_read_options none;
	struct reading rd = { .b = b, .p = p, .o = o ? o : &none };
	char hang[64];
	int err;

	rd.budget = rd.o->budget ? rd.o->budget : binaries_budget__in_force();
	rd.deadline = clock_budget__from_now(rd.budget->total_ns);
	memset(out, 0, sizeof(*out));
	rd.packages = rd.o->packages ? rd.o->packages : packages__new("/");
	if (!rd.packages)
		return -ENOMEM;
	mounts__own_hang_on_path(DEBUG_FILES_ROOT, hang, sizeof(hang));
	rd.debug_root = hang[0] ? NULL : DEBUG_FILES_ROOT;
	err = reading__collect(&rd);
	/* Said once: no binary's installed debug file was looked for. */
	if (!err && rd.ntodo && !rd.debug_root) {
		char reason[256];

		msg_format(reason, sizeof(reason), MSG_NOT_READ_DEBUG_ROOT_MAY_HANG, hang);
		err = profile__add_not_read(p, DEBUG_FILES_ROOT, "", reason);
	}
	for (uint32_t i = 0; i < rd.ntodo && !err; i++)
		err = reading__facts(&rd, rd.todo[i]);
	if (!err)
		err = reading__addresses(&rd);
	for (uint32_t i = 0; i < rd.ntodo && !err; i++) {
		err = reading__names(&rd, rd.todo[i]);
		if (rd.o->progress)
			rd.o->progress(rd.o->progress_ctx, i + 1, rd.ntodo);
	}
	for (uint32_t i = 0; i < rd.ntodo && !err; i++)
		err = reading__lines(&rd, rd.todo[i]);
	if (!err)
		err = profile__reindex(p);
	free(rd.todo);
	if (rd.packages != rd.o->packages)
		packages__free(rd.packages);
	out->symbols = rd.symbols;
	out->nsymbols = rd.nsymbols;
	out->lines = rd.lines;
	out->nlines = rd.nlines;
	if (err)
		binaries_read_result__release(out);
	return err;
}
