// SPDX-License-Identifier: MIT
/*
 * CPython 3.6-3.13 found and walked in real interpreters: each test starts a script
 * whose main thread blocks in main -> handle_request -> build_report (an os.read on a
 * pipe) and whose second thread blocks in Worker.wait_for_orders, finds CPython and
 * _PyRuntime from the process's mappings and binaries only, then walks each thread by
 * its id with the walker the BPF side compiles (bpf/python_walk.h), built here for the
 * host with reads over /proc/PID/mem, and checks the exact chain of names and files.
 *
 * The script is tests/workloads/blocked.py; the lines each frame runs are found by
 * its "# at" comments.
 *
 * The interpreters are pyenv's (~/.pyenv/versions/3.X.*) and Debian's stripped
 * /usr/bin/python3.11; a missing one skips its test and says which.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "helpers/fixture.h"
#include "helpers/pyproc.h"
#include "unwind/python.h"
#include "../../../bpf/python_walk.h"

/* A started interpreter and what it said about its threads. */
struct service {
	struct pyproc p;
	uint32_t tid[2];
	uint64_t pthread_id[2];
	int fd[2]; /* the pipe each thread reads */
};

/* The thread tid is in read(fd, ...): /proc/PID/task/TID/syscall starts "0 0xFD". */
static int blocked_in_read(pid_t pid, uint32_t tid, int fd)
{
	char path[64], buf[128], want[32];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%u/syscall", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	snprintf(want, sizeof(want), "0 0x%x ", fd);
	return ok && strncmp(buf, want, strlen(want)) == 0;
}

static void start(const char *path, const char *python, struct service *sv)
{
	char line[256];

	memset(sv, 0, sizeof(*sv));
	assert_int_equal(pyproc__start(&sv->p, python, path), 0);
	assert_int_equal(pyproc__read_line(&sv->p, line, sizeof(line)), 0);
	assert_int_equal(sscanf(line, "%u %" SCNu64 " %d %u %" SCNu64 " %d", &sv->tid[0],
				&sv->pthread_id[0], &sv->fd[0], &sv->tid[1], &sv->pthread_id[1],
				&sv->fd[1]), 6);
	/* Both threads are where the test says they are before it looks. */
	for (int i = 0; i < 2000; i++) {
		if (blocked_in_read(sv->p.pid, sv->tid[0], sv->fd[0]) &&
		    blocked_in_read(sv->p.pid, sv->tid[1], sv->fd[1]))
			break;
		usleep(5000);
	}
	assert_int_equal(pyproc__open_mem(&sv->p), 0);
}

/* ---- what a walk should find ---- */

struct want_frame {
	const char *name;
	int own_file;    /* 1: the script; 0: threading.py */
	const char *at;  /* the comment on the line it runs; NULL: any line of the function */
};

static const struct want_frame main_chain[] = {
	{ "build_report", 1, "# at: build_report" },
	{ "handle_request", 1, "# at: handle_request" },
	{ "main", 1, "# at: main" },
	{ "<module>", 1, "# at: <module>" },
};

/* 3.11+ name frames by qualified name; earlier ones by name. */
static const struct want_frame worker_chain_qual[] = {
	{ "Worker.wait_for_orders", 1, "# at: wait_for_orders" }, { "worker", 1, "# at: worker" },
	{ "Thread.run", 0, NULL }, { "Thread._bootstrap_inner", 0, NULL },
	{ "Thread._bootstrap", 0, NULL },
};
static const struct want_frame worker_chain[] = {
	{ "wait_for_orders", 1, "# at: wait_for_orders" }, { "worker", 1, "# at: worker" },
	{ "run", 0, NULL }, { "_bootstrap_inner", 0, NULL }, { "_bootstrap", 0, NULL },
};

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Walks thread i of p and checks its chain; names come through the code cache. */
static void check_thread(struct service *sv, const struct python_proc *proc, int i,
			 const struct want_frame *want, size_t nwant, const char *script_path,
			 struct python_code_cache *cache)
{
	struct python_reader rd = { pyproc__read, &sv->p };
	struct python_scratch s;
	struct python_stack st;
	uint32_t n;

