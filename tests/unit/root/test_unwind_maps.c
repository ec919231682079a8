// SPDX-License-Identifier: MIT
/*
 * The loader of unwind tables into BPF maps (src/unwind/maps.c), on real maps of the
 * layout bpf/unwind_maps.h declares: a table shared by processes is loaded once, rows
 * land where the table id says, a process's mappings are sorted with the right
 * adjustment, and the memory budget holds: least recently used unmapped tables are
 * evicted, mapped ones never, and what does not fit is left to frame pointers. Needs
 * root (BPF maps); skipped otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/unwind.h"
#include "unwind_maps.h"

struct fixture_maps {
	struct unwind_maps_plan plan;
	int rows, tables, procs;
	struct unwind_maps *m;
};

static int make_maps(struct fixture_maps *f, uint64_t budget)
{
	if (unwind_maps__plan(budget, &f->plan) != 0)
		return -1;
	f->rows = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_rows", 4, sizeof(struct unwind_row),
				 f->plan.rows, NULL);
	f->tables = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_tables", 4,
				   sizeof(struct unwind_table_ref), UNWIND_MAX_TABLES, NULL);
	f->procs = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_procs", 4, sizeof(struct unwind_proc),
				  f->plan.procs, NULL);
	if (f->rows < 0 || f->tables < 0 || f->procs < 0)
		return -1;
	f->m = unwind_maps__new(&f->plan, f->rows, f->tables, f->procs);
	return f->m ? 0 : -1;
}

static void free_maps(struct fixture_maps *f)
{
	unwind_maps__free(f->m);
	close(f->rows);
	close(f->tables);
	close(f->procs);
}

static bool can_bpf(void)
{
	if (geteuid() == 0)
		return true;
	fprintf(stderr, "skipped: BPF maps need root\n");
	return false;
}

/* A table of n rows: rsp+8 every 4 bytes from base, and the end row. */
static struct unwind_table *make_table(uint32_t n, uint64_t base, uint16_t off)
{
	struct unwind_table *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->rows = calloc(n, sizeof(*t->rows));
	assert_non_null(t->rows);
	t->nrows = n;
	t->base = base;
	for (uint32_t i = 0; i < n; i++)
		t->rows[i] = (struct unwind_row){ .pc = i * 4, .cfa_off = off,
						  .kind = UNWIND_CFA_RSP };
	t->rows[n - 1].kind = UNWIND_CFA_NONE;
	assert_true(unwind_table__valid(t));
	return t;
}

static struct unwind_table_ref ref_of(struct fixture_maps *f, uint32_t id)
{
	struct unwind_table_ref ref;

	assert_int_equal(bpf_map_lookup_elem(f->tables, &id, &ref), 0);
	return ref;
}

static void test_plan(void **state)
{
	struct unwind_maps_plan plan;
	uint64_t budgets[] = { 1 << 20, 16 << 20, 256 << 20 };

	(void)state;
	assert_int_equal(unwind_maps__plan(4096, &plan), -EINVAL);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(unwind_maps__plan(budgets[i], &plan), 0);
		assert_true((uint64_t)plan.rows * sizeof(struct unwind_row) +
			    (uint64_t)plan.procs * sizeof(struct unwind_proc) +
			    UNWIND_MAX_TABLES * sizeof(struct unwind_table_ref) <= budgets[i]);
		assert_true(plan.rows > budgets[i] / 16); /* most of it is rows */
	}
}

/* Two processes mapping the same library: one copy of its rows; each process's mappings
 * sorted, with the adjustment that turns an address into a row pc. */
