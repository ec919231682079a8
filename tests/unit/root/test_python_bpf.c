// SPDX-License-Identifier: MIT
/*
 * The Python frame walker in the kernel: tests/bpf/python_walk.bpf.c (the walker of
 * bpf/python_walk.h in a cpu-clock perf_event program) samples a busy interpreter whose
 * main thread spins in main -> handle_request -> build_report and whose second thread
 * spins in Worker.crunch. Nine in ten of its samples must carry one of those two exact
 * chains, with names and line tables the BPF side read once per code object (and the
 * lines they tell are the lines run: nine in ten samples of each spinning function on
 * its loop's line); both threads are named. The scripts are tests/workloads/threads.py
 * and blocked.py; the lines are found by their "# hot" and "# at" comments.
 * Each installed CPython 3.8-3.13 (pyenv) and Debian's stripped python3.11.
 *
 * The same walker from a sleepable task iterator (the threads question's snapshot) names
 * both threads of a process whose threads are all blocked.
 *
 * Needs root (BPF, perf events); skips with the reason otherwise. Prints the walk's cost
 * per sample (ns, measured in BPF), which is a figure, not an assertion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "helpers/pyproc.h"
#include "python_threads.skel.h"
#include "python_walk.skel.h"
#include "python_walk_test.h"
#include "unwind/python.h"

#define MAX_SAMPLES 20000
#define SAMPLE_HZ 499
#define SECONDS 2

struct run {
	struct python_code_cache *cache;
	uint32_t pid;
	struct test_sample *samples;
	size_t n;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct run *r = ctx;
	const __u32 *kind = data;

	if (size >= sizeof(struct test_code) && *kind == TEST_RECORD_CODE) {
		const struct test_code *c = data;

		return python_code_cache__add(r->cache, r->pid, &c->code);
	}
	if (size >= sizeof(struct test_sample) && *kind == TEST_RECORD_SAMPLE &&
	    r->n < MAX_SAMPLES)
		memcpy(&r->samples[r->n++], data, sizeof(struct test_sample));
	return 0;
}

/* The sample's chain of names, newest first, "a;b;c". */
static void chain_of(const struct run *r, const struct test_sample *s, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < s->stack.nframes && i < PYTHON_MAX_FRAMES; i++) {
		const struct python_code_entry *e =
			python_code_cache__find(r->cache, r->pid, s->stack.frames[i].code);

		len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s",
					i ? ";" : "", e ? e->name : "?");
	}
}

static void line_of(const struct run *r, const struct test_sample *s, unsigned i, int32_t *line)
{
	const struct python_code_entry *e =
		python_code_cache__find(r->cache, r->pid, s->stack.frames[i].code);

	assert_non_null(e);
	*line = python_code__line(e, s->stack.frames[i].instr);
}

static void check_line(const struct run *r, const struct test_sample *s, unsigned i, int32_t want)
{
	int32_t line;

	line_of(r, s, i, &line);
	assert_int_equal(line, want);
}

static int open_perf_events(int *fds, int ncpus)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_freq = SAMPLE_HZ,
		.freq = 1,
	};

	for (int cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
					PERF_FLAG_FD_CLOEXEC);
		if (fds[cpu] < 0)
			return -errno;
	}
	return 0;
}