	n = python_walk(&rd, proc, sv->tid[i], sv->pthread_id[i], 0, &s, &st);
	assert_int_equal(st.exit, PYTHON_EXIT_OK);
	assert_int_equal(n, nwant);
	for (uint32_t k = 0; k < n; k++) {
		const struct python_code_entry *e =
			python_code_cache__find(cache, (uint32_t)sv->p.pid, st.frames[k].code);

		if (!e) {
			struct python_code rec;

			python_walk__code(&rd, &proc->off, st.frames[k].code, &rec);
			assert_int_equal(python_code_cache__add(cache, (uint32_t)sv->p.pid, &rec),
					 0);
			e = python_code_cache__find(cache, (uint32_t)sv->p.pid, st.frames[k].code);
		}
		assert_non_null(e);
		assert_string_equal(e->name, want[k].name);
		if (want[k].own_file)
			assert_string_equal(e->file, script_path);
		else
			assert_true(ends_with(e->file, "/threading.py"));
		assert_true(e->firstlineno > 0);
		if (want[k].at)
			assert_int_equal(python_code__line(e, st.frames[k].instr),
					 pyproc__line_of(script_path, want[k].at));
		else
			assert_true(python_code__line(e, st.frames[k].instr) >= e->firstlineno);
		assert_true(st.frames[k].instr != PYTHON_NO_INSTR);
	}
	/* The oldest frame started an evaluation; so did every frame before 3.11. */
	assert_true(st.frames[n - 1].flags & PYTHON_FRAME_ENTRY);
	if (proc->off.frames_kind == PYTHON_FRAMES_OBJECT) {
		for (uint32_t k = 0; k < n; k++)
			assert_true(st.frames[k].flags & PYTHON_FRAME_ENTRY);
	} else if (want == main_chain) {
		/* Python calling Python runs in the same evaluation from 3.11 on. */
		for (uint32_t k = 0; k + 1 < n; k++)
			assert_false(st.frames[k].flags & PYTHON_FRAME_ENTRY);
	}

	/* With the thread state as a hint, the walk finds the same frames. */
	{
		struct python_stack again;

		python_walk(&rd, proc, sv->tid[i], sv->pthread_id[i], st.tstate, &s, &again);
		assert_int_equal(again.tstate, st.tstate);
		assert_int_equal(again.nframes, st.nframes);
		assert_memory_equal(again.frames, st.frames, n * sizeof(st.frames[0]));
	}
}

static void walk_interpreter(const char *python, unsigned minor)
{
	char *script = pyproc__workload("blocked.py");
	struct python_code_cache *cache = python_code_cache__new();
	struct python_binary bin;
	struct python_proc proc;
	struct service sv;

	assert_non_null(script);
	assert_non_null(cache);
	start(script, python, &sv);
	assert_int_equal(pyproc__find_python(sv.p.pid, &proc, &bin), 0);
	assert_int_equal(bin.major, 3);
	assert_int_equal(bin.minor, minor);
	assert_int_equal(proc.off.version, 0x0300 | minor);
	/* _PyEval_EvalFrameDefault is named even in Debian's stripped binary (.dynsym) */
	assert_true(bin.eval_end - bin.eval_start >= 4096);

	check_thread(&sv, &proc, 0, main_chain, 4, script, cache);
	if (minor >= 11)
		check_thread(&sv, &proc, 1, worker_chain_qual, 5, script, cache);
	else
		check_thread(&sv, &proc, 1, worker_chain, 5, script, cache);

	/* A thread of another process is no thread of this one. */
	{
		struct python_reader rd = { pyproc__read, &sv.p };
		struct python_scratch s;
		struct python_stack st;

		assert_int_equal(python_walk(&rd, &proc, 1, 1, 0, &s, &st), 0);
		assert_int_equal(st.exit, PYTHON_EXIT_NO_THREAD);
	}
	pyproc__stop(&sv.p);
	python_code_cache__free(cache);
	free(script);
}

static void walk_pyenv(unsigned minor)
{
	char *python = pyproc__pyenv_or_skip(minor);

	walk_interpreter(python, minor);
	free(python);
}

static void test_walk_36(void **state) { (void)state; walk_pyenv(6); }
static void test_walk_37(void **state) { (void)state; walk_pyenv(7); }
static void test_walk_38(void **state) { (void)state; walk_pyenv(8); }
static void test_walk_39(void **state) { (void)state; walk_pyenv(9); }
static void test_walk_310(void **state) { (void)state; walk_pyenv(10); }
static void test_walk_311(void **state) { (void)state; walk_pyenv(11); }
static void test_walk_312(void **state) { (void)state; walk_pyenv(12); }
static void test_walk_313(void **state) { (void)state; walk_pyenv(13); }

