// SPDX-License-Identifier: MIT
/*
 * Unwind tables into the BPF maps of bpf/unwind_maps.h, within a memory budget. The
 * rows map is one large array: each loaded table owns a contiguous slice (first-fit in
 * the gaps between slices), named by a table id in unwind_tables. A table is loaded once
 * per build id, however many processes map it, and stays until room is needed: then the
 * least recently used tables that no live process maps are evicted. Processes come and
 * go far more often than binaries, so a table usually outlives the process that loaded
 * it and is found again by the next one. The unused tables wait on a list in the order
 * they fell out of use, so an eviction takes the first without looking at the others.
 *
 * Eviction first empties the table's entry in unwind_tables (count 0: the walker falls
 * back to frame pointers there), so BPF never reads rows being overwritten as live.
 *
 * Tables are found by build id and processes by pid in sorted arrays (binary search),
 * free table slots taken from a stack: nothing scans all 4096 slots or all processes.
 * A process's mappings with a table past UNWIND_MAX_PROC_MAPS are counted, not lost
 * silently (unwind_maps_stats).
 */
#include "unwind/unwind.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind_maps.h"

#define MIN_BUDGET (1ull << 20)
#define MAX_PROCS 1024
/* Rows written per batch update. */
#define BATCH 4096

struct slot {
	char build_id[129];     /* "" when free */
	uint32_t first, count;
	uint64_t base;          /* the table's base (struct unwind_table) */
	uint32_t refs;          /* live processes mapping it */
	uint64_t last_used;
	/* Loaded and mapped by no live process: on the eviction list, in the order the
	 * tables fell out of use (the first one is evicted first). */
	bool unused;
	int32_t prev, next;     /* on that list; -1 at its ends */
};

struct proc_entry {
	uint32_t pid;
	uint32_t n;
	uint32_t dropped; /* the most mappings it has had past UNWIND_MAX_PROC_MAPS */
	uint32_t ids[UNWIND_MAX_PROC_MAPS];
};

struct unwind_maps {
	struct unwind_maps_plan plan;
	int rows_fd, tables_fd, procs_fd;
	/* The rows map is mapped into our memory (BPF_F_MMAPABLE) one table's window at a
	 * time: a table is one memcpy instead of a syscall per 4096 rows (a capture's first
	 * second goes from ~800 ms of loading to a few). Not the whole map for the whole
	 * capture: the kernel maps every page of it at once, and a 64 MB budget was 64 MB
	 * more resident memory however few rows were used. false: the syscalls. */
	bool mmapable;
	long page;
	struct slot slots[UNWIND_MAX_TABLES];
	struct proc_entry **procs;  /* sorted by pid */
	size_t nprocs;
	int32_t by_build_id[UNWIND_MAX_TABLES]; /* the loaded slots, sorted by build id */
	int32_t free_slots[UNWIND_MAX_TABLES];  /* a stack of the free ones */
	uint32_t nfree;
	uint64_t clock, used;
	uint32_t ntables, evictions, over_budget;
	uint32_t maps_dropped, procs_dropping;
	int32_t unused_head, unused_tail; /* the eviction list; -1: empty */
};

int unwind_maps__plan(uint64_t budget, struct unwind_maps_plan *plan)
{
	uint64_t fixed = UNWIND_MAX_TABLES * sizeof(struct unwind_table_ref);
	uint64_t procs, rows;

	if (budget < MIN_BUDGET)
		return -EINVAL;
	/* A quarter of the budget at most for processes, the rest for rows. */
	procs = (budget / 4) / sizeof(struct unwind_proc);
	if (procs > MAX_PROCS)
		procs = MAX_PROCS;
	if (procs < 16)
		procs = 16;
	rows = (budget - fixed - procs * sizeof(struct unwind_proc)) / sizeof(struct unwind_row);
	if (rows > UINT32_MAX / 2)
		rows = UINT32_MAX / 2;
	plan->budget = budget;
	plan->rows = (uint32_t)rows;
	plan->procs = (uint32_t)procs;
	return 0;
}

struct unwind_maps *unwind_maps__new(const struct unwind_maps_plan *plan, int rows_fd,
				     int tables_fd, int procs_fd)
{
	struct unwind_maps *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->plan = *plan;
	m->unused_head = m->unused_tail = -1;
	/* Descending: the lowest free slot is taken first. */
	for (int32_t i = 0; i < UNWIND_MAX_TABLES; i++)
		m->free_slots[m->nfree++] = UNWIND_MAX_TABLES - 1 - i;
	m->rows_fd = rows_fd;
	m->tables_fd = tables_fd;
	m->procs_fd = procs_fd;
	m->page = sysconf(_SC_PAGESIZE);
	if (plan->rows && m->page > 0) {
		void *mem = mmap(NULL, (size_t)m->page, PROT_READ | PROT_WRITE, MAP_SHARED,
				 rows_fd, 0);

		m->mmapable = mem != MAP_FAILED;
		if (m->mmapable)
			munmap(mem, (size_t)m->page);
	}
	return m;
}