static void test_shared_table(void **state)
{
	struct fixture_maps f;
	struct unwind_table *libc = make_table(1000, 0x26000, 8), *app = make_table(10, 0x1000, 16);
	struct unwind_maps_stats st;
	struct unwind_proc proc;
	struct unwind_row row;
	uint32_t pid = 4242, key;

	(void)state;
	if (!can_bpf())
		skip();
	assert_int_equal(make_maps(&f, 16 << 20), 0);
	struct unwind_mapping a[] = {
		{ 0x7f0000026000, 0x7f0000200000, 0x26000, "aaaa", libc },
		{ 0x555555555000, 0x555555556000, 0x1000, "bbbb", app },
		{ 0x7f0000300000, 0x7f0000400000, 0, "", NULL }, /* JIT: no table */
	};
	assert_int_equal(unwind_maps__add_process(f.m, pid, a, 3), 0);
	assert_int_equal(unwind_maps__add_process(f.m, pid + 1, a, 1), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.tables, 2);
	assert_int_equal(st.processes, 2);
	/* The rows, and a page index of a few entries per table. */
	assert_true(st.used >= (1000 + 10) * sizeof(struct unwind_row) &&
		    st.used <= (1000 + 10 + 16) * sizeof(struct unwind_row));

	assert_int_equal(bpf_map_lookup_elem(f.procs, &pid, &proc), 0);
	assert_int_equal(proc.n, 2);
	assert_true(proc.maps[0].start == 0x555555555000 && proc.maps[1].start == 0x7f0000026000);
	/* Row pc of the library's first byte is 0. */
	assert_int_equal(0x7f0000026000 - proc.maps[1].adjust, 0);
	assert_int_equal(ref_of(&f, proc.maps[1].table).count, 1000);
	key = ref_of(&f, proc.maps[1].table).first + 999;
	assert_int_equal(bpf_map_lookup_elem(f.rows, &key, &row), 0);
	assert_int_equal(row.pc, 999 * 4);
	assert_int_equal(unwind_row__cfa_kind(&row), UNWIND_CFA_NONE);

	/* The page index before the rows: entry p names the row covering p << shift. */
	{
		struct unwind_table_ref ref = ref_of(&f, proc.maps[1].table);

		assert_true(ref.npages >= 2 && ref.npages <= ref.first);
		for (uint32_t p = 0; p < ref.npages; p++) {
			uint64_t at = (uint64_t)p << ref.shift;
			uint32_t want = at / 4 < 999 ? (uint32_t)(at / 4) : 999;

			key = ref.first - ref.npages + p;
			assert_int_equal(bpf_map_lookup_elem(f.rows, &key, &row), 0);
			assert_int_equal(row.pc, want);
		}
	}

	assert_int_equal(unwind_maps__remove_process(f.m, pid), 0);
	assert_int_equal(unwind_maps__remove_process(f.m, pid), -ENOENT);
	assert_int_not_equal(bpf_map_lookup_elem(f.procs, &pid, &proc), 0);
	free_maps(&f);
	unwind_table__free(libc);
	unwind_table__free(app);
}

/*
 * A resident profiler's next capture: every process forgotten (their entries gone from
 * the map), the tables kept and found by build id, so a process maps a kept table with
 * no table in hand, at the same adjustment; and loading a new table for the same
 * process cannot evict a kept one it maps, even when room is short.
 */