/* Debian's python3.11 has no .symtab: _PyRuntime and Py_Version come from .dynsym. */
static void test_walk_debian_stripped(void **state)
{
	const char *python = "/usr/bin/python3.11";
	struct python_binary bin;
	int fd;

	(void)state;
	if (access(python, X_OK) != 0) {
		fprintf(stderr, "skipped: %s is not installed\n", python);
		skip();
	}
	fd = open(python, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(python_binary__read(fd, "/usr/bin/python3.11", &bin), 0);
	close(fd);
	assert_int_equal(bin.version_from, PYTHON_VERSION_PY_VERSION);
	assert_int_equal(bin.minor, 11);
	assert_true(bin.runtime_vaddr != 0);
	walk_interpreter(python, 11);
}

static int read_binary(const char *path, struct python_binary *bin)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	assert_true(fd >= 0);
	err = python_binary__read(fd, path, bin);
	close(fd);
	return err;
}

/* The version comes from the file, not only its name: a copy named otherwise still says
 * 3.11 (Py_Version), and 3.13's offsets come from its own _Py_DebugOffsets, which agree
 * with the table's row. */
static void test_version_from_binary(void **state)
{
	struct fixture *fx = fixture__new();
	char *py313 = pyproc__pyenv(13);
	struct python_binary bin;
	const char *copy;
	int fd;

	(void)state;
	assert_non_null(fx);
	if (access("/usr/bin/python3.11", R_OK) == 0) {
		copy = fixture__path(fx, "billing-worker");
		assert_int_equal(fixture__sh(fx, "cp /usr/bin/python3.11 %s", copy), 0);
		fd = open(copy, O_RDONLY | O_CLOEXEC);
		assert_int_equal(python_binary__read(fd, copy, &bin), 0);
		close(fd);
		assert_int_equal(bin.minor, 11);
		assert_true(bin.micro > 0);
	}
	/* 3.8-3.10 export no Py_Version: a renamed libpython still has its SONAME. */
	{
		char *py310 = pyproc__pyenv(10);

		if (py310) {
			char lib[4096];

			snprintf(lib, sizeof(lib), "%.*s/lib/libpython3.10.so.1.0",
				 (int)(strstr(py310, "/bin/") - py310), py310);
			copy = fixture__path(fx, "libapp-embedded.so");
			assert_int_equal(fixture__sh(fx, "cp %s %s", lib, copy), 0);
			assert_int_equal(read_binary(copy, &bin), 0);
			assert_int_equal(bin.minor, 10);
			assert_int_equal(bin.version_from, PYTHON_VERSION_SONAME);
			free(py310);
		}
	}
	if (py313) {
		char lib[4096];
		const struct python_offsets *row = python_offsets__for(13);

		snprintf(lib, sizeof(lib), "%.*s/lib/libpython3.13.so.1.0",
			 (int)(strstr(py313, "/bin/") - py313), py313);
		fd = open(lib, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(python_binary__read(fd, lib, &bin), 0);
		close(fd);
		assert_true(bin.from_debug_offsets);
		assert_int_equal(bin.minor, 13);
		assert_memory_equal(&bin.off, row, sizeof(*row));
	}
	free(py313);
	fixture__free(fx);
}

/*
 * A library shaped like libpython, built here: Py_Version, a _PyRuntime that starts with
 * _Py_DebugOffsets (3.13's layout: cookie, then 8-byte words from the version on; w[i]
 * is word i + 1),
 * and a _PyEval_EvalFrameDefault. The debug offsets say native_thread_id is at 168, not
 * the table's 160: what the file says wins.
 */
static const char fake_libpython[] =
	"#include <stdint.h>\n"
	"const unsigned long Py_Version = PYV;\n"
	"struct dbg { char cookie[8]; uint64_t w[72]; };\n"
	"struct dbg _PyRuntime = { COOKIE, { PYV, FT, 0, 0, 632, 0, 0, 7264, 7344,\n"
	"  [20] = 8, [22] = 72, [23] = 152, [24] = 168, [28] = 8, [29] = 0, [30] = 56,\n"
	"  [32] = 70, [34] = 112, [35] = 120, [36] = 128, [37] = 136, [38] = 68, [42] = 200,\n"
	"  [64] = 16, [65] = 32, [67] = 32, [68] = 16, [69] = 40 } };\n"
	"void _PyEval_EvalFrameDefault(void) { __asm__(\".skip 5000, 0x90\"); }\n";

static const char *build_fake(struct fixture *fx, const char *name, const char *defines)
{
	char flags[256];

	snprintf(flags, sizeof(flags), "-shared -fPIC -O1 %s", defines);
	return fixture__compile(fx, name, fake_libpython, flags);
}

static void test_fake_libpython(void **state)
{
	struct fixture *fx = fixture__new();
	struct python_binary bin;
	const char *lib, *ft, *v311, *v314, *nocookie;
	struct python_offsets want;
	struct stat st;

	(void)state;
	assert_non_null(fx);
	lib = build_fake(fx, "libpython3.13.so", "-DPYV=0x030d02f0 -DFT=0 -DCOOKIE='\"xdebugpy\"'");
	ft = build_fake(fx, "libpython3.13t.so", "-DPYV=0x030d02f0 -DFT=1 -DCOOKIE='\"xdebugpy\"'");
	v311 = build_fake(fx, "libpython3.11.so", "-DPYV=0x030b07f0 -DFT=0 -DCOOKIE='\"\"'");
	v314 = build_fake(fx, "libpython3.14.so",
			  "-DPYV=0x030e00f0 -DFT=0 -DCOOKIE='\"xdebugpy\"'");
	nocookie = build_fake(fx, "libpython3.13x.so", "-DPYV=0x030d00f0 -DFT=0 -DCOOKIE='\"\"'");
	assert_non_null(lib);
	assert_non_null(ft);
	assert_non_null(v311);
	assert_non_null(v314);
	assert_non_null(nocookie);

	assert_int_equal(read_binary(lib, &bin), 0);
	assert_int_equal(bin.minor, 13);
	assert_int_equal(bin.micro, 2);
	assert_int_equal(bin.version_from, PYTHON_VERSION_PY_VERSION);
	assert_true(bin.from_debug_offsets);
	want = *python_offsets__for(13);
	want.tstate_native_thread_id = 168;
	want.tstate_words = 22; /* the window grows to cover it */
	assert_memory_equal(&bin.off, &want, sizeof(want));
	assert_true(bin.eval_end - bin.eval_start >= 5000);

	/* Free-threaded 3.13 has another layout: not walked. 3.14: not yet. */
	assert_int_equal(read_binary(ft, &bin), -ENOTSUP);
	assert_int_equal(read_binary(v314, &bin), -ENOTSUP);
	/* 3.11 has no debug offsets: the table's row. So has a 3.13 whose cookie is gone. */
	assert_int_equal(read_binary(v311, &bin), 0);
	assert_false(bin.from_debug_offsets);
	assert_memory_equal(&bin.off, python_offsets__for(11), sizeof(bin.off));
	assert_int_equal(read_binary(nocookie, &bin), 0);
	assert_false(bin.from_debug_offsets);
	assert_memory_equal(&bin.off, python_offsets__for(13), sizeof(bin.off));

	/* Every truncation: refused, or read from what is there; never a crash. */
	assert_int_equal(stat(lib, &st), 0);
	for (off_t len = 0; len < st.st_size; len += 7) {
		const char *cut = fixture__truncated_copy(fx, lib, (size_t)len, "cut.so");
		int err;

		assert_non_null(cut);
		err = read_binary(cut, &bin);
		assert_true(err == 0 || err == -ENOEXEC || err == -ENOENT || err == -ENOTSUP);
	}
	fixture__free(fx);
}

/* Binaries that are not CPython, or not one we walk, say so. */
static void test_not_python(void **state)
{
	char *py27 = NULL;
	struct python_binary bin;
	struct python_proc proc;
	pid_t pid;
	int fd;

	(void)state;
	fd = open("/bin/sleep", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(python_binary__read(fd, "/usr/bin/python3.11", &bin), -ENOENT);
	close(fd);
	fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		assert_int_equal(python_binary__read(fd, "/etc/hostname", &bin), -ENOEXEC);
		close(fd);
	}

	/* A running process that is not Python has no CPython mapping. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	usleep(50000);
	assert_int_equal(pyproc__find_python(pid, &proc, &bin), -ENOENT);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* 2.7 has no _PyRuntime (3.6 neither, but its interp_head stands in): not walked. */
	{
		const char *home = getenv("HOME");
		char pattern[512];
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/.pyenv/versions/2.7.*/lib/%s",
			 home ? home : "/root", "libpython2.7.so.1.0");
		if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0)
			py27 = strdup(g.gl_pathv[0]);
		globfree(&g);
	}
	if (py27) {
		fd = open(py27, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_true(python_binary__read(fd, py27, &bin) < 0);
		close(fd);
		free(py27);
	}
	assert_null(python_offsets__for(5));
	assert_null(python_offsets__for(14));
}

