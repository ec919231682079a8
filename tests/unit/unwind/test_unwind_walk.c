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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
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
#include "unwind_check.skel.h"

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
	"#include <signal.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <unistd.h>\n"
	"#define KEEP __attribute__((noipa))\n"
	"static int fds[2];\n"
	"static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;\n"
	/* a variable-length array: rbp-based CFA even without frame pointers */
	"KEEP int wait_on_pipe(int depth)\n"
	"#ifdef NO_VLA\n"
	"#define EXTRA 0\n"
	"#else\n"
	"#define EXTRA (depth & 7)\n"
	"#endif\n"
	"{ char b[64 + EXTRA]; memset(b, depth, sizeof(b));\n"
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
	/* the empty asm after each call: no tail calls, so each caller keeps a frame */
	"KEEP void on_signal(int sig) { level_a(sig); __asm__ volatile(\"\" ::: \"memory\"); }\n"
	"KEEP void send_signal(void) { signal(SIGUSR1, on_signal); raise(SIGUSR1);\n"
	"  __asm__ volatile(\"\" ::: \"memory\"); }\n"
	"int main(int argc, char **argv)\n"
	"{ if (pipe(fds) < 0) return 1;\n"
	"  if (argc > 1 && !strcmp(argv[1], \"qsort\")) sort_items();\n"
	"  else if (argc > 1 && !strcmp(argv[1], \"lock\")) { pthread_mutex_lock(&lock); start_locker(); }\n"
	"  else if (argc > 1 && !strcmp(argv[1], \"signal\")) send_signal();\n"
	"  else level_a(argc);\n"
	"  return 0; }\n";

/* ---- recording ---- */

/* The running program: killed by teardown too, when an assertion ended the test early. */
static pid_t running;

static pid_t start(const char *path, const char *mode)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execl(path, path, mode, (char *)NULL);
		_exit(127);
	}
	running = pid;
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	running = 0;
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

/* Walks from the recorded ip and sp, and rbp when bp_known; names the frames. */
static void walk_regs(struct recorded *r, const char *exe, struct walk *w, uint64_t bp,
		      bool bp_known)
{
	struct unwind_regs s = { .ip = r->ip, .sp = r->sp, .bp = bp, .bp_known = bp_known,
				 .after_signal = 1 };
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

static void walk(struct recorded *r, const char *exe, struct walk *w)
{
	walk_regs(r, exe, w, 0, false);
}

static void walk_from(struct recorded *r, const char *exe, struct walk *w, uint64_t bp)
{
	walk_regs(r, exe, w, bp, true);
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

	if (running)
		stop(running);
	fixture__free(b->fx);
	return 0;
}

static const char *const pipe_chain[] = { "wait_on_pipe", "level_c", "level_b", "level_a", "main",
					  "_start", NULL };
static const char *const qsort_chain[] = { "wait_on_pipe", "level_c", "level_b", "level_a",
					   "compare_items", "sort_items", "main", "_start", NULL };
static const char *const lock_chain[] = { "lock_worker", NULL };
/* Through the signal trampoline (libc's __restore_rt) into the interrupted code. */
static const char *const signal_chain[] = { "wait_on_pipe", "level_c", "level_b", "level_a",
					    "on_signal", "send_signal", "main", "_start", NULL };

struct scenario {
	const char *mode;
	long syscall_nr;         /* where the recorded task blocks */
	bool other_thread;
	const char *const *chain;
};

static const struct scenario pipe_read = { "pipe", 0 /* read */, false, pipe_chain };
static const struct scenario qsort_callback = { "qsort", 0, false, qsort_chain };
static const struct scenario mutex_thread = { "lock", 202 /* futex */, true, lock_chain };
static const struct scenario in_handler = { "signal", 0, false, signal_chain };

/* The main thread's walk ends at _start; a thread's in libc, at clone3. */
static void assert_root(const struct walk *w, const struct scenario *sc)
{
	assert_int_equal(w->reason, UNWIND_STOP_ROOT);
	assert_non_null(w->last_map);
	if (sc->other_thread)
		assert_non_null(strstr(w->last_map->path, "libc.so"));
}

/* Recorded through /proc alone (sp and pc, no rbp), walked with the tables. */
static void proc_only(void **state, const struct scenario *sc)
{
	struct build *b = *state;
	struct recorded r;
	struct walk w;
	pid_t pid = start(b->exe, sc->mode);
	pid_t tid = sc->other_thread ? other_task(pid) : pid;

	assert_true(tid > 0);
	record(&r, pid, tid, sc->syscall_nr);
	stop(pid);
	walk(&r, b->exe, &w);
	assert_chain(&w, sc->chain);
	assert_root(&w, sc);
	recorded_free(&r);
}

static void test_proc_read_chain(void **state)
{
	proc_only(state, &pipe_read);
}

static void test_proc_qsort_callback(void **state)
{
	proc_only(state, &qsort_callback);
}

static void test_proc_mutex_thread(void **state)
{
	proc_only(state, &mutex_thread);
}

static void test_proc_signal_handler(void **state)
{
	proc_only(state, &in_handler);
}

/* Without tables, code built without frame pointers loses its callers: what the tables
 * are for. */
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
	assert_int_not_equal(w.reason, UNWIND_STOP_ROOT);
	recorded_free(&r);
}

