// SPDX-License-Identifier: MIT
/*
 * The stack walker (bpf/unwind_walk.h, the code the kernel runs) on the host, against
 * real processes: programs built here -O2 with and without frame pointers, PIE and not,
 * blocked in a read on a pipe at the end of a chain of named functions, inside qsort's
 * callback, and in pthread_mutex_lock on another thread. Each is recorded without
 * signals or ptrace: /proc/PID/task/TID/syscall gives the blocked task's sp and pc, and
 * /proc/PID/mem its stack. rbp is not known there: the walk starts without it and
 * recovers it from the tables, as the kernel's walk does for frames it cannot trust.
 *
 * A walk must pass through every named caller, in order, and end at a known root:
 * _start (main thread) or the thread start in libc (rip undefined).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "helpers/fixture.h"
#include "symbols/symtab.h"
#include "unwind/unwind.h"

/* ---- the recorded process, and the walker's view of it ---- */

#define MAX_MAPS 64

struct rec_map {
	uint64_t start, end, adjust;
	char path[256];
	struct unwind_table *table;
	uint64_t vaddr; /* ELF address at start */
};

struct recorded {
	uint64_t ip, sp;
	uint8_t *stack;
	uint64_t stack_lo, stack_hi;
	struct rec_map maps[MAX_MAPS];
	int nmaps;
	const struct rec_map *cur; /* the table the last find chose */
	int use_tables;            /* 0: frame pointers only */
};

#define UNWIND_CTX struct recorded

static int unwind_read_user(struct recorded *r, void *dst, __u32 size, __u64 addr)
{
	if (addr < r->stack_lo || addr > r->stack_hi || size > r->stack_hi - addr)
		return -EFAULT;
	memcpy(dst, r->stack + (addr - r->stack_lo), size);
	return 0;
}

static int unwind_find_table(struct recorded *r, __u64 ip, __u64 *adjust, __u32 *first,
			     __u32 *count)
{
	for (int i = 0; i < r->nmaps && r->use_tables; i++) {
		const struct rec_map *m = &r->maps[i];

		if (ip >= m->start && ip < m->end && m->table) {
			r->cur = m;
			*adjust = m->adjust;
			*first = 0;
			*count = m->table->nrows;
			return UNWIND_FIND_OK;
		}
	}
	return UNWIND_STOP_NO_TABLE;
}

static int unwind_get_row(struct recorded *r, __u32 index, struct unwind_row *row)
{
	if (!r->cur || index >= r->cur->table->nrows)
		return -1;
	*row = r->cur->table->rows[index];
	return 0;
}

#include "unwind_walk.h"

/* ---- the programs ---- */

static const char program[] =
	"#include <pthread.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <unistd.h>\n"
	"#define KEEP __attribute__((noipa))\n"
	"static int fds[2];\n"
	"static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;\n"
	/* a variable-length array: rbp-based CFA even without frame pointers */
	"KEEP int wait_on_pipe(int depth)\n"
	"{ char b[64 + (depth & 7)]; memset(b, depth, sizeof(b));\n"
	"  if (read(fds[0], b, 1) < 0) abort(); return b[3]; }\n"
	"KEEP int level_c(int d) { volatile char pad[48]; pad[0] = (char)d;\n"
	"  return wait_on_pipe(d + pad[0]) + 1; }\n"
	"KEEP int level_b(int d) { volatile long pad[9]; pad[1] = d;\n"
	"  return level_c(d + (int)pad[1]) * 3; }\n"
	"KEEP int level_a(int d) { return level_b(d + 1) - 1; }\n"
	"KEEP int compare_items(const void *a, const void *b)\n"
	"{ static int once; if (!once++) level_a(0);\n"
	"  return *(const int *)a - *(const int *)b; }\n"
	"KEEP void sort_items(void) { int v[64]; for (int i = 0; i < 64; i++) v[i] = 64 - i;\n"
	"  qsort(v, 64, sizeof(int), compare_items); }\n"
	"KEEP void *lock_worker(void *arg) { pthread_mutex_lock(&lock);\n"
	"  pthread_mutex_unlock(&lock); return arg; }\n"
	"KEEP void start_locker(void) { pthread_t t; pthread_create(&t, NULL, lock_worker, NULL);\n"
	"  level_a(0); pthread_join(t, NULL); }\n"
	"int main(int argc, char **argv)\n"
	"{ if (pipe(fds) < 0) return 1;\n"
	"  if (argc > 1 && !strcmp(argv[1], \"qsort\")) sort_items();\n"
	"  else if (argc > 1 && !strcmp(argv[1], \"lock\")) { pthread_mutex_lock(&lock); start_locker(); }\n"
	"  else level_a(argc);\n"
	"  return 0; }\n";

/* ---- recording ---- */