/* ---- hostile memory: a fake process the walker reads from ---- */

struct fake {
	uint64_t base;
	unsigned char mem[8192];
};

static int fake_read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	const struct fake *f = ctx;

	if (addr < f->base || addr - f->base > sizeof(f->mem) ||
	    size > sizeof(f->mem) - (addr - f->base))
		return -EFAULT;
	memcpy(dst, f->mem + (addr - f->base), size);
	return 0;
}

static void put64(struct fake *f, uint64_t addr, uint64_t v)
{
	memcpy(f->mem + (addr - f->base), &v, 8);
}

/* A 3.12-shaped process: runtime at base, one interpreter, one thread, frames after. */
static void fake_process(struct fake *f, struct python_proc *p, uint32_t tid)
{
	const uint64_t runtime = f->base, interp = f->base + 0x100, ts = f->base + 0x400;
	const uint64_t cframe = f->base + 0x600;

	memset(f->mem, 0, sizeof(f->mem));
	p->runtime = runtime;
	p->off = *python_offsets__for(12);
	put64(f, runtime + p->off.runtime_interpreters_head, interp);
	put64(f, interp + p->off.interp_threads_head, ts);
	put64(f, ts + p->off.tstate_native_thread_id, tid);
	put64(f, ts + p->off.tstate_frame, cframe);
}