/*
 * In the kernel: bpf/unwind_check.bpf.c gives the task's full registers (rbp too) and
 * walks its stack in BPF over the maps src/unwind/maps.c filled. The kernel's walk must
 * reach the root through every named caller, and the host's walk of the recorded stack
 * from the same registers must give the same frames. Needs root (BPF).
 */
static void in_kernel(void **state, const struct scenario *sc)
{
	struct build *b = *state;
	struct unwind_check_bpf *skel;
	struct unwind_maps_plan plan;
	struct unwind_maps *maps;
	struct unwind_mapping in[MAX_MAPS];
	struct recorded r;
	struct walk w, host;
	char out[8192] = "", *line;
	unsigned long long rip = 0, rsp = 0, rbp = 0;
	pid_t pid, tid;
	size_t len = 0;
	ssize_t got;
	int fd, btid = 0;

	if (geteuid() != 0) {
		fprintf(stderr, "skipped: the kernel walk needs root\n");
		skip();
	}
	pid = start(b->exe, sc->mode);
	tid = sc->other_thread ? other_task(pid) : pid;
	assert_true(tid > 0);
	record(&r, pid, tid, sc->syscall_nr);

	skel = unwind_check_bpf__open();
	assert_non_null(skel);
	assert_int_equal(unwind_maps__plan(64 << 20, &plan), 0);
	bpf_map__set_max_entries(skel->maps.unwind_rows, plan.rows);
	bpf_map__set_max_entries(skel->maps.unwind_procs, plan.procs);
	skel->rodata->target_tid = (__u32)tid;
	assert_int_equal(unwind_check_bpf__load(skel), 0);
	maps = unwind_maps__new(&plan, bpf_map__fd(skel->maps.unwind_rows),
				bpf_map__fd(skel->maps.unwind_tables),
				bpf_map__fd(skel->maps.unwind_procs));
	assert_non_null(maps);
	for (int i = 0; i < r.nmaps; i++) {
		struct elf_info info;
		int efd = open(r.maps[i].path, O_RDONLY | O_CLOEXEC);
		char *id = malloc(BUILD_ID_HEX_MAX + 1);

		assert_true(efd >= 0);
		assert_int_equal(elf_info__read(efd, &info), 0);
		close(efd);
		strcpy(id, info.build_id);
		in[i] = (struct unwind_mapping){ r.maps[i].start, r.maps[i].end, r.maps[i].vaddr,
						 id, r.maps[i].table };
	}
	assert_int_equal(unwind_maps__add_process(maps, (uint32_t)pid, in, (size_t)r.nmaps), 0);

	struct bpf_link *link = bpf_program__attach_iter(skel->progs.walk_task, NULL);

	assert_non_null(link);
	fd = bpf_iter_create(bpf_link__fd(link));
	assert_true(fd >= 0);
	while ((got = read(fd, out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	close(fd);
	bpf_link__destroy(link);
	stop(pid);

	/* regs TID IP SP BP / walk N REASON PCS... */
	memset(&w, 0, sizeof(w));
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "regs %d %llx %llx %llx", &btid, &rip, &rsp, &rbp) == 4)
			continue;
		if (strncmp(line, "walk ", 5) == 0) {
			char *p = line + 5, *e;

			w.n = (__u32)strtoul(p, &e, 10);
			w.reason = (__u32)strtoul(e, &p, 10);
			for (__u32 i = 0; i < w.n && i < UNWIND_PCS; i++)
				w.pcs[i] = strtoull(p, &p, 16);
		}
	}
	assert_int_equal(btid, tid);
	assert_int_equal(rsp, r.sp);

	/* The host's walk from the same registers. */
	r.ip = rip;
	walk_from(&r, b->exe, &host, rbp);
	assert_chain(&host, sc->chain);
	assert_root(&host, sc);
	assert_int_equal(w.n, host.n);
	assert_int_equal(w.reason, host.reason);
	for (__u32 i = 0; i < w.n; i++)
		assert_int_equal(w.pcs[i], host.pcs[i]);

	/* The walk was counted under its stop reason. */
	{
		int ncpus = libbpf_num_possible_cpus();
		__u64 *per_cpu = calloc((size_t)ncpus, sizeof(*per_cpu)), total = 0;
		__u32 key = w.reason;

		assert_non_null(per_cpu);
		assert_int_equal(bpf_map__lookup_elem(skel->maps.unwind_stops, &key, sizeof(key),
						      per_cpu, (size_t)ncpus * sizeof(*per_cpu), 0), 0);
		for (int i = 0; i < ncpus; i++)
			total += per_cpu[i];
		assert_int_equal(total, 1);
		free(per_cpu);
	}

	for (int i = 0; i < r.nmaps; i++)
		free((char *)in[i].build_id);
	unwind_maps__free(maps);
	unwind_check_bpf__destroy(skel);
	recorded_free(&r);
}