void unwind_maps__free(struct unwind_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nprocs; i++)
		free(m->procs[i]);
	free(m->procs);
	free(m);
}

static int write_ref(struct unwind_maps *m, uint32_t id, const struct unwind_table_ref *ref)
{
	return bpf_map_update_elem(m->tables_fd, &id, ref, BPF_ANY) ? -errno : 0;
}

static int write_slice(struct unwind_maps *m, uint32_t first, const struct unwind_row *rows,
		       uint32_t nrows)
{
	uint32_t keys[BATCH];

	if (m->mmapable && (uint64_t)first + nrows <= m->plan.rows) {
		uint64_t start = (uint64_t)first * sizeof(*rows), end = start + (uint64_t)nrows *
			sizeof(*rows);
		uint64_t from = start / m->page * m->page;
		size_t len = (size_t)(end - from);
		char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, m->rows_fd,
				 (off_t)from);

		if (mem != MAP_FAILED) {
			memcpy(mem + (start - from), rows, (size_t)nrows * sizeof(*rows));
			munmap(mem, len);
			return 0;
		}
	}
	for (uint32_t done = 0; done < nrows;) {
		uint32_t n = nrows - done > BATCH ? BATCH : nrows - done;
		uint32_t count = n;

		for (uint32_t i = 0; i < n; i++)
			keys[i] = first + done + i;
		if (bpf_map_update_batch(m->rows_fd, keys, rows + done, &count, NULL) != 0) {
			/* Older kernels have no batch updates for arrays: one by one. */
			for (uint32_t i = 0; i < n; i++)
				if (bpf_map_update_elem(m->rows_fd, &keys[i], &rows[done + i],
							BPF_ANY) != 0)
					return -errno;
		}
		done += n;
	}
	return 0;
}

/* The page size of t's index: 1 KB, or larger so the index stays under a quarter of
 * the rows (a huge binary with few functions would otherwise index mostly gaps). */
static uint32_t index_shift(const struct unwind_table *t, uint32_t *npages)
{
	uint64_t span = (uint64_t)t->rows[t->nrows - 1].pc + 1;
	uint32_t shift = 10;

	while (shift < 31 && (span >> shift) + 2 > t->nrows / 4 + 2)
		shift++;
	*npages = (uint32_t)(span >> shift) + 2;
	return shift;
}

/* The index entries (see struct unwind_table_ref): entry p = the row covering p << shift. */
static struct unwind_row *make_index(const struct unwind_table *t, uint32_t shift,
				     uint32_t npages)
{
	struct unwind_row *idx = calloc(npages, sizeof(*idx));
	uint32_t r = 0;

	if (!idx)
		return NULL;
	for (uint32_t p = 0; p < npages; p++) {
		uint64_t at = (uint64_t)p << shift;

		while (r + 1 < t->nrows && t->rows[r + 1].pc <= at)
			r++;
		idx[p].pc = r;
	}
	return idx;
}

/* Writes t's index and rows at slot first. */
static int write_table(struct unwind_maps *m, uint32_t id, uint32_t first,
		       const struct unwind_table *t, uint32_t shift, uint32_t npages)
{
	struct unwind_table_ref ref = { first + npages, t->nrows, npages, shift };
	struct unwind_row *idx = make_index(t, shift, npages);
	int err;

	if (!idx)
		return -ENOMEM;
	err = write_slice(m, first, idx, npages);
	free(idx);
	if (!err)
		err = write_slice(m, first + npages, t->rows, t->nrows);
	if (!err)
		err = write_ref(m, id, &ref);
	return err;
}