static void test_garbage_chains(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct python_reader rd = { fake_read, f };
	struct python_scratch s;
	struct python_stack st;
	struct python_proc p;
	uint64_t frame = 0, frame2;

	(void)state;
	assert_non_null(f);
	f->base = 0x7f0000000000ull;
	fake_process(f, &p, 42);
	frame = f->base + 0x800;
	frame2 = f->base + 0x900;

	/* No frames at all: an idle thread. */
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_OK);

	/* A frame whose previous is itself. */
	put64(f, f->base + 0x600 + p.off.cframe_current_frame, frame);
	put64(f, frame + p.off.frame_previous, frame);
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_BAD);

	/* Two frames pointing at each other: cut at the depth bound, never a hang. */
	put64(f, frame + p.off.frame_previous, frame2);
	put64(f, frame2 + p.off.frame_previous, frame);
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), PYTHON_MAX_FRAMES);
	assert_int_equal(st.exit, PYTHON_EXIT_DEPTH);

	/* A chain that leaves readable memory: the frames before it, then the reason. */
	put64(f, frame2 + p.off.frame_previous, 0x10);
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), 2);
	assert_int_equal(st.exit, PYTHON_EXIT_READ);

	/* The same, with shims only (3.12+ C-stack frames): cut, not endless. */
	f->mem[frame - f->base + p.off.frame_owner] = 3;
	f->mem[frame2 - f->base + p.off.frame_owner] = 3;
	put64(f, frame2 + p.off.frame_previous, frame);
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_DEPTH);

	/* Another thread; a thread list that loops; a runtime that cannot be read. */
	assert_int_equal(python_walk(&rd, &p, 43, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_NO_THREAD);
	put64(f, f->base + 0x400 + p.off.tstate_next, f->base + 0x400);
	assert_int_equal(python_walk(&rd, &p, 43, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_NO_THREAD);
	p.runtime = 0x1000;
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_READ);
	/* A bad hint is only a hint. */
	p.runtime = f->base;
	put64(f, f->base + 0x400 + p.off.tstate_next, 0);
	put64(f, frame + p.off.frame_previous, 0);
	f->mem[frame - f->base + p.off.frame_owner] = 0;
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0xdead0000, &s, &st), 1);
	assert_int_equal(st.tstate, f->base + 0x400);

	/* Offsets outside the windows are refused, not read past. */
	p.off.frame_owner = 300;
	assert_int_equal(python_walk(&rd, &p, 42, 0, 0, &s, &st), 0);
	assert_int_equal(st.exit, PYTHON_EXIT_BAD);

	/* A code object whose name is garbage: it says so. */
	{
		struct python_code rec;

		p.off = *python_offsets__for(12);
		python_walk__code(&rd, &p.off, frame, &rec);
		assert_true(rec.flags & PYTHON_CODE_NO_NAME);
		assert_true(rec.flags & PYTHON_CODE_NO_FILE);
		python_walk__code(&rd, &p.off, 0x10, &rec);
		assert_true(rec.flags & PYTHON_CODE_NO_NAME);
	}
	free(f);
}

