// SPDX-License-Identifier: MIT
/*
 * The capture's unwind worker (src/capture/unwinding.c) on real BPF maps, with this test's
 * own process as the sampled one: its executable mappings queued, tables built and
 * cached by build id, the process's mappings in the map the walker reads, a second worker
 * reading the cache instead of building, and a removal that empties the entry; and the
 * order it serves processes in (the one needing the fewest binaries now, newcomers joining
 * a batch under way). Needs root (BPF maps); skipped otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "capture/unwinding.h"
#include "helpers/fixture.h"
#include "unwind_maps.h"

struct env {
	struct unwind_maps_plan plan;
	int rows, tables, procs;
	struct unwinding_mapping maps[32];
	size_t n;
	struct fixture *fx;
};

/* This process's executable file mappings, each with its file open. */
static void read_own_maps(struct env *e)
{
	char line[512], path[256], perms[8];
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && e->n < 32) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		struct stat st;

		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %255s", &start, &end, perms, &off,
			   &maj, &min, &ino, path) < 7 || perms[2] != 'x' || path[0] != '/')
			continue;
		e->maps[e->n].fd = open(path, O_RDONLY | O_CLOEXEC);
		if (e->maps[e->n].fd < 0 || fstat(e->maps[e->n].fd, &st))
			continue;
		e->maps[e->n].start = start;
		e->maps[e->n].end = end;
		e->maps[e->n].offset = off;
		e->maps[e->n].dev = st.st_dev;
		e->maps[e->n].ino = st.st_ino;
		e->n++;
	}
	fclose(f);
}

static int setup(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	if (unwinding__plan(8ull << 20, &e->plan))
		return -1;
	e->rows = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_rows", 4, sizeof(struct unwind_row),
				 e->plan.rows, &mmapable);
	e->tables = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_tables", 4,
				   sizeof(struct unwind_table_ref), UNWIND_MAX_TABLES, NULL);
	e->procs = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_procs", 4, sizeof(struct unwind_proc),
				  e->plan.procs, NULL);
	e->fx = fixture__new();
	if (e->rows < 0 || e->tables < 0 || e->procs < 0 || !e->fx)
		return -1;
	read_own_maps(e);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	for (size_t i = 0; i < e->n; i++)
		close(e->maps[i].fd);
	close(e->rows);
	close(e->tables);
	close(e->procs);
	fixture__free(e->fx);
	free(e);
	return 0;
}

/* Waits (the worker is asynchronous) until pid's entry is there, or gone: up to 10 s,
 * looking every millisecond (the order tests see when an entry comes). */
static bool wait_entry(struct env *e, uint32_t pid, bool present, struct unwind_proc *out)
{
	for (int i = 0; i < 10000; i++) {
		bool there = bpf_map_lookup_elem(e->procs, &pid, out) == 0;

		if (there == present)
			return true;
		usleep(1000);
	}
	return false;
}

static size_t cached_files(struct env *e)
{
	DIR *d = opendir(fixture__path(e->fx, "unwind"));
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_own_process(void **state)
{
	struct env *e = *state;
	const char *dir = fixture__path(e->fx, "unwind");
	uint32_t pid = (uint32_t)getpid();
	struct unwinding_stats st;
	struct unwind_proc proc;
	struct unwinding *u;

	assert_true(e->n >= 2); /* the test and libc at least */
	u = unwinding__new(&e->plan, e->rows, e->tables, e->procs, dir);
	assert_non_null(u);
	assert_int_equal(unwinding__add_process(u, (int)pid, e->maps, e->n), 0);
	assert_true(wait_entry(e, pid, true, &proc));
	assert_true(proc.n >= 2);
	for (uint32_t i = 1; i < proc.n; i++)
		assert_true(proc.maps[i - 1].start < proc.maps[i].start);
	assert_int_equal(unwinding__remove_process(u, (int)pid), 0);
	assert_true(wait_entry(e, pid, false, &proc));
	unwinding__stop(u);
	unwinding__stats(u, &st);
	assert_true(st.tables >= 2);
	assert_int_equal(st.processes, 1);
	assert_int_equal(st.cached, 0);
	assert_true(st.maps.used > 0);
	unwinding__free(u);
	assert_true(cached_files(e) >= 2);

	/* The next capture reads the tables back instead of building them. */
	u = unwinding__new(&e->plan, e->rows, e->tables, e->procs, dir);
	assert_non_null(u);
	assert_int_equal(unwinding__add_process(u, (int)pid, e->maps, e->n), 0);
	assert_true(wait_entry(e, pid, true, &proc));
	unwinding__stop(u);
	unwinding__stats(u, &st);
	assert_true(st.cached >= 2);
	unwinding__free(u);
}

/* Stopped with work still queued: it returns, dropping the rest, and frees cleanly. */
static void test_stop_with_work_queued(void **state)
{
	struct env *e = *state;
	struct unwinding *u = unwinding__new(&e->plan, e->rows, e->tables, e->procs, NULL);

	assert_non_null(u);
	for (int i = 0; i < 50; i++)
		assert_int_equal(unwinding__add_process(u, 100000 + i, e->maps, e->n), 0);
	unwinding__stop(u);
	unwinding__stop(u);
	assert_int_equal(unwinding__add_process(u, 1, e->maps, e->n), 0);
	unwinding__free(u);
	unwinding__free(NULL);
}

/* libc's executable mapping in this process: its path, and where it is. */
static bool own_libc(char *path, size_t size, struct unwinding_mapping *m)
{
	char line[512], file[256], perms[8];
	FILE *f = fopen("/proc/self/maps", "re");
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %255s", &start, &end, perms, &off,
			   &maj, &min, &ino, file) < 8 || perms[2] != 'x' || !strstr(file, "/libc.so"))
			continue;
		snprintf(path, size, "%s", file);
		*m = (struct unwinding_mapping){ .start = start, .end = end, .offset = off, .fd = -1 };
		found = true;
	}
	fclose(f);
	return found;
}

