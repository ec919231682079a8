/* SPDX-License-Identifier: MIT */
/*
 * A real child process's memory for tests of the runtimes' readers (src/unwind/jvm.h,
 * v8.h): read through its /proc/PID/mem, the stand-in here for the capture's page
 * reader, and where its main thread is while it blocks reading its stdin.
 */
#ifndef SLIDEOPS_TESTS_PROCMEM_H
#define SLIDEOPS_TESTS_PROCMEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads len bytes at addr of the process whose /proc/PID/mem is open at *(int *)ctx:
 * 0 or -EFAULT (the readers' v8_read_fn and jvm_read_fn). */
int procmem__read(void *ctx, uint64_t addr, void *buf, size_t len);

/* The stack pointer of pid's main thread while it blocks in read(2) of its stdin
 * (/proc/PID/syscall), or 0. */
uint64_t procmem__blocked_sp(pid_t pid);

#endif