static void sample_interpreter(const char *python, unsigned minor)
{
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct bpf_link **links = calloc((size_t)ncpus, sizeof(*links));
	int *fds = calloc((size_t)ncpus, sizeof(*fds));
	struct run r = { 0 };
	struct python_walk_bpf *obj;
	struct ring_buffer *rb;
	struct python_binary bin;
	struct python_proc proc;
	struct pyproc p;
	char line[64], chain[2048];
	size_t main_n = 0, worker_n = 0, ok_n = 0, main_hot = 0, worker_hot = 0;
	char *script = pyproc__workload("threads.py");
	int32_t leaf_line, hot, crunch_hot, def_line;
	uint64_t ns = 0, native_ns = 0;
	const char *want_worker = minor >= 11 ? "Worker.crunch;worker;Thread.run;"
						"Thread._bootstrap_inner;Thread._bootstrap"
					      : "crunch;worker;run;_bootstrap_inner;_bootstrap";
	time_t end;

	assert_non_null(links);
	assert_non_null(fds);
	assert_non_null(script);
	hot = pyproc__line_of(script, "# hot: build_report");
	crunch_hot = pyproc__line_of(script, "# hot: crunch");
	def_line = pyproc__line_of(script, "def build_report(");
	assert_true(hot > def_line && def_line > 0 && crunch_hot > 0);
	r.cache = python_code_cache__new();
	r.samples = calloc(MAX_SAMPLES, sizeof(*r.samples));
	assert_non_null(r.cache);
	assert_non_null(r.samples);

	assert_int_equal(pyproc__start(&p, python, script), 0);
	assert_int_equal(pyproc__read_line(&p, line, sizeof(line)), 0);
	assert_string_equal(line, "ready");
	assert_int_equal(pyproc__find_python(p.pid, &proc, &bin), 0);
	r.pid = (uint32_t)p.pid;

	obj = python_walk_bpf__open();
	assert_non_null(obj);
	obj->rodata->target_tgid = (__u32)p.pid;
	assert_int_equal(python_walk_bpf__load(obj), 0);
	assert_int_equal(bpf_map__update_elem(obj->maps.python_procs, &r.pid, sizeof(r.pid), &proc,
					      sizeof(proc), BPF_ANY), 0);
	rb = ring_buffer__new(bpf_map__fd(obj->maps.records), on_record, &r, NULL);
	assert_non_null(rb);
	assert_int_equal(open_perf_events(fds, ncpus), 0);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		links[cpu] = bpf_program__attach_perf_event(obj->progs.on_tick, fds[cpu]);
		assert_non_null(links[cpu]);
	}
	end = time(NULL) + SECONDS;
	while (time(NULL) <= end)
		ring_buffer__poll(rb, 100);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		bpf_link__destroy(links[cpu]);
		close(fds[cpu]);
	}
	ring_buffer__consume(rb);
	pyproc__stop(&p);

	for (size_t i = 0; i < r.n; i++) {
		const struct test_sample *s = &r.samples[i];

		if (s->stack.exit == PYTHON_EXIT_OK)
			ok_n++;
		ns += s->walk_ns;
		native_ns += s->native_ns;
		chain_of(&r, s, chain, sizeof(chain));
		if (strcmp(chain, "build_report;handle_request;main;<module>") == 0) {
			const struct python_code_entry *e =
				python_code_cache__find(r.cache, r.pid, s->stack.frames[0].code);

			main_n++;
			/* the lines run, from the line tables BPF sent: the loop, then
			 * the calls; the function's file and first line */
			assert_string_equal(e->file, script);
			assert_int_equal(e->firstlineno, def_line);
			line_of(&r, s, 0, &leaf_line);
			check_line(&r, s, 1, pyproc__line_of(script, "# at: handle_request"));
			check_line(&r, s, 2, pyproc__line_of(script, "# at: main"));
			check_line(&r, s, 3, pyproc__line_of(script, "# at: <module>"));
			assert_true(leaf_line > def_line && leaf_line <= hot);
			main_hot += leaf_line == hot;
		} else if (strcmp(chain, want_worker) == 0) {
			worker_n++;
			line_of(&r, s, 0, &leaf_line);
			worker_hot += leaf_line == crunch_hot;
		}
		else if (getenv("V"))
			fprintf(stderr, "  other: exit %u '%s'\n", s->stack.exit, chain);
	}
	fprintf(stderr, "  3.%u %s: %zu samples, %zu walked whole, build_report %zu (%zu on line "
			"%d), crunch %zu (%zu on line %d), walk %" PRIu64 " ns a sample, "
			"kernel+user stacks %" PRIu64 " ns\n", minor, python, r.n, ok_n, main_n,
		main_hot, hot, worker_n, worker_hot, crunch_hot, r.n ? ns / r.n : 0,
		r.n ? native_ns / r.n : 0);
	assert_true(r.n >= 100);
	assert_true((main_n + worker_n) * 10 >= r.n * 9);
	assert_true(main_n * 20 >= r.n);
	assert_true(worker_n * 20 >= r.n);
	assert_true(main_hot * 10 >= main_n * 9);
	assert_true(worker_hot * 10 >= worker_n * 9);

	ring_buffer__free(rb);
	python_walk_bpf__destroy(obj);
	python_code_cache__free(r.cache);
	free(r.samples);
	free(links);
	free(fds);
	free(script);
}