struct span {
	uint64_t first, end;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* The lowest gap of n rows between loaded tables, or -1 (-2: out of memory). The loaded
 * tables in address order, walked once: a resident profiler keeps hundreds loaded. */
static int64_t find_gap(const struct unwind_maps *m, uint32_t n)
{
	struct span *spans = malloc((m->ntables ? m->ntables : 1) * sizeof(*spans));
	uint64_t at = 0;
	int64_t found;

	if (!spans)
		return -2;
	for (uint32_t i = 0; i < m->ntables; i++) {
		const struct slot *s = &m->slots[m->by_build_id[i]];

		spans[i] = (struct span){ s->first, (uint64_t)s->first + s->count };
	}
	qsort(spans, m->ntables, sizeof(*spans), span_cmp);
	for (uint32_t i = 0; i < m->ntables && spans[i].first < at + n; i++)
		if (spans[i].end > at)
			at = spans[i].end;
	found = at + n <= m->plan.rows ? (int64_t)at : -1;
	free(spans);
	return found;
}

/* Table id fell out of use (its last process went): last on the eviction list. */
static void unused_push(struct unwind_maps *m, int32_t id)
{
	struct slot *s = &m->slots[id];

	s->unused = true;
	s->next = -1;
	s->prev = m->unused_tail;
	if (m->unused_tail >= 0)
		m->slots[m->unused_tail].next = id;
	else
		m->unused_head = id;
	m->unused_tail = id;
}

/* Table id is mapped again, or evicted: off the eviction list. */
static void unused_remove(struct unwind_maps *m, int32_t id)
{
	struct slot *s = &m->slots[id];

	if (!s->unused)
		return;
	if (s->prev >= 0)
		m->slots[s->prev].next = s->next;
	else
		m->unused_head = s->next;
	if (s->next >= 0)
		m->slots[s->next].prev = s->prev;
	else
		m->unused_tail = s->prev;
	s->unused = false;
	s->prev = s->next = -1;
}

/* Where build_id is, or would be, in by_build_id; *found when it is there. */
static uint32_t slot_search(const struct unwind_maps *m, const char *build_id, bool *found)
{
	uint32_t lo = 0, hi = m->ntables;

	*found = false;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->slots[m->by_build_id[mid]].build_id, build_id);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A loaded slot leaves the build id index; the slot goes back to the free ones, kept
 * descending. ntables is still counting it. */
static void slot_unindex(struct unwind_maps *m, int32_t id)
{
	bool found;
	uint32_t at = slot_search(m, m->slots[id].build_id, &found), f = 0;

	if (found)
		memmove(&m->by_build_id[at], &m->by_build_id[at + 1],
			(m->ntables - at - 1) * sizeof(m->by_build_id[0]));
	while (f < m->nfree && m->free_slots[f] > id)
		f++;
	memmove(&m->free_slots[f + 1], &m->free_slots[f],
		(m->nfree - f) * sizeof(m->free_slots[0]));
	m->free_slots[f] = id;
	m->nfree++;
}

/* The table that fell out of use longest ago goes: O(1), whatever is loaded. */
static int evict_one(struct unwind_maps *m)
{
	int32_t victim = m->unused_head;

	if (victim < 0)
		return -ENOSPC;
	unused_remove(m, victim);
	if (write_ref(m, (uint32_t)victim, &(struct unwind_table_ref){ 0 }) != 0)
		return -EIO;
	m->used -= (uint64_t)m->slots[victim].count * sizeof(struct unwind_row);
	slot_unindex(m, victim);
	memset(&m->slots[victim], 0, sizeof(m->slots[victim]));
	m->ntables--;
	m->evictions++;
	return 0;
}

/* The id of build_id's table, loading it if needed: >= 0, or -ENOSPC, -errno. */
static int64_t table_id(struct unwind_maps *m, const char *build_id,
			const struct unwind_table *t)
{
	uint32_t npages, shift, size, at;
	int32_t free_slot;
	int64_t first = -1;
	bool found;
	int err;

	at = slot_search(m, build_id, &found);
	if (found)
		return m->by_build_id[at];
	if (!t)
		return -ENOSPC; /* evicted meanwhile: frame pointers there */
	if (t->nrows == 0 || t->nrows > (1u << UNWIND_SEARCH_STEPS))
		return -ENOSPC;
	shift = index_shift(t, &npages);
	size = t->nrows + npages;
	if (size > m->plan.rows)
		return -ENOSPC;
	while (m->nfree == 0 || (first = find_gap(m, size)) < 0) {
		if (first == -2)
			return -ENOMEM;
		err = evict_one(m);
		if (err)
			return err;
	}
	free_slot = m->free_slots[m->nfree - 1];
	err = write_table(m, (uint32_t)free_slot, (uint32_t)first, t, shift, npages);
	if (err)
		return err;
	m->nfree--;
	snprintf(m->slots[free_slot].build_id, sizeof(m->slots[free_slot].build_id), "%s",
		 build_id);
	m->slots[free_slot].first = (uint32_t)first;
	m->slots[free_slot].count = size;
	m->slots[free_slot].base = t->base;
	m->used += (uint64_t)size * sizeof(struct unwind_row);
	/* Evictions above moved the index: where it goes now. */
	at = slot_search(m, m->slots[free_slot].build_id, &found);
	memmove(&m->by_build_id[at + 1], &m->by_build_id[at],
		(m->ntables - at) * sizeof(m->by_build_id[0]));
	m->by_build_id[at] = free_slot;
	m->ntables++;
	return free_slot;
}

/* Where pid is, or would be, in procs; *found when it is there. */
static size_t proc_search(const struct unwind_maps *m, uint32_t pid, bool *found)
{
	size_t lo = 0, hi = m->nprocs;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->procs[mid]->pid == pid) {
			*found = true;
			return mid;
		}
		if (m->procs[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void release(struct unwind_maps *m, struct proc_entry *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct slot *s = &m->slots[p->ids[i]];

		if (s->refs && --s->refs == 0)
			unused_push(m, (int32_t)p->ids[i]);
	}
	p->n = 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct unwind_proc_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int unwind_maps__add_process(struct unwind_maps *m, uint32_t pid,
			     const struct unwind_mapping *maps, size_t n)
{
	struct unwind_proc *proc;
	struct proc_entry *p;
	uint32_t dropped = 0;
	bool found;
	size_t at = proc_search(m, pid, &found);
	int err = 0;

	if (found) {
		p = m->procs[at];
	} else {
		struct proc_entry **grown = realloc(m->procs, (m->nprocs + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		m->procs = grown;
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		memmove(&m->procs[at + 1], &m->procs[at], (m->nprocs - at) * sizeof(m->procs[0]));
		m->procs[at] = p;
		m->nprocs++;
	}
	release(m, p);
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return -ENOMEM;
	/* Tables loaded already first: once this process maps them, loading its new ones
	 * cannot evict them. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct unwind_mapping *in = &maps[i];
			bool loaded;
			int64_t id;

			if (!in->build_id || !in->build_id[0] || in->end <= in->start)
				continue;
			slot_search(m, in->build_id, &loaded);
			if (loaded != (pass == 0) || (!loaded && !in->table))
				continue;
			if (proc->n == UNWIND_MAX_PROC_MAPS) {
				dropped++;
				continue;
			}
			id = table_id(m, in->build_id, in->table);
			if (id == -ENOSPC) {
				m->over_budget++;
				continue;
			}
			if (id < 0) {
				err = (int)id;
				goto out;
			}
			unused_remove(m, (int32_t)id);
			m->slots[id].refs++;
			m->slots[id].last_used = ++m->clock;
			p->ids[p->n++] = (uint32_t)id;
			proc->maps[proc->n++] = (struct unwind_proc_map){
				.start = in->start,
				.end = in->end,
				.adjust = in->start - in->vaddr + m->slots[id].base,
				.table = (uint32_t)id,
			};
		}
	}
	/* Counted once per process, at the most it ever had past the limit. */
	if (dropped > p->dropped) {
		m->procs_dropping += p->dropped == 0;
		m->maps_dropped += dropped - p->dropped;
		p->dropped = dropped;
	}
	qsort(proc->maps, proc->n, sizeof(proc->maps[0]), cmp_map);
	if (bpf_map_update_elem(m->procs_fd, &pid, proc, BPF_ANY) != 0)
		err = -errno;
out:
	free(proc);
	return err;
}

int unwind_maps__remove_process(struct unwind_maps *m, uint32_t pid)
{
	bool found;
	size_t at = proc_search(m, pid, &found);

	if (!found)
		return -ENOENT;
	release(m, m->procs[at]);
	(void)bpf_map_delete_elem(m->procs_fd, &pid);
	free(m->procs[at]);
	memmove(&m->procs[at], &m->procs[at + 1], (m->nprocs - at - 1) * sizeof(m->procs[0]));
	m->nprocs--;
	return 0;
}

bool unwind_maps__loaded(const struct unwind_maps *m, const char *build_id)
{
	bool found;

	slot_search(m, build_id, &found);
	return found;
}

int unwind_maps__forget_processes(struct unwind_maps *m)
{
	int err = 0;

	while (m->nprocs) {
		uint32_t pid = m->procs[m->nprocs - 1]->pid;

		release(m, m->procs[m->nprocs - 1]);
		if (bpf_map_delete_elem(m->procs_fd, &pid) && errno != ENOENT && !err)
			err = -errno;
		free(m->procs[--m->nprocs]);
	}
	m->over_budget = m->maps_dropped = m->procs_dropping = m->evictions = 0;
	return err;
}

void unwind_maps__stats(const struct unwind_maps *m, struct unwind_maps_stats *stats)
{
	stats->budget = (uint64_t)m->plan.rows * sizeof(struct unwind_row);
	stats->used = m->used;
	stats->tables = m->ntables;
	stats->processes = (uint32_t)m->nprocs;
	stats->evictions = m->evictions;
	stats->over_budget = m->over_budget;
	stats->maps_dropped = m->maps_dropped;
	stats->procs_dropping = m->procs_dropping;
	stats->maps_limit = UNWIND_MAX_PROC_MAPS;
}
