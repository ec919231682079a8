/* SPDX-License-Identifier: MIT */
/*
 * Unwind tables for the processes a capture samples, made off the sampling path: a worker
 * thread owned by the session reads each new binary's build id (within the engine's
 * per-binary caps), gets its table (from the on-disk cache, else built from .eh_frame and
 * cached) and loads it with the process's mappings into the BPF maps the walker reads
 * (src/unwind/, bpf/unwind_maps.h). The sampling loop only queues work: it never waits
 * for a table, and a process's samples use frame pointers until its tables are in.
 */
#ifndef SLIDEOPS_CAPTURE_UNWINDING_H
#define SLIDEOPS_CAPTURE_UNWINDING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind/unwind.h"

/* 64 MB of kernel memory for tables and process mappings unless asked otherwise. */
#define UNWINDING_BUDGET_DEFAULT (64ull << 20)
/* The smallest budget the maps take (unwind_maps__plan's floor). */
#define UNWINDING_BUDGET_MIN (1ull << 20)

/* One executable file mapping of a process, as the sampling side knows it. fd is the
 * binary's descriptor, open for the whole capture (binaries.h): the worker reads it with
 * pread and never closes it. A binary on a mount that may not answer has none but its
 * guarded read (capture/guarded_read.h), whose copy the worker waits for. */
struct guarded_file;
struct unwinding_mapping {
	uint64_t start, end;
	uint64_t offset;  /* file offset of start */
	dev_t dev;
	uint64_t ino;
	int fd;           /* -1: not opened, frame pointers there */
	struct guarded_file *guarded; /* fd -1: its copy, once read (lives as long as fd) */
	bool copy;        /* fd is a guarded read's copy, not the machine's file */
	const char *path; /* the binary's (binaries.h: lives as long as fd); may be NULL */
};

struct unwinding_stats {
	uint32_t binaries;       /* distinct binaries looked at */
	uint32_t tables;         /* of them, with a table */
	uint32_t cached;         /* tables found in the cache (not built) */
	uint32_t not_read;       /* binaries without a table (no build id, caps, no frame info) */
	uint32_t processes;      /* processes whose mappings were loaded */
	uint64_t build_ns;       /* the worker's time spent reading and building */
	uint64_t load_ns;        /* its time spent writing the BPF maps */
	/* How long processes waited from being queued to having their tables in (those
	 * loaded): the longest, and all together; their stacks were frame pointers meanwhile. */
	uint64_t wait_max_ns, wait_total_ns;
	uint32_t waited;         /* processes counted in wait_total_ns */
	struct unwind_maps_stats maps;
};

struct unwinding;

/* Map sizes for budget bytes (0: the default). 0 or -EINVAL. */
int unwinding__plan(uint64_t budget, struct unwind_maps_plan *plan);

/*
 * Starts the worker over the loaded maps (descriptors not owned). cache_dir: where tables
 * are kept by build id; NULL: built every time, kept nowhere. NULL with errno set.
 */
struct unwinding *unwinding__new(const struct unwind_maps_plan *plan, int rows_fd,
				 int tables_fd, int procs_fd, const char *cache_dir);

/* The same over maps already loaded and kept (a resident profiler's: not owned), whose
 * tables stay in across captures; it must have forgotten its processes. */
struct unwinding *unwinding__new_on(struct unwind_maps *maps, const char *cache_dir);

/* Queues pid's executable mappings (replacing what it had): cheap, never blocks on the
 * worker. 0 or -ENOMEM. */
int unwinding__add_process(struct unwinding *u, int pid, const struct unwinding_mapping *maps,
			   size_t n);
/* Queues pid's removal (it exited or replaced its image). */
int unwinding__remove_process(struct unwinding *u, int pid);

/* Where the worker also looks for interpreters in each process it loads (CPython:
 * capture/python_procs.h), before the first process is queued. NULL: nowhere. */
struct python_procs;
void unwinding__set_python(struct unwinding *u, struct python_procs *pp);
/* The same for JVMs (capture/jvm_procs.h). */
struct jvm_procs;
void unwinding__set_jvm(struct unwinding *u, struct jvm_procs *jp);
/* And for node processes (capture/v8_procs.h). */
struct v8_procs;
void unwinding__set_v8(struct unwinding *u, struct v8_procs *vp);

/* Where the worker takes the ELF facts of binaries read before (a resident profiler's:
 * capture/elf_facts.h), before the first process is queued. NULL: each is read. */
struct elf_facts;
void unwinding__set_facts(struct unwinding *u, struct elf_facts *facts);

/*
 * Waits until the worker has run everything queued (tables loaded, or left to frame
 * pointers by its caps), or until deadline_ns (CLOCK_MONOTONIC): 0, or -ETIMEDOUT with
 * work still under way (it goes on). A snapshot waits so that its one moment has tables.
 */
int unwinding__wait(struct unwinding *u, int64_t deadline_ns);
/* Processes queued whose tables are not in yet (their stacks: frame pointers). */
uint32_t unwinding__pending(const struct unwinding *u);

/* Stops the worker (what is still queued is dropped) and waits for it. Idempotent. */
void unwinding__stop(struct unwinding *u);
/* After unwinding__stop. */
void unwinding__stats(const struct unwinding *u, struct unwinding_stats *stats);
/* Stops the worker if needed and frees. NULL is a no-op. */
void unwinding__free(struct unwinding *u);

#endif