/* ---- the code cache and strings ---- */

static void test_code_cache(void **state)
{
	struct python_code_cache *c = python_code_cache__new();
	struct python_code rec = { 0 };
	const struct python_code_entry *e;
	char out[16];
	const uint16_t ucs2[] = { 'a', 0xe9, 0x20ac };
	const uint32_t ucs4[] = { 0x1f600, 0xd800 };
	const unsigned char latin1[] = { 'c', 'a', 'f', 0xe9 };

	(void)state;
	assert_non_null(c);
	rec.code = 0x1000;
	rec.firstlineno = 12;
	rec.name_kind = rec.file_kind = 1;
	memcpy(rec.name, "build_report", 12);
	rec.name_bytes = 12;
	memcpy(rec.file, "/srv/app.py", 11);
	rec.file_bytes = 11;
	assert_int_equal(python_code_cache__add(c, 7, &rec), 0);
	e = python_code_cache__find(c, 7, 0x1000);
	assert_non_null(e);
	assert_string_equal(e->name, "build_report");
	assert_string_equal(e->file, "/srv/app.py");
	assert_int_equal(e->firstlineno, 12);
	assert_null(python_code_cache__find(c, 8, 0x1000));
	assert_null(python_code_cache__find(c, 7, 0x2000));

	/* The same address again is a new code object: the newer names win. */
	memcpy(rec.name, "handle", 6);
	rec.name_bytes = 6;
	rec.flags = PYTHON_CODE_FILE_CUT;
	assert_int_equal(python_code_cache__add(c, 7, &rec), 0);
	e = python_code_cache__find(c, 7, 0x1000);
	assert_string_equal(e->name, "handle");
	assert_string_equal(e->file, "/srv/app.py...");
	rec.flags = PYTHON_CODE_NO_NAME;
	assert_int_equal(python_code_cache__add(c, 7, &rec), 0);
	assert_string_equal(python_code_cache__find(c, 7, 0x1000)->name,
			    "[unknown Python function]");

	for (uint64_t i = 0; i < 1000; i++) {
		rec.code = 0x10000 + i * 64;
		assert_int_equal(python_code_cache__add(c, 9, &rec), 0);
	}
	assert_non_null(python_code_cache__find(c, 9, 0x10000 + 999 * 64));
	python_code_cache__forget(c, 9);
	assert_null(python_code_cache__find(c, 9, 0x10000));
	assert_non_null(python_code_cache__find(c, 7, 0x1000));
	python_code_cache__free(c);
	python_code_cache__free(NULL);

	assert_int_equal(python__utf8(1, latin1, 4, out, sizeof(out)), 5);
	assert_string_equal(out, "caf\xc3\xa9");
	assert_int_equal(python__utf8(2, ucs2, sizeof(ucs2), out, sizeof(out)), 6);
	assert_string_equal(out, "a\xc3\xa9\xe2\x82\xac");
	assert_int_equal(python__utf8(4, ucs4, sizeof(ucs4), out, sizeof(out)), 5);
	assert_string_equal(out, "\xf0\x9f\x98\x80?");
	/* Cut on a character boundary. */
	assert_int_equal(python__utf8(2, ucs2, sizeof(ucs2), out, 6), 3);
	assert_string_equal(out, "a\xc3\xa9");
}

/* ---- interleaving native and Python frames ---- */