static void test_kept_tables_across_captures(void **state)
{
	struct fixture_maps f;
	struct unwind_table *libc = make_table(40000, 0x26000, 8);
	struct unwind_table *big = make_table(60000, 0x1000, 16);
	struct unwind_maps_stats st;
	struct unwind_proc proc, before;
	uint32_t pid = 5151, other = 5252;

	(void)state;
	if (!can_bpf())
		skip();
	/* 1 MB: room for about 94k rows, not for both tables with their indexes. */
	assert_int_equal(make_maps(&f, 1 << 20), 0);
	struct unwind_mapping first[] = { { 0x7f0000026000, 0x7f0000200000, 0x26000, "aaaa", libc } };
	assert_int_equal(unwind_maps__add_process(f.m, pid, first, 1), 0);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &pid, &before), 0);

	assert_int_equal(unwind_maps__forget_processes(f.m), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.processes, 0);
	assert_int_equal(st.tables, 1);
	assert_int_not_equal(bpf_map_lookup_elem(f.procs, &pid, &proc), 0);
	assert_true(unwind_maps__loaded(f.m, "aaaa"));
	assert_false(unwind_maps__loaded(f.m, "bbbb"));

	/* The same process again, with the kept table only named, and a new one. */
	struct unwind_mapping again[] = {
		{ 0x555555555000, 0x555555600000, 0x1000, "bbbb", big },
		{ 0x7f0000026000, 0x7f0000200000, 0x26000, "aaaa", NULL },
	};
	assert_int_equal(unwind_maps__add_process(f.m, pid, again, 2), 0);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &pid, &proc), 0);
	/* The kept one is mapped as before; the new one did not fit beside it. */
	assert_int_equal(proc.n, 1);
	assert_int_equal(proc.maps[0].start, before.maps[0].start);
	assert_int_equal(proc.maps[0].adjust, before.maps[0].adjust);
	assert_int_equal(proc.maps[0].table, before.maps[0].table);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.over_budget, 1);
	assert_int_equal(st.evictions, 0);

	/* A table named but not loaded, without the table in hand: frame pointers there. */
	struct unwind_mapping unknown[] = { { 0x1000, 0x2000, 0, "cccc", NULL } };
	assert_int_equal(unwind_maps__add_process(f.m, other, unknown, 1), 0);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &other, &proc), 0);
	assert_int_equal(proc.n, 0);
	free_maps(&f);
	unwind_table__free(libc);
	unwind_table__free(big);
}

/* A 1 MB budget holds about 94k rows: tables of 40k rows come and go. */
static void test_budget_and_eviction(void **state)
{
	struct fixture_maps f;
	struct unwind_table *t1 = make_table(40000, 0x1000, 8), *t2 = make_table(40000, 0x1000, 16),
			    *t3 = make_table(40000, 0x1000, 24), *huge = make_table(200000, 0x1000, 8);
	struct unwind_maps_stats st;
	struct unwind_proc proc;
	uint32_t b = 2, d = 4;

	(void)state;
	if (!can_bpf())
		skip();
	assert_int_equal(make_maps(&f, 1 << 20), 0);
	assert_true(f.plan.rows >= 80000 && f.plan.rows < 120000);
	struct unwind_mapping m1 = { 0x10000, 0x20000, 0x1000, "0001", t1 };
	struct unwind_mapping m2 = { 0x30000, 0x40000, 0x1000, "0002", t2 };
	struct unwind_mapping m3 = { 0x50000, 0x60000, 0x1000, "0003", t3 };
	struct unwind_mapping mh = { 0x70000, 0x80000, 0x1000, "0004", huge };

	/* Process 1 maps t1, process 2 maps t2; process 1 exits. */
	assert_int_equal(unwind_maps__add_process(f.m, 1, &m1, 1), 0);
	assert_int_equal(unwind_maps__add_process(f.m, b, &m2, 1), 0);
	assert_int_equal(unwind_maps__remove_process(f.m, 1), 0);

	/* t3 does not fit beside both: t1 (unmapped) goes, t2 (mapped) stays. */
	assert_int_equal(unwind_maps__add_process(f.m, 3, &m3, 1), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.evictions, 1);
	assert_int_equal(st.tables, 2);
	assert_true(st.used <= st.budget);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &b, &proc), 0);
	assert_int_equal(ref_of(&f, proc.maps[0].table).count, 40000);

	/* Larger than the whole budget: its mapping is left to frame pointers. */
	assert_int_equal(unwind_maps__add_process(f.m, d, &mh, 1), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.over_budget, 1);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &d, &proc), 0);
	assert_int_equal(proc.n, 0);

	/* Both mapped tables still there: nothing in use was evicted. */
	assert_int_equal(st.tables, 2);
	free_maps(&f);
	unwind_table__free(t1);
	unwind_table__free(t2);
	unwind_table__free(t3);
	unwind_table__free(huge);
}

