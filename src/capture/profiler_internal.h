/* SPDX-License-Identifier: MIT */
/* What profiler.c (the loaded objects) and profiler_kept.c (what captures read, kept)
 * share: the profiler itself. */
#ifndef SLIDEOPS_CAPTURE_PROFILER_INTERNAL_H
#define SLIDEOPS_CAPTURE_PROFILER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "capture/capture_internal.h"
#include "capture/profiler.h"
#include "elf/build_id.h"
#include "unwind/unwind.h"

struct lines_dwarf;
struct packages;
struct ksym_bpf;
struct elf_facts;

/* Addresses whose lines are remembered, of every build (8 bytes each): past it, all are
 * forgotten and remembered again from the next capture on. */
#define MEMO_ADDRS_MAX (1u << 20)
/* DWARF kept open: files whose opening cost DWARF_KEPT_OPEN_NS of CPU or more (a
 * debug file's compressed sections: Debian's libc takes ~20 ms; a file with plain
 * sections is only mapped), this many, at most DWARF_KEPT_BYTES of them together (open,
 * a compressed file takes a few times its size), none larger than DWARF_KEPT_FILE_MAX. */
#define DWARF_KEPT 8
#define DWARF_KEPT_OPEN_NS 2000000
#define DWARF_KEPT_BYTES (24ull << 20)
#define DWARF_KEPT_FILE_MAX (16ull << 20)

struct resident {
	bool loaded;
	struct bpf_loaded bpf;
	size_t ringbuf_size;
	struct unwind_maps_plan plan;
	struct unwind_maps *maps;      /* NULL: the object has no unwind maps */
	struct bpf_map_info *info;     /* per map of bpf, as the kernel has it */
};

/* What was read of one build and kept (profiler__note_*). */
struct build_memo {
	char build_id[BUILD_ID_HEX_MAX + 1];
	bool symbols_kept;             /* its .dynsym, with no debug file installed */
	uint64_t *addrs;               /* lines looked up, sorted */
	size_t naddrs, cap_addrs;
};

struct profiler {
	char *dir, *unwind_dir, *captures_dir;
	pthread_mutex_t lock;
	/* By build id, sorted; under memo_lock (a capture's reading, Remove). */
	pthread_mutex_t memo_lock;
	struct build_memo *memos;
	size_t nmemos, cap_memos;
	size_t memo_addrs;             /* of every build: at most MEMO_ADDRS_MAX */
	bool busy;                     /* a capture holds it */
	struct resident q[QUESTION__COUNT];
	struct ksym_bpf *ksym;
	/* The JVM memory reader (capture/jvm_memory.h), loaded on a capture's first JVM
	 * need and kept with the questions' programs; its pages are forgotten per capture. */
	struct jvm_memory *jvm_memory;
	bool jvm_memory_failed;
	bool ksym_failed;              /* the program cannot run here: not tried again */
	struct packages *packages;     /* under memo_lock */
	struct elf_facts *facts;       /* binaries' ELF facts (its own lock); NULL: ENOMEM */
	struct dwarf_kept {
		char build_id[BUILD_ID_HEX_MAX + 1];
		bool debug_file;
		struct lines_dwarf *d;
		uint64_t last_used;
	} dwarf[DWARF_KEPT];           /* under memo_lock */
	uint64_t dwarf_clock;
	struct timespec packages_seen[3]; /* when dpkg's and apt's lists last changed */
};

/* Forgets what captures read and kept (profiler_kept.c): Remove, and unloading. */
void profiler__forget_builds(struct profiler *p);

#endif