static void interleaved(const bool *is_eval, size_t nnative, const struct python_stack *py,
			size_t max, const char *want)
{
	struct python_mixed out[16];
	char got[256] = "";
	size_t n = python__interleave(is_eval, nnative, py, out, max), len = 0;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%c%u", i ? " " : "",
					out[i].python ? 'p' : 'n', out[i].index);
	assert_string_equal(got, want);
}

static void test_interleave(void **state)
{
	/* leaf first: n0 a C extension, n1 eval, n2 PyObject_Call, n3 eval, n4 main */
	const bool is_eval[] = { false, true, false, true, false };
	const bool no_eval[] = { false, false };
	struct python_stack py = { .nframes = 4 };

	(void)state;
	/* p0 p1 ran in the inner evaluation (p1 its entry), p2 p3 in the outer one */
	py.frames[1].flags = PYTHON_FRAME_ENTRY;
	py.frames[3].flags = PYTHON_FRAME_ENTRY;
	interleaved(is_eval, 5, &py, 16, "n0 p0 p1 n2 p2 p3 n4");
	/* Fewer evaluations on the Python side: the outer evaluator frame stays. */
	py.nframes = 2;
	interleaved(is_eval, 5, &py, 16, "n0 p0 p1 n2 n3 n4");
	/* No entry marks (a stack cut at the depth bound): the first evaluator takes all. */
	py.nframes = 4;
	py.frames[1].flags = py.frames[3].flags = 0;
	interleaved(is_eval, 5, &py, 16, "n0 p0 p1 p2 p3 n2 n3 n4");
	/* The native stack never reached an evaluator: Python frames at the root end. */
	interleaved(no_eval, 2, &py, 16, "n0 n1 p0 p1 p2 p3");
	/* No Python frames; room for only three. */
	interleaved(is_eval, 5, NULL, 16, "n0 n1 n2 n3 n4");
	interleaved(is_eval, 5, &py, 3, "n0 p0 p1");
}

static void test_offsets_table(void **state)
{
	(void)state;
	for (unsigned minor = PYTHON_MIN_MINOR; minor <= PYTHON_MAX_MINOR; minor++) {
		const struct python_offsets *o = python_offsets__for(minor);

		assert_non_null(o);
		assert_int_equal(o->version, 0x0300 | minor);
		assert_true(o->tstate_words > 0 && o->tstate_words <= PYTHON_WINDOW_WORDS);
		assert_true(o->frame_words > 0 && o->frame_words <= PYTHON_WINDOW_WORDS);
		assert_true((minor >= 11) == (o->tstate_native_thread_id != PYTHON_NONE));
	}
	/* docs/kernel.md, CPython, measured on this machine's 3.11 */
	assert_int_equal(python_offsets__for(11)->tstate_native_thread_id, 160);
	assert_int_equal(python_offsets__for(11)->frame_owner, 69);
	assert_int_equal(python_offsets__for(11)->code_qualname, 128);
}

static void test_candidates(void **state)
{
	(void)state;
	assert_true(python_binary__is_candidate("/usr/bin/python3.11"));
	assert_true(python_binary__is_candidate("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"));
	assert_false(python_binary__is_candidate("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_false(python_binary__is_candidate(NULL));
	/* CPython's C functions are C/C++; only the Python frames are Python (architecture.md). */
	assert_int_equal(binary__language("/usr/bin/python3.11", NULL), LANGUAGE_C);
	assert_int_equal(binary__language("/usr/lib/libpython3.11.so.1.0", NULL), LANGUAGE_C);
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
		cmocka_unit_test(test_offsets_table),
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_code_cache),
		cmocka_unit_test(test_interleave),
		cmocka_unit_test(test_garbage_chains),
		cmocka_unit_test(test_not_python),
		cmocka_unit_test(test_fake_libpython),
		cmocka_unit_test(test_version_from_binary),
		cmocka_unit_test_teardown(test_walk_36, teardown),
		cmocka_unit_test_teardown(test_walk_37, teardown),
		cmocka_unit_test_teardown(test_walk_38, teardown),
		cmocka_unit_test_teardown(test_walk_39, teardown),
		cmocka_unit_test_teardown(test_walk_310, teardown),
		cmocka_unit_test_teardown(test_walk_311, teardown),
		cmocka_unit_test_teardown(test_walk_312, teardown),
		cmocka_unit_test_teardown(test_walk_313, teardown),
		cmocka_unit_test_teardown(test_walk_debian_stripped, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
