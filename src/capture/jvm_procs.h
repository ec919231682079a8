/* SPDX-License-Identifier: MIT */
/*
 * The processes of a capture that run a JVM (HotSpot): found by the unwind worker, as
 * CPython's are (python_procs.h), in the executable mappings it is handed (a mapped
 * libjvm.so); their layout read from the JVM's own tables through the kernel
 * (jvm_memory.h: a page at a time, never from this process); their struct jvm_proc
 * written to the BPF map jvm_procs, from which the native walker steps through their
 * compiled and interpreted Java frames (bpf/jvm_frames.h). The sampling side names the
 * Method* those frames carry (jvm_procs__method_name). A JVM whose layout could not be
 * read keeps its one [Java] frame, and its refusal is kept for the profile.
 *
 * Two threads: the worker adds and removes, the sampling thread names; a mutex between.
 */
#ifndef SLIDEOPS_CAPTURE_JVM_PROCS_H
#define SLIDEOPS_CAPTURE_JVM_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwinding_mapping;
struct jvm_procs;
struct profile;

/* JVMs a capture keeps (their layouts, ~0.5 KB each); past it, exited ones make room. */
#define JVM_PROCS_MAX 1024

/*
 * Over the BPF map jvm_procs (descriptor not owned). The kernel's reader of a process's
 * memory is asked of reader(ctx) when the first JVM is met, by the unwind worker, once:
 * a capture of a machine without a JVM loads no reader. NULL from it: it could not be
 * loaded, and every JVM is refused as unreadable. NULL with errno.
 */
struct jvm_memory;
typedef struct jvm_memory *(*jvm_memory_reader_fn)(void *ctx);
struct jvm_procs *jvm_procs__new(int map_fd, jvm_memory_reader_fn reader, void *ctx);
void jvm_procs__free(struct jvm_procs *jp);

/* Worker side: looks for libjvm.so in pid's executable mappings and, when found, reads
 * its layout and writes its record in the map (or keeps why not). */
void jvm_procs__add_process(struct jvm_procs *jp, int pid, const struct unwinding_mapping *maps,
			    size_t n);
/* pid exited or exec'd: its record goes from the map (its names stay until the end). */
void jvm_procs__remove_process(struct jvm_procs *jp, int pid);

/* Sampling side: the name of the Method at method in pid ("com.acme.Invoices.computeTotals")
 * into buf (JVM_MAX_METHOD_NAME bytes), and where it comes from, unless file is NULL: its
 * source file into file (JVM_MAX_SOURCE_FILE bytes, "com/acme/Invoices.java"), the line
 * of bytecode index bci into *line (its first line when bci < 0) and its first line into
 * *first ("" and 0 when not read: the name is had without them). 0, -ENOENT (pid's
 * layout is not known), or the reader's error (-EFAULT: the process is gone or the
 * pointer is not a Method). */
int jvm_procs__method_name(struct jvm_procs *jp, int pid, uint64_t method, int32_t bci,
			   char *buf, char *file, int32_t *line, int32_t *first);

/* Sampling side: the methods a Java frame's word (bpf/jvm_records.h) of pid runs,
 * innermost first, each with its bytecode index (< 0: not known): a compiled frame's
 * inlined methods from its nmethod's scopes, an interpreted frame's method at its bcp,
 * a 'J' word's method alone. At most max into out; *n set. 0, -ENOENT (pid's layout is
 * not known), or the reader's error. */
struct jvm_scope;
int jvm_procs__frame_scopes(struct jvm_procs *jp, int pid, uint64_t word, struct jvm_scope *out,
			    unsigned max, unsigned *n);

/* Pages the reader has read so far (0 before the first JVM). */
uint64_t jvm_procs__memory_reads(struct jvm_procs *jp);

/* JVMs whose Java frames are walked, and those refused. */
uint32_t jvm_procs__count(struct jvm_procs *jp, uint32_t *refused);

/* Each refused JVM into p's binaries not read: its libjvm.so, "process PID: why".
 * 0 or -ENOMEM. */
int jvm_procs__refusals(struct jvm_procs *jp, struct profile *p);

#endif