/* Copy i of libc (a file of its own: read, and its table built, on its own). */
static struct unwinding_mapping libc_copy(struct env *e, const struct unwinding_mapping *libc,
					  int i)
{
	char name[32];
	struct unwinding_mapping m = *libc;
	struct stat st;

	snprintf(name, sizeof(name), "libc%d.so", i);
	m.fd = open(fixture__path(e->fx, name), O_RDONLY | O_CLOEXEC);
	assert_true(m.fd >= 0);
	assert_int_equal(fstat(m.fd, &st), 0);
	m.dev = st.st_dev;
	m.ino = st.st_ino;
	return m;
}

#define COPIES 32
/* COPIES copies of libc, each mapped where this process maps libc, opened. */
static void libc_copies(struct env *e, struct unwinding_mapping *copies)
{
	struct unwinding_mapping libc = { .fd = -1 };
	char path[256];

	assert_true(own_libc(path, sizeof(path), &libc));
	assert_int_equal(fixture__sh(e->fx, "for i in $(seq 0 %d); do cp '%s' libc$i.so; done",
				     COPIES - 1, path), 0);
	for (int i = 0; i < COPIES; i++)
		copies[i] = libc_copy(e, &libc, i);
}

/* Queues the processes 300000 + i, each mapping copies[i]. */
static void queue_copies(struct unwinding *u, const struct unwinding_mapping *copies)
{
	for (int i = 0; i < COPIES; i++)
		assert_int_equal(unwinding__add_process(u, 300000 + i, &copies[i], 1), 0);
}

/* How many of those processes have their entry. */
static uint32_t copies_loaded(struct env *e)
{
	struct unwind_proc proc;
	uint32_t loaded = 0;

	for (uint32_t pid = 300000; pid < 300000 + COPIES; pid++)
		loaded += bpf_map_lookup_elem(e->procs, &pid, &proc) == 0;
	return loaded;
}

static void close_copies(struct unwinding_mapping *copies)
{
	for (int i = 0; i < COPIES; i++)
		close(copies[i].fd);
}

/*
 * A process whose binaries others' reads bring goes before those that still need their
 * own: N processes each map a copy of libc of their own (tables built, no cache); one
 * more, queued last, maps copies 0 and 1. Counted once, when they came, it needed more
 * than any (2) and would wait for all N; counted again after each read, it needs nothing
 * once the first two are read. Seen from outside: when its entry appears, some of the N
 * are still without theirs.
 */
static void test_served_by_what_it_still_needs(void **state)
{
	struct env *e = *state;
	struct unwinding_mapping copies[COPIES], late[2];
	uint32_t late_pid = 310000, loaded;
	struct unwind_proc proc;
	struct unwinding *u;
	bool seen;

	libc_copies(e, copies);
	late[0] = copies[0];
	late[1] = copies[1];
	late[1].start += 1ull << 32;
	late[1].end += 1ull << 32;
	u = unwinding__new(&e->plan, e->rows, e->tables, e->procs, NULL);
	assert_non_null(u);
	queue_copies(u, copies);
	assert_int_equal(unwinding__add_process(u, (int)late_pid, late, 2), 0);
	seen = wait_entry(e, late_pid, true, &proc);
	unwinding__stop(u);
	assert_true(seen);
	assert_int_equal(proc.n, 2);
	loaded = copies_loaded(e);
	fprintf(stderr, "# the late process was in when %u of %d others were\n", loaded, COPIES);
	assert_true(loaded < COPIES);
	unwinding__free(u);
	close_copies(copies);
}

/*
 * A process queued while a batch runs joins it between two processes' reads: N processes
 * with a copy of libc each are under way when one more comes that maps copy 0, read
 * already. Its entry appears while some of the N are still without theirs (it would
 * have waited for the whole batch).
 */
static void test_newcomer_joins_the_batch(void **state)
{
	struct env *e = *state;
	struct unwinding_mapping copies[COPIES];
	uint32_t newcomer = 310001, loaded;
	struct unwind_proc proc;
	struct unwinding *u;
	bool seen;

	libc_copies(e, copies);
	u = unwinding__new(&e->plan, e->rows, e->tables, e->procs, NULL);
	assert_non_null(u);
	queue_copies(u, copies);
	assert_true(wait_entry(e, 300000, true, &proc));
	assert_int_equal(unwinding__add_process(u, (int)newcomer, &copies[0], 1), 0);
	seen = wait_entry(e, newcomer, true, &proc);
	unwinding__stop(u);
	assert_true(seen);
	loaded = copies_loaded(e);
	fprintf(stderr, "# the newcomer was in when %u of %d others were\n", loaded, COPIES);
	assert_true(loaded < COPIES);
	unwinding__free(u);
	close_copies(copies);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_with_work_queued, setup, teardown),
		cmocka_unit_test_setup_teardown(test_served_by_what_it_still_needs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newcomer_joins_the_batch, setup, teardown),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "skipped: BPF maps need root\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