/* Tables fall out of use and come back: the one evicted is the unused one that fell out
 * of use first, never one mapped again since. Three tables of 25k rows (and their index)
 * fit in 1 MB (90k rows), four do not. */
static void test_eviction_order(void **state)
{
	struct fixture_maps f;
	struct unwind_table *t1 = make_table(25000, 0x1000, 8);
	struct unwind_table *t2 = make_table(25000, 0x1000, 16);
	struct unwind_table *t3 = make_table(25000, 0x1000, 24);
	struct unwind_table *t4 = make_table(25000, 0x1000, 32);
	struct unwind_maps_stats st;
	struct unwind_proc proc;
	uint32_t again = 5, late = 7;

	(void)state;
	if (!can_bpf())
		skip();
	assert_int_equal(make_maps(&f, 1 << 20), 0);
	struct unwind_mapping m1 = { 0x10000, 0x25000, 0x1000, "0001", t1 };
	struct unwind_mapping m2 = { 0x25000, 0x40000, 0x1000, "0002", t2 };
	struct unwind_mapping m3 = { 0x50000, 0x60000, 0x1000, "0003", t3 };
	struct unwind_mapping m4 = { 0x70000, 0x80000, 0x1000, "0004", t4 };

	/* t1, t2, t3 loaded; their processes exit in that order. */
	assert_int_equal(unwind_maps__add_process(f.m, 1, &m1, 1), 0);
	assert_int_equal(unwind_maps__add_process(f.m, 2, &m2, 1), 0);
	assert_int_equal(unwind_maps__add_process(f.m, 3, &m3, 1), 0);
	for (uint32_t pid = 1; pid <= 3; pid++)
		assert_int_equal(unwind_maps__remove_process(f.m, pid), 0);
	/* t1 is mapped again: found loaded, no longer a candidate. */
	assert_int_equal(unwind_maps__add_process(f.m, again, &m1, 1), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.evictions, 0);

	/* t4 needs one table's room: t2 goes (unused longest), not t1 (mapped) nor t3. */
	assert_int_equal(unwind_maps__add_process(f.m, late, &m4, 1), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.evictions, 1);
	assert_int_equal(st.tables, 3);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &again, &proc), 0);
	assert_int_equal(ref_of(&f, proc.maps[0].table).count, 25000);
	/* t3 is still loaded: mapping it again evicts nothing. */
	assert_int_equal(unwind_maps__add_process(f.m, 8, &m3, 1), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.evictions, 1);
	free_maps(&f);
	unwind_table__free(t1);
	unwind_table__free(t2);
	unwind_table__free(t3);
	unwind_table__free(t4);
}

/* A process with more mappings with tables than the BPF side holds: the first
 * UNWIND_MAX_PROC_MAPS are kept, the others counted once per process. */
static void test_mappings_past_the_limit_are_counted(void **state)
{
	enum { NMAPS = UNWIND_MAX_PROC_MAPS + 6 };
	struct unwind_table *t = make_table(10, 0x1000, 8);
	struct unwind_mapping maps[NMAPS];
	char ids[NMAPS][16];
	struct unwind_maps_stats st;
	struct unwind_proc proc;
	struct fixture_maps f;
	uint32_t pid = 5151;

	(void)state;
	if (!can_bpf())
		skip();
	assert_int_equal(make_maps(&f, 16 << 20), 0);
	for (int i = 0; i < NMAPS; i++) {
		snprintf(ids[i], sizeof(ids[i]), "lib%02d", i);
		maps[i] = (struct unwind_mapping){ 0x10000000ull * (i + 1),
						   0x10000000ull * (i + 1) + 0x2000, 0x1000,
						   ids[i], t };
	}
	assert_int_equal(unwind_maps__add_process(f.m, pid, maps, NMAPS), 0);
	assert_int_equal(bpf_map_lookup_elem(f.procs, &pid, &proc), 0);
	assert_int_equal(proc.n, UNWIND_MAX_PROC_MAPS);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.maps_dropped, 6);
	assert_int_equal(st.procs_dropping, 1);
	/* Read again (a dlopen): the same six are not counted twice. */
	assert_int_equal(unwind_maps__add_process(f.m, pid, maps, NMAPS), 0);
	/* A process within the limit drops nothing. */
	assert_int_equal(unwind_maps__add_process(f.m, pid + 1, maps, 3), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.maps_dropped, 6);
	assert_int_equal(st.procs_dropping, 1);
	free_maps(&f);
	unwind_table__free(t);
}