static pid_t start(const char *path, const char *mode)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, path, mode, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Waits until task tid of pid is blocked in syscall nr; fills ip and sp. */
static int wait_blocked(pid_t pid, pid_t tid, long nr, uint64_t *ip, uint64_t *sp)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	for (int tries = 0; tries < 500; tries++) {
		FILE *f = fopen(path, "r");
		long got = -2;
		unsigned long long a[6], s = 0, p = 0;

		if (f) {
			if (fgets(buf, sizeof(buf), f) &&
			    sscanf(buf, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &got, &a[0],
				   &a[1], &a[2], &a[3], &a[4], &a[5], &s, &p) == 9 && got == nr) {
				fclose(f);
				*ip = p;
				*sp = s;
				return 0;
			}
			fclose(f);
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* The task of pid other than pid itself (the program's second thread). */
static pid_t other_task(pid_t pid)
{
	for (int tries = 0; tries < 500; tries++) {
		char path[64];
		DIR *d;
		struct dirent *e;
		pid_t found = 0;

		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		d = opendir(path);
		assert_non_null(d);
		while ((e = readdir(d)))
			if (atoi(e->d_name) > 0 && atoi(e->d_name) != pid)
				found = atoi(e->d_name);
		closedir(d);
		if (found)
			return found;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Maps, tables for each executable file mapping, and the stack mapping holding sp. */
static void record(struct recorded *r, pid_t pid, pid_t tid, long nr)
{
	char path[64], line[512];
	FILE *f;
	int mem;

	memset(r, 0, sizeof(*r));
	r->use_tables = 1;
	assert_int_equal(wait_blocked(pid, tid, nr, &r->ip, &r->sp), 0);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], file[256] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &start, &end, perms, &pgoff,
			   file) < 4)
			continue;
		if (r->sp >= start && r->sp < end) {
			r->stack_lo = r->sp;
			r->stack_hi = end;
		}
		if (perms[2] != 'x' || file[0] != '/' || r->nmaps == MAX_MAPS)
			continue;
		struct rec_map *m = &r->maps[r->nmaps++];
		struct elf_info info;
		enum unwind_not_read why;
		int fd = open(file, O_RDONLY | O_CLOEXEC);

		m->start = start;
		m->end = end;
		snprintf(m->path, sizeof(m->path), "%s", file);
		assert_true(fd >= 0);
		assert_int_equal(elf_info__read(fd, &info), 0);
		assert_true(elf_info__offset_to_vaddr(&info, pgoff, &m->vaddr));
		if (unwind_table__build(fd, NULL, &m->table, &why) == 0)
			m->adjust = m->start - m->vaddr + m->table->base;
		close(fd);
	}
	fclose(f);
	assert_true(r->stack_hi > r->stack_lo);
	r->stack = malloc(r->stack_hi - r->stack_lo);
	assert_non_null(r->stack);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(mem >= 0);
	assert_int_equal(pread(mem, r->stack, r->stack_hi - r->stack_lo, (off_t)r->stack_lo),
			 (ssize_t)(r->stack_hi - r->stack_lo));
	close(mem);
}

static void recorded_free(struct recorded *r)
{
	for (int i = 0; i < r->nmaps; i++)
		unwind_table__free(r->maps[i].table);
	free(r->stack);
}

/* ---- walking and naming ---- */

struct walk {
	__u64 pcs[UNWIND_PCS];
	__u32 n, reason;
	char names[UNWIND_PCS][64]; /* the program's own function of each frame, or "" */
	const struct rec_map *last_map;
};

static void walk(struct recorded *r, const char *exe, struct walk *w)
{
	struct unwind_regs s = { .ip = r->ip, .sp = r->sp, .after_signal = 1 };
	struct symtab *tab = NULL;
	int fd = open(exe, O_RDONLY | O_CLOEXEC);

	memset(w, 0, sizeof(*w));
	w->n = unwind_walk(r, &s, w->pcs, UNWIND_MAX_DEPTH, &w->reason);
	assert_true(fd >= 0);
	assert_int_equal(symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, &tab), 0);
	close(fd);
	for (__u32 i = 0; i < w->n; i++) {
		__u64 pc = w->pcs[i] - (i > 0);

		for (int k = 0; k < r->nmaps; k++) {
			const struct rec_map *m = &r->maps[k];
			uint64_t off;
			const char *name;

			if (pc < m->start || pc >= m->end)
				continue;
			if (i + 1 == w->n)
				w->last_map = m;
			if (strcmp(m->path, exe) != 0)
				break;
			name = symtab__lookup(tab, pc - m->start + m->vaddr, &off);
			if (name)
				snprintf(w->names[i], sizeof(w->names[i]), "%.*s",
					 (int)strcspn(name, "."), name);
			break;
		}
	}
	symtab__free(tab);
}