/* Both threads blocked in a read: the threads question's snapshot case. */
static int both_blocked(pid_t pid, const uint32_t *tid)
{
	for (int i = 0; i < 2; i++) {
		char path[64], buf[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%u/syscall", pid, tid[i]);
		f = fopen(path, "r");
		if (!f)
			return 0;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		if (strncmp(buf, "0 ", 2) != 0) /* read */
			return 0;
	}
	return 1;
}

static void snapshot_interpreter(const char *python, unsigned minor)
{
	char *script = pyproc__workload("blocked.py");
	struct run r = { 0 };
	struct python_threads_bpf *obj;
	struct ring_buffer *rb;
	struct bpf_link *link;
	struct python_binary bin;
	struct python_proc proc;
	struct pyproc p;
	uint32_t tid[2];
	char line[256], chain[2048], buf[256];
	int fd, seen = 0;
	const char *want_worker = minor >= 11 ? "Worker.wait_for_orders;worker;Thread.run;"
						"Thread._bootstrap_inner;Thread._bootstrap"
					      : "wait_for_orders;worker;run;_bootstrap_inner;"
						"_bootstrap";

	assert_non_null(script);
	r.cache = python_code_cache__new();
	r.samples = calloc(MAX_SAMPLES, sizeof(*r.samples));
	assert_non_null(r.cache);
	assert_non_null(r.samples);
	assert_int_equal(pyproc__start(&p, python, script), 0);
	assert_int_equal(pyproc__read_line(&p, line, sizeof(line)), 0);
	/* native id, ident and pipe of each thread */
	assert_int_equal(sscanf(line, "%u %*u %*d %u", &tid[0], &tid[1]), 2);
	for (int i = 0; i < 2000 && !both_blocked(p.pid, tid); i++)
		usleep(5000);
	assert_int_equal(pyproc__find_python(p.pid, &proc, &bin), 0);
	r.pid = (uint32_t)p.pid;

	obj = python_threads_bpf__open();
	assert_non_null(obj);
	obj->rodata->target_tgid = (__u32)p.pid;
	assert_int_equal(python_threads_bpf__load(obj), 0);
	assert_int_equal(bpf_map__update_elem(obj->maps.python_procs, &r.pid, sizeof(r.pid), &proc,
					      sizeof(proc), BPF_ANY), 0);
	rb = ring_buffer__new(bpf_map__fd(obj->maps.records), on_record, &r, NULL);
	assert_non_null(rb);
	link = bpf_program__attach_iter(obj->progs.each_task, NULL);
	assert_non_null(link);
	fd = bpf_iter_create(bpf_link__fd(link));
	assert_true(fd >= 0);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	ring_buffer__consume(rb);
	pyproc__stop(&p);

	for (size_t i = 0; i < r.n; i++) {
		chain_of(&r, &r.samples[i], chain, sizeof(chain));
		if (r.samples[i].tid == tid[0]) {
			assert_string_equal(chain, "build_report;handle_request;main;<module>");
			seen |= 1;
		} else if (r.samples[i].tid == tid[1]) {
			assert_string_equal(chain, want_worker);
			seen |= 2;
		}
	}
	fprintf(stderr, "  3.%u %s: %zu threads walked from the task iterator\n", minor, python,
		r.n);
	assert_int_equal(seen, 3);

	bpf_link__destroy(link);
	ring_buffer__free(rb);
	python_threads_bpf__destroy(obj);
	python_code_cache__free(r.cache);
	free(r.samples);
	free(script);
}

static void sample_pyenv(unsigned minor)
{
	char *python = pyproc__pyenv_or_skip(minor);

	sample_interpreter(python, minor);
	snapshot_interpreter(python, minor);
	free(python);
}

static void test_bpf_38(void **state) { (void)state; sample_pyenv(8); }
static void test_bpf_39(void **state) { (void)state; sample_pyenv(9); }
static void test_bpf_310(void **state) { (void)state; sample_pyenv(10); }
static void test_bpf_311(void **state) { (void)state; sample_pyenv(11); }
static void test_bpf_312(void **state) { (void)state; sample_pyenv(12); }
static void test_bpf_313(void **state) { (void)state; sample_pyenv(13); }

static void test_bpf_debian_stripped(void **state)
{
	(void)state;
	if (access("/usr/bin/python3.11", X_OK) != 0) {
		fprintf(stderr, "skipped: /usr/bin/python3.11 is not installed\n");
		skip();
	}
	sample_interpreter("/usr/bin/python3.11", 11);
	snapshot_interpreter("/usr/bin/python3.11", 11);
}

static int teardown(void **state)
{
	(void)state;
	pyproc__stop_all();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_bpf_38, teardown),
		cmocka_unit_test_teardown(test_bpf_39, teardown),
		cmocka_unit_test_teardown(test_bpf_310, teardown),
		cmocka_unit_test_teardown(test_bpf_311, teardown),
		cmocka_unit_test_teardown(test_bpf_312, teardown),
		cmocka_unit_test_teardown(test_bpf_313, teardown),
		cmocka_unit_test_teardown(test_bpf_debian_stripped, teardown),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "skipped: loading BPF programs needs root\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
