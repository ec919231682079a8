/* SPDX-License-Identifier: MIT */
/*
 * From the kernel's raw records to profile samples: the processes a capture sampled,
 * each read from /proc on first sight (its facts, owner and executable mappings), and
 * every sampled address turned into (mapping, ELF address).
 *
 * A process can be gone before user space reads it: it then waits, its samples kept
 * aside, for its exit record, which carries the same facts and mappings from the kernel.
 * A process that exec'd is read again. When the capture ends, what still waits is added
 * with what the samples themselves say (name, cgroup).
 */
#ifndef SLIDEOPS_CAPTURE_PROCESSES_H
#define SLIDEOPS_CAPTURE_PROCESSES_H

#include <stddef.h>
#include <stdint.h>

#include "records.h"

struct profile;
struct owner_resolver;
struct binaries;
struct cgroups;
struct unwinding;

struct processes_stats {
	uint64_t samples;        /* added to the profile */
	uint64_t processes;      /* distinct processes sampled */
	uint64_t from_exit;      /* processes known only from their exit record */
	uint64_t unresolved;     /* processes whose facts came from their samples only */
	uint64_t unknown_frames; /* user addresses in no known mapping */
	uint64_t truncated;      /* stacks as deep as the kernel takes them */
	uint64_t java_methods;   /* distinct (process, Method*, bytecode) of Java frames */
	uint64_t java_unnamed;   /* of them (and of words), whose name could not be read */
	uint64_t java_lines;     /* of them, named with their line */
	uint64_t java_inlined;   /* frames of inlined methods read from compiled code */
	uint64_t javascript_processes; /* node processes sampled (their JIT code JavaScript) */
	uint64_t javascript_functions; /* distinct (process, JSFunction) of JavaScript frames */
	uint64_t javascript_unnamed;   /* of them, whose name could not be read: [JavaScript] */
	uint64_t javascript_lines;     /* of them, named with their first line */
	uint64_t javascript_places;    /* distinct (process, JSFunction, PC) of JavaScript frames */
	uint64_t javascript_at_line;   /* frames of them at the line they were at */
	uint64_t javascript_inlined;   /* frames of them TurboFan inlined there */
};

struct processes;

/* kernel_mapping: p's mapping for kernel frames. default_values: what each of a
 * sample's values stands for when the kernel sent 0 (cpu: one tick's period). Frames of
 * binaries get the binary's mapping and their file offset (binaries__read turns it into
 * an ELF address after sampling). */
struct processes *processes__new(struct profile *p, struct owner_resolver *owners,
				 struct binaries *binaries, struct cgroups *cgroups,
				 const char *proc_root, uint32_t kernel_mapping,
				 const int64_t default_values[RECORD_MAX_VALUES]);
void processes__free(struct processes *ps);

/* Where each process's executable mappings go when read (first sample, exec, a mapping
 * met since: dlopen), and its removal when it exits or execs: the unwind worker, which
 * loads their tables off this path. NULL: nowhere. */
void processes__set_unwinding(struct processes *ps, struct unwinding *u);

/* Where the processes running CPython are told (capture/python_procs.h): their samples'
 * Python frames replace the evaluator's native frames. NULL: nowhere. */
struct python_procs;
void processes__set_python(struct processes *ps, struct python_procs *pp);
/* Where the processes running a JVM are named (capture/jvm_procs.h): their samples'
 * Java frames (a tagged Method*, bpf/jvm_records.h) become the methods' names. NULL:
 * each stays one [Java] frame. */
struct jvm_procs;
void processes__set_jvm(struct processes *ps, struct jvm_procs *jp);
/* The same for node processes (capture/v8_procs.h): their JavaScript frames (a tagged
 * JSFunction, bpf/v8_records.h) become the functions' names. NULL: [JavaScript]. */
struct v8_procs;
void processes__set_v8(struct processes *ps, struct v8_procs *vp);
/* A RECORD_PYTHON_CODE record (struct python_code_record): the names of a code object,
 * kept for the samples that follow. 0 or -ENOMEM. */
int processes__python_code(struct processes *ps, const void *data, size_t size);

/*
 * Reads every process running now as on its first sample (facts, mappings, binaries
 * opened, mappings handed to the unwind worker), until deadline_ns (CLOCK_MONOTONIC):
 * a snapshot's samples all arrive at once, and their stacks are only as good as the
 * tables loaded before. Processes already known are left alone. The number of processes
 * the deadline left unread, or -ENOMEM.
 */
int processes__read_all(struct processes *ps, int64_t deadline_ns);

/* One record of each kind, as the ring buffer hands it (size bytes). 0 or -ENOMEM;
 * a record too short to be what it says is ignored. */
int processes__sample(struct processes *ps, const struct stack_sample *s, size_t size);
int processes__exec(struct processes *ps, const struct process_record *e, size_t size);
int processes__exit(struct processes *ps, const struct process_record *e, size_t size);

#define PROCESSES_MAX_LOCK_KINDS 16

/* The names of a sample's lock_kind values (the question's own kinds; NULL or index 0:
 * no label). 0 or -ENOMEM. */
int processes__set_lock_kinds(struct processes *ps, const char *const *names, uint32_t n);

/* Adds the samples still waiting. 0 or -ENOMEM. */
int processes__finish(struct processes *ps);

const struct processes_stats *processes__stats(const struct processes *ps);

/* Where processes are read from ("/proc"), and the owner of a process read there, as its
 * samples' group labels have it. */
struct proc_info;
struct owner;
const char *processes__proc_root(const struct processes *ps);
void processes__owner(struct processes *ps, const struct proc_info *info, struct owner *out);

#endif