/* The program's own frames, innermost first, must be exactly want (NULL-terminated). */
static void assert_chain(const struct walk *w, const char *const *want)
{
	char got[1024] = "", expect[1024] = "";

	for (__u32 i = 0; i < w->n; i++) {
		if (!w->names[i][0])
			continue;
		strcat(got, w->names[i]);
		strcat(got, ";");
	}
	for (int i = 0; want[i]; i++) {
		strcat(expect, want[i]);
		strcat(expect, ";");
	}
	if (strcmp(got, expect) != 0)
		fprintf(stderr, "walk: %u frames, stop %u\n  got    %s\n  wanted %s\n", w->n,
			w->reason, got, expect);
	assert_string_equal(got, expect);
}

struct build {
	const char *flags;
	struct fixture *fx;
	const char *exe;
};

static int setup(void **state)
{
	struct build *b = *state;

	b->fx = fixture__new();
	if (!b->fx)
		return -1;
	b->exe = fixture__compile(b->fx, "app", program, b->flags);
	return b->exe ? 0 : -1;
}

static int teardown(void **state)
{
	struct build *b = *state;

	fixture__free(b->fx);
	return 0;
}

static const char *const pipe_chain[] = { "wait_on_pipe", "level_c", "level_b", "level_a", "main",
					  "_start", NULL };

/* Blocked in read at the end of a chain of named functions: the whole chain, to _start. */
static void test_read_chain(void **state)
{
	struct build *b = *state;
	struct recorded r;
	struct walk w;
	pid_t pid = start(b->exe, "pipe");

	record(&r, pid, pid, 0);
	stop(pid);
	walk(&r, b->exe, &w);
	assert_chain(&w, pipe_chain);
	assert_int_equal(w.reason, UNWIND_STOP_ROOT);
	recorded_free(&r);
}

/* Blocked inside qsort's callback: through libc's sort and back into the program. */
static void test_qsort_callback(void **state)
{
	static const char *const chain[] = { "wait_on_pipe", "level_c", "level_b", "level_a",
					     "compare_items", "sort_items", "main", "_start",
					     NULL };
	struct build *b = *state;
	struct recorded r;
	struct walk w;
	pid_t pid = start(b->exe, "qsort");

	record(&r, pid, pid, 0);
	stop(pid);
	walk(&r, b->exe, &w);
	assert_chain(&w, chain);
	assert_int_equal(w.reason, UNWIND_STOP_ROOT);
	recorded_free(&r);
}

/* A second thread blocked in pthread_mutex_lock: its caller, and the thread's root in
 * libc (clone3's rip is undefined). */
static void test_mutex_thread(void **state)
{
	static const char *const chain[] = { "lock_worker", NULL };
	struct build *b = *state;
	struct recorded r;
	struct walk w;
	pid_t pid = start(b->exe, "lock"), tid;

	tid = other_task(pid);
	assert_true(tid > 0);
	record(&r, pid, tid, 202 /* futex */);
	stop(pid);
	walk(&r, b->exe, &w);
	assert_chain(&w, chain);
	assert_int_equal(w.reason, UNWIND_STOP_ROOT);
	assert_non_null(w.last_map);
	assert_non_null(strstr(w.last_map->path, "libc.so"));
	recorded_free(&r);
}

/* Without tables, code built without frame pointers loses its callers: what the tables
 * are for. (With frame pointers, the chain is broken only by libc's read.) */
static void test_frame_pointers_alone_fall_short(void **state)
{
	struct build *b = *state;
	struct recorded r;
	struct walk w;
	pid_t pid = start(b->exe, "pipe");

	record(&r, pid, pid, 0);
	stop(pid);
	r.use_tables = 0;
	walk(&r, b->exe, &w);
	assert_true(w.n < 6);
	assert_false(unwind_stop__is_clean(w.reason) && w.reason == UNWIND_STOP_ROOT);
	recorded_free(&r);
}

int main(void)
{
	static struct build omit_pie = { "-O2 -fomit-frame-pointer -pie -fPIE -pthread" };
	static struct build omit_nopie = { "-O2 -fomit-frame-pointer -no-pie -pthread" };
	static struct build fp_pie = { "-O2 -fno-omit-frame-pointer -pie -fPIE -pthread" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate_setup_teardown(test_read_chain, setup, teardown, &omit_pie),
		cmocka_unit_test_prestate_setup_teardown(test_read_chain, setup, teardown, &omit_nopie),
		cmocka_unit_test_prestate_setup_teardown(test_read_chain, setup, teardown, &fp_pie),
		cmocka_unit_test_prestate_setup_teardown(test_qsort_callback, setup, teardown,
							 &omit_pie),
		cmocka_unit_test_prestate_setup_teardown(test_qsort_callback, setup, teardown,
							 &fp_pie),
		cmocka_unit_test_prestate_setup_teardown(test_mutex_thread, setup, teardown,
							 &omit_nopie),
		cmocka_unit_test_prestate_setup_teardown(test_mutex_thread, setup, teardown, &fp_pie),
		cmocka_unit_test_prestate_setup_teardown(test_frame_pointers_alone_fall_short, setup,
							 teardown, &omit_pie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
