/* SPDX-License-Identifier: MIT */
/*
 * Real Python interpreters for tests: which are installed (pyenv's CPython 3.X and
 * Debian's /usr/bin/python3.11), a script started under one with its stdout read line
 * by line, and CPython found in a running process the way the capture engine finds it:
 * from /proc/PID/maps and the mapped binaries only (src/unwind/python.h).
 */
#ifndef SLIDEOPS_TESTS_PYPROC_H
#define SLIDEOPS_TESTS_PYPROC_H

#include <stdint.h>
#include <sys/types.h>

#include "unwind/python.h"

/* pyenv's CPython 3.minor (~/.pyenv/versions/3.minor.*), malloc'd, or NULL. */
char *pyproc__pyenv(unsigned minor);

/* The same, or the calling cmocka test skipped with a line saying which is missing. */
char *pyproc__pyenv_or_skip(unsigned minor);

struct pyproc {
	pid_t pid;
	int out;  /* its stdout */
	int mem;  /* /proc/PID/mem, opened by pyproc__open_mem; -1 until then */
};

/* Starts `python -S script`. 0 or -errno. */
int pyproc__start(struct pyproc *p, const char *python, const char *script);
/* One line of its stdout (without the newline) into buf. 0, or -1 at its end. */
int pyproc__read_line(struct pyproc *p, char *buf, size_t size);
/* Opens /proc/PID/mem for pyproc__read. 0 or -errno. */
int pyproc__open_mem(struct pyproc *p);
/* A struct python_reader read function over /proc/PID/mem (ctx: the struct pyproc). */
int pyproc__read(void *ctx, void *dst, __u32 size, __u64 addr);
/* Kills and reaps it; closes what was opened. */
void pyproc__stop(struct pyproc *p);
/* Kills and reaps every interpreter started and not stopped (a test's teardown; also
 * run at exit). */
void pyproc__stop_all(void);

/*
 * CPython in process pid: each executable file mapping that could be CPython is read;
 * the first that is gives the process's struct python_proc (and bin, the binary).
 * 0 or -ENOENT.
 */
int pyproc__find_python(pid_t pid, struct python_proc *proc, struct python_binary *bin);

/*
 * The Python workload NAME of tests/workloads/ (one copy, shared with the integration
 * tests and benchmarks), found from $SLIDEOPS_WORKLOADS, then upwards from the test's
 * own executable (build/tests/..., build/asan/tests/...), then from the current
 * directory. An absolute path, malloc'd, or NULL.
 */
char *pyproc__workload(const char *name);
/* The number (from 1) of the first line of file path that holds marker, or -1. */
int pyproc__line_of(const char *path, const char *marker);

#endif
