/* SPDX-License-Identifier: MIT */
/*
 * Another process's memory as the JVM readers (src/unwind/jvm.h's jvm_read_fn) ask for
 * it, read in the kernel: bpf/jvm_memory.bpf.c copies one page with
 * bpf_copy_from_user_task from a task iterator made for that process. The profiler's
 * process never opens /proc/PID/mem and never ptraces (the mission: eBPF only).
 *
 * Pages are kept (JVM_MEMORY_PAGES of them, the least recently used one goes first), a
 * page that could not be read too: a JVM's tables are ~40 KB of entries and a few pages
 * of names, read in thousands of small reads; a Method's name is six reads in three or
 * four pages of metadata its class shares with its other methods. Thread-safe: the
 * unwind worker reads layouts, the sampling thread names methods.
 */
#ifndef SLIDEOPS_CAPTURE_JVM_MEMORY_H
#define SLIDEOPS_CAPTURE_JVM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#define JVM_MEMORY_PAGES 128 /* 512 KB */

struct jvm_memory;

/* Loads the reader's program. NULL with errno set: the kernel refused it (it needs
 * sleepable task iterators, 5.18) or memory. */
struct jvm_memory *jvm_memory__new(void);
/* Forgets every page read (a kept reader, at a capture's start: memory moves). */
void jvm_memory__forget_all(struct jvm_memory *m);
void jvm_memory__free(struct jvm_memory *m);

/* What a jvm_read_fn is handed: the reader and the process. */
struct jvm_memory_process {
	struct jvm_memory *m;
	int pid;
};

/* jvm_read_fn over ctx, a struct jvm_memory_process: 0, or -EFAULT (a page is not
 * mapped, or the process is gone), -EIO (the iterator failed). */
int jvm_memory__read(void *ctx, uint64_t addr, void *buf, size_t len);

/* Forgets the pages kept of pid (its exit, or memory that may have changed). */
void jvm_memory__forget(struct jvm_memory *m, int pid);

/* Iterator runs so far (each one page read in the kernel), for the debug line. */
uint64_t jvm_memory__reads(struct jvm_memory *m);

#endif
