/* SPDX-License-Identifier: MIT */
/*
 * The ELF facts of files read before (elf_info: build id, segments, tables), kept by the
 * resident profiler across captures: a machine's binaries are the same from one capture
 * to the next, and reading their facts again (a section scan and a walk of each symbol
 * table up to its first function) is most of what a warm capture would cost: a file of a
 * 1 GB symbol table takes the unwind worker and the reading after sampling half a second
 * each, every capture.
 *
 * A file is known by what changes when it does: device, inode, size, and its times of
 * last change (mtime, and ctime, which the kernel sets on every write and every new file,
 * so an inode number reused by a new file after a delete is another key). Only outcomes
 * that the file alone decides are kept: its facts, not an ELF file, or over a cap on
 * sections, symbols or bytes (the caps are the same for every capture of a process). An
 * outcome of time (a loaded machine), memory or I/O is not: the next capture tries again.
 *
 * Bounded: at most ELF_FACTS_MAX files (~0.8 kB each); past it all are forgotten and read
 * again as they are met. Thread-safe (the unwind worker and the reading both ask).
 */
#ifndef SLIDEOPS_CAPTURE_ELF_FACTS_H
#define SLIDEOPS_CAPTURE_ELF_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elf_file.h"

#define ELF_FACTS_MAX 4096

struct elf_facts;
struct elf_limits;

struct elf_facts *elf_facts__new(void);
void elf_facts__free(struct elf_facts *f);

/* elf_info__read_limited(fd, limits, info), from f when the same file was read before.
 * f NULL: read. */
int elf_facts__read(struct elf_facts *f, int fd, struct elf_limits *limits,
		    struct elf_info *info);
/* elf_info__read_identity (build id and segments; has_symtab and has_dynsym are false
 * unless the file was read whole before), from f the same way. */
int elf_facts__read_identity(struct elf_facts *f, int fd, struct elf_limits *limits,
			     struct elf_info *info);

/* What f did (for tests and the debug line): files read, outcomes given from memory. */
struct elf_facts_stats {
	uint64_t read, remembered;
	uint32_t kept;
};
void elf_facts__stats(struct elf_facts *f, struct elf_facts_stats *out);

#endif
