/* SPDX-License-Identifier: MIT */
/*
 * What the capture's process files share: the process table's entries and the steps
 * one file takes and another calls.
 *   processes.c         the table, its lifetime, and the records that reach it
 *   processes_facts.c   what a process is: its labels, binaries and mappings
 *   processes_frames.c  a sample's frames, with what runtimes ran, into the profile
 */
#ifndef SLIDEOPS_CAPTURE_PROCESSES_INTERNAL_H
#define SLIDEOPS_CAPTURE_PROCESSES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/maps.h"
#include "capture/processes.h"
#include "profile/profile.h"

struct proc_info;

/* The frames that stand for what a runtime ran (Python functions, JIT code). */
#define PYTHON_UNKNOWN_FRAME "[unknown Python function]"
#define JAVA_FRAME "[Java]"
#define JAVASCRIPT_FRAME "[JavaScript]"

/* A mapping that was not there when last read is looked for again (dlopen), but not
 * more often than this per process. */
#define MAPS_REREAD_NS 200000000LL

struct pending {
	void *record;
	size_t size;
};

struct process {
	int tgid;
	bool alive;    /* false: exited or exec'd; a new entry takes its pid */
	bool exited;   /* ended by its exit record (not replaced by an exec) */
	bool facts;    /* labels are set */
	bool maps_ok;  /* maps hold the process's mappings (kernel threads: none needed) */
	bool unsampled; /* read ahead (processes__read_all), no sample of it yet */
	bool javascript; /* a node: counted in stats.javascript_processes */
	int64_t maps_read_ns;
	struct vma_list maps;
	struct prof_labels labels; /* tid and thread are the sample's */
	struct pending *pending;
	size_t npending, cap_pending;
};

struct processes {
	struct profile *p;
	struct owner_resolver *owners;
	struct binaries *binaries;
	struct cgroups *cgroups;
	struct unwinding *unwinding;
	struct python_procs *python;
	struct python_code_cache *codes; /* names of the code objects BPF sent */
	struct jvm_procs *jvm;           /* names Java frames' Method*s; NULL: no JVMs */
	struct v8_procs *v8;             /* names JavaScript frames' JSFunctions; NULL: none */
	/* Each runtime frame met so far, named once (processes_frames.c): a JavaScript
	 * frame's (process, JSFunction) and a Java method's (process, Method*, bci), each
	 * with its location; a Java frame's (process, word), with its count of locations
	 * from location in java_frame_locs (innermost first). */
	struct java_method {
		uint64_t key;
		uint32_t tgid;
		int32_t at;	   /* a JSFunction's, a word's, or the bci (processes_frames.c) */
		uint64_t fn;	   /* a JavaScript place's JSFunction (its PC is key) */
		uint32_t location; /* its location, or a word's first in java_frame_locs */
		uint32_t count;	   /* a word's locations */
	} *java_methods;
	uint32_t njava_methods, cap_java_methods;
	struct hashmap *java_index;
	uint32_t *java_frame_locs;
	uint32_t njava_frame_locs, cap_java_frame_locs;
	const char *proc_root;
	int64_t default_values[RECORD_MAX_VALUES];
	uint32_t state_ids[4];   /* string ids of "", "running", "waiting", "idle" */
	uint32_t lock_kind_ids[PROCESSES_MAX_LOCK_KINDS]; /* string ids of the question's kinds */
	uint32_t nlock_kinds;
	long page_size;
	long ticks_per_s;

	struct process **items;
	uint32_t n, cap;
	struct hashmap *index; /* tgid -> live entry */

	uint32_t kernel_mapping, anon_mapping, unknown_mapping, truncated_mapping;
	uint32_t truncated_location;
	uint32_t python_mapping, java_mapping, javascript_mapping;
	uint32_t java_location, javascript_location;
	struct processes_stats stats;
};

int process__set_facts(struct processes *ps, struct process *proc,
		       const struct proc_info *info);
/* Reads the process's mappings from /proc (again, if a frame fell outside them). */
int process__read_maps(struct processes *ps, struct process *proc);
int process__sync(struct processes *ps, struct process *proc, bool kthread);
int processes__emit(struct processes *ps, struct process *proc, const struct stack_sample *s);
/* Keeps a sample's record until its process is known. */
int process__keep(struct process *proc, const struct stack_sample *s, size_t size);
int process__flush(struct processes *ps, struct process *proc);

#endif