/* Many processes and tables, added and removed in mixed orders: each is found again by
 * its pid and build id, and one build id stays one table. */
static void test_many_processes_and_tables_are_found(void **state)
{
	enum { NPROCS = 300, NTABLES = 97 };
	struct unwind_table *t = make_table(10, 0x1000, 8);
	struct unwind_maps_stats st;
	struct unwind_proc proc;
	struct fixture_maps f;
	uint32_t table_of[NTABLES];
	char ids[NTABLES][16];

	(void)state;
	if (!can_bpf())
		skip();
	assert_int_equal(make_maps(&f, 16 << 20), 0);
	for (int i = 0; i < NTABLES; i++)
		snprintf(ids[i], sizeof(ids[i]), "%08x", (unsigned)(i * 2654435761u));
	for (int i = 0; i < NTABLES; i++)
		table_of[i] = UINT32_MAX;
	/* pids in a scrambled order; process k maps tables k % NTABLES and (k * 7) % NTABLES. */
	for (uint32_t k = 0; k < NPROCS; k++) {
		uint32_t pid = 1000 + (k * 37) % NPROCS;
		uint32_t a = pid % NTABLES, b = (pid * 7) % NTABLES;
		struct unwind_mapping maps[] = {
			{ 0x100000, 0x102000, 0x1000, ids[a], t },
			{ 0x200000, 0x202000, 0x1000, ids[b], t },
		};

		assert_int_equal(unwind_maps__add_process(f.m, pid, maps, a == b ? 1 : 2), 0);
	}
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.processes, NPROCS);
	assert_int_equal(st.tables, NTABLES);
	for (uint32_t pid = 1000; pid < 1000 + NPROCS; pid++) {
		uint32_t a = pid % NTABLES;

		assert_int_equal(bpf_map_lookup_elem(f.procs, &pid, &proc), 0);
		assert_int_equal(proc.maps[0].start, 0x100000);
		if (table_of[a] == UINT32_MAX)
			table_of[a] = proc.maps[0].table;
		assert_int_equal(proc.maps[0].table, table_of[a]);
	}
	/* Every other process goes, from the top down; the rest stay found. */
	for (uint32_t pid = 1000 + NPROCS - 1; pid >= 1000; pid -= 2)
		assert_int_equal(unwind_maps__remove_process(f.m, pid), 0);
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.processes, NPROCS / 2);
	for (uint32_t pid = 1000; pid < 1000 + NPROCS; pid++) {
		bool kept = (1000 + NPROCS - 1 - pid) % 2 == 1;

		assert_int_equal(bpf_map_lookup_elem(f.procs, &pid, &proc) == 0, kept);
		assert_int_equal(unwind_maps__remove_process(f.m, pid) == 0, kept);
	}
	unwind_maps__stats(f.m, &st);
	assert_int_equal(st.processes, 0);
	free_maps(&f);
	unwind_table__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_shared_table),
		cmocka_unit_test(test_kept_tables_across_captures),
		cmocka_unit_test(test_budget_and_eviction),
		cmocka_unit_test(test_eviction_order),
		cmocka_unit_test(test_mappings_past_the_limit_are_counted),
		cmocka_unit_test(test_many_processes_and_tables_are_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