static void test_kernel_read_chain(void **state)
{
	in_kernel(state, &pipe_read);
}

static void test_kernel_qsort_callback(void **state)
{
	in_kernel(state, &qsort_callback);
}

static void test_kernel_mutex_thread(void **state)
{
	in_kernel(state, &mutex_thread);
}

static void test_kernel_signal_handler(void **state)
{
	in_kernel(state, &in_handler);
}

#define T(test, build) cmocka_unit_test_prestate_setup_teardown(test, setup, teardown, build)

int main(void)
{
	/* /proc gives no rbp: these builds keep rbp-based frames out of the program. */
	static struct build omit_pie = { "-O2 -fomit-frame-pointer -DNO_VLA -pie -fPIE -pthread" };
	static struct build omit_nopie = { "-O2 -fomit-frame-pointer -DNO_VLA -no-pie -pthread" };
	/* From the kernel's registers: a VLA (rbp-based CFA) and frame-pointer code too. */
	static struct build vla_pie = { "-O2 -fomit-frame-pointer -pie -fPIE -pthread" };
	static struct build vla_nopie = { "-O2 -fomit-frame-pointer -no-pie -pthread" };
	static struct build fp_pie = { "-O2 -fno-omit-frame-pointer -pie -fPIE -pthread" };
	const struct CMUnitTest tests[] = {
		T(test_proc_read_chain, &omit_pie),
		T(test_proc_read_chain, &omit_nopie),
		T(test_proc_qsort_callback, &omit_pie),
		T(test_proc_mutex_thread, &omit_nopie),
		T(test_proc_signal_handler, &omit_pie),
		T(test_frame_pointers_alone_fall_short, &omit_pie),
		T(test_kernel_read_chain, &vla_pie),
		T(test_kernel_read_chain, &vla_nopie),
		T(test_kernel_read_chain, &fp_pie),
		T(test_kernel_qsort_callback, &vla_pie),
		T(test_kernel_qsort_callback, &fp_pie),
		T(test_kernel_mutex_thread, &vla_nopie),
		T(test_kernel_mutex_thread, &fp_pie),
		T(test_kernel_signal_handler, &vla_pie),
		T(test_kernel_signal_handler, &fp_pie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
