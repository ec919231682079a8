// SPDX-License-Identifier: MIT
/*
 * CPython found in a process's mappings by the unwind worker's side of the engine
 * (src/capture/python_procs.c), with real binaries and a real BPF hash map: Debian's
 * stripped /usr/bin/python3.11 is found, its struct python_proc lands in the map by
 * tgid, and the sampling side learns where its evaluator is (as file offsets); libc and a
 * file named like Python that is not are left alone; a removed process is forgotten.
 * Needs root (a BPF map) and /usr/bin/python3.11; skips without either.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <elf.h>

#include "capture/python_procs.h"
#include "capture/unwinding.h"
#include "unwind/python.h"

#define PYTHON "/usr/bin/python3.11"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

struct env {
	int map;
	int python_fd, libc_fd, fake_fd;
	char fake[64];
	struct python_binary bin;
	struct python_procs *pp;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->map = bpf_map_create(BPF_MAP_TYPE_HASH, "python_procs", sizeof(uint32_t),
				sizeof(struct python_proc), 16, NULL);
	e->python_fd = open(PYTHON, O_RDONLY | O_CLOEXEC);
	e->libc_fd = open(LIBC, O_RDONLY | O_CLOEXEC);
	/* Named like CPython, but a copy of libc's first bytes: not CPython. */
	snprintf(e->fake, sizeof(e->fake), "/tmp/python3.11-fake-%d", getpid());
	e->fake_fd = open(e->fake, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (e->fake_fd >= 0 && e->libc_fd >= 0) {
		char buf[65536];
		ssize_t n = pread(e->libc_fd, buf, sizeof(buf), 0);

		assert_true(n > 0 && write(e->fake_fd, buf, (size_t)n) == n);
	}
	e->pp = e->map >= 0 ? python_procs__new(e->map) : NULL;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	python_procs__free(e->pp);
	if (e->map >= 0)
		close(e->map);
	if (e->python_fd >= 0)
		close(e->python_fd);
	if (e->libc_fd >= 0)
		close(e->libc_fd);
	if (e->fake_fd >= 0) {
		close(e->fake_fd);
		unlink(e->fake);
	}
	free(e);
	return 0;
}

/* A mapping of fd's executable segment at a made-up address. */
static struct unwinding_mapping exec_mapping(int fd, const char *path, uint64_t start)
{
	struct unwinding_mapping m = { .start = start, .fd = fd, .path = path };
	struct python_binary bin;
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	m.dev = st.st_dev;
	m.ino = st.st_ino;
	m.end = start + 0x100000;
	m.offset = 0x1000;
	if (python_binary__read(fd, path, &bin) == 0) {
		for (unsigned i = 0; i < bin.nsegments; i++) {
			if (bin.segments[i].flags & PF_X) {
				m.offset = bin.segments[i].offset & ~0xfffull;
				m.end = start + bin.segments[i].filesz;
			}
		}
	}
	return m;
}

static void need(const struct env *e)
{
	if (e->map < 0) {
		print_message("skipped: no BPF map (not root?)\n");
		skip();
	}
	if (e->python_fd < 0 || e->libc_fd < 0) {
		print_message("skipped: %s or %s is missing\n", PYTHON, LIBC);
		skip();
	}
}

static void test_stripped_python_found(void **state)
{
	struct env *e = *state;
	struct unwinding_mapping maps[2];
	struct python_procs_entry found;
	struct python_proc proc;
	uint32_t key = 4321;

	need(e);
	maps[0] = exec_mapping(e->libc_fd, LIBC, 0x7f0000000000ull);
	maps[1] = exec_mapping(e->python_fd, PYTHON, 0x555555600000ull);
	python_procs__add_process(e->pp, 4321, maps, 2);

	assert_true(python_procs__find(e->pp, 4321, &found));
	assert_int_equal(found.minor, 11);
	assert_int_equal(found.dev, maps[1].dev);
	assert_int_equal(found.ino, maps[1].ino);
	/* _PyEval_EvalFrameDefault is tens of kilobytes of the executable's text. */
	assert_true(found.eval_start > 0 && found.eval_end - found.eval_start > 4096);
	assert_int_equal(bpf_map_lookup_elem(e->map, &key, &proc), 0);
	assert_int_equal(proc.off.version, 0x030b);
	assert_true(proc.runtime > maps[1].start);
	assert_int_equal(python_procs__count(e->pp), 1);

	python_procs__remove_process(e->pp, 4321);
	assert_false(python_procs__find(e->pp, 4321, &found));
	assert_int_equal(bpf_map_lookup_elem(e->map, &key, &proc), -ENOENT);
}

static void test_not_python_left_alone(void **state)
{
	struct env *e = *state;
	struct unwinding_mapping maps[2];
	struct python_procs_entry found;
	struct python_proc proc;
	uint32_t key = 4322;

	need(e);
	assert_true(e->fake_fd >= 0);
	maps[0] = exec_mapping(e->libc_fd, LIBC, 0x7f0000000000ull);
	maps[1] = exec_mapping(e->fake_fd, e->fake, 0x555555600000ull);
	python_procs__add_process(e->pp, 4322, maps, 2);
	assert_false(python_procs__find(e->pp, 4322, &found));
	assert_int_equal(bpf_map_lookup_elem(e->map, &key, &proc), -ENOENT);
	/* A mapping without a descriptor or a path is not opened. */
	maps[1] = exec_mapping(e->python_fd, PYTHON, 0x555555600000ull);
	maps[1].fd = -1;
	python_procs__add_process(e->pp, 4322, &maps[1], 1);
	maps[1].fd = e->python_fd;
	maps[1].path = NULL;
	python_procs__add_process(e->pp, 4322, &maps[1], 1);
	assert_false(python_procs__find(e->pp, 4322, &found));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stripped_python_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_python_left_alone, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
