/* SPDX-License-Identifier: MIT */
/*
 * The binaries a capture met, each once however many processes map it, keyed by the
 * file's identity (device, inode). Each keeps an open descriptor from the moment it is
 * first seen, so it can still be read when the capture ends, after the processes that
 * mapped it (and their /proc entries) are gone. Nothing of its contents is read while
 * sampling: a binary any user can write must never stall a capture. binaries__read reads
 * them afterwards, each within caps: its ELF facts (build id, segments: every sampled
 * file offset becomes an ELF address) and, where the caller keeps none for its build,
 * its symbol table.
 */
#ifndef SLIDEOPS_CAPTURE_BINARIES_H
#define SLIDEOPS_CAPTURE_BINARIES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf/elf_file.h"
#include "profile/profile.h"

struct elf_facts;
struct line_table;
struct lines_caps;
struct packages;
struct symtab;

struct binary {
	dev_t dev;
	uint64_t ino;
	int fd;              /* -1 when it could not be opened (or not yet copied) */
	bool fd_borrowed;    /* fd is guarded's copy, closed with it */
	char *path;          /* as the first process that mapped it saw it */
	/* On a mount that may not answer: the read of its copy, and the mount in words
	 * ("nfs4 at /srv/app") for the reason it was not read. NULL otherwise. */
	struct guarded_file *guarded;
	char *mount;
	bool read;           /* binaries__read has been at it */
	bool elf_ok;         /* info was read (by binaries__read) */
	struct elf_info info;
	enum mapping_kind kind;
	uint32_t mapping;    /* index in the profile, UINT32_MAX until a frame falls in it */
};

struct binaries;

struct binaries *binaries__new(void);
void binaries__free(struct binaries *b);

struct binary *binaries__find(struct binaries *b, dev_t dev, uint64_t ino);

/*
 * The binary mapped at [start, end) of process pid under path, opened (through
 * /proc/PID/map_files, else /proc/PID/root/PATH) when new. Never NULL unless out of
 * memory: a file that cannot be opened is remembered without its ELF facts.
 */
struct binary *binaries__get(struct binaries *b, int pid, uint64_t start, uint64_t end,
			     dev_t dev, uint64_t ino, const char *path, bool is_exe);

/*
 * bin's descriptor to read: its own, or the copy of its guarded read, waited for until
 * deadline_ns (CLOCK_MONOTONIC, 0: none) or *cancel. -1 with *err set (-EBADF: never
 * opened; a guarded read's outcome, capture/guarded_read.h) when there is none.
 */
int binary__fd(struct binary *bin, const atomic_bool *cancel, int64_t deadline_ns, int *err);

/* A binary at a path of our own mount namespace, used only when its identity is
 * (dev, ino): a process that exited before we read it. NULL when it is not that file. */
struct binary *binaries__get_by_path(struct binaries *b, dev_t dev, uint64_t ino,
				     const char *path, bool is_exe);

/* The [vdso] of this kernel (the same image in every process), read from our own. */
struct binary *binaries__vdso(struct binaries *b);

/* bin's mapping in p, added when first needed: its path, its identity and where the
 * first process that sampled it had it mapped ([start, limit) at file offset offset),
 * until binaries__read fills in the rest. UINT32_MAX on ENOMEM. */
uint32_t binary__mapping(struct binary *bin, struct profile *p, uint64_t start, uint64_t limit,
			 uint64_t offset);

/* What reading the binaries of one capture may cost. */
struct binaries_budget {
	/* CPU time of the reading thread, each with a backstop of wall time
	 * CLOCK_BUDGET_WALL_FACTOR times as long (util/clock.h): a loaded server that makes
	 * the read wait does not leave names unread. */
	uint64_t total_ns;        /* all binaries; past it the rest are not read */
	uint64_t per_binary_ns;
	uint64_t bytes;           /* read of one binary */
	uint32_t sections;        /* section headers of one binary */
	uint64_t symbols;         /* entries of one symbol table */
};

/* 4 s of CPU time in all, 1 s and 512 MB a binary, 16384 sections, 8M symbols: a
 * server's largest real binaries (a browser, a database with debug symbols) fit well
 * within them. */
extern const struct binaries_budget binaries_budget_default;

/* The default, with its times multiplied by SLIDEOPS_READ_TIME_FACTOR (1-100) when set:
 * for machines whose every instruction is slow, such as a kernel emulated without
 * hardware virtualisation (tests/kernels/, docs/kernel.md). */
const struct binaries_budget *binaries_budget__in_force(void);

/* A binary's own symbol table, read by this capture, for the caller to keep. */
struct binary_symbols {
	char build_id[BUILD_ID_HEX_MAX + 1];
	bool from_symtab;         /* .symtab; false: .dynsym */
	struct symtab *tab;
};

/* The source lines of a build's sampled addresses (libdw), for the caller to keep. */
struct binary_lines {
	char build_id[BUILD_ID_HEX_MAX + 1];
	struct line_table *table;
};

/* What binaries__read read, for the caller to keep by build id. */
struct binaries_read_result {
	struct binary_symbols *symbols;
	size_t nsymbols;
	struct binary_lines *lines;
	size_t nlines;
};

void binary_symbols__free(struct binary_symbols *s, size_t n);
void binaries_read_result__release(struct binaries_read_result *r);

struct binaries_read_options {
	const struct binaries_budget *budget; /* NULL: binaries_budget__in_force() */
	/* 1 when a table of this build is kept already (its symbols are not read again);
	 * NULL: none is. */
	int (*has_symbols)(void *ctx, const char *build_id);
	void *ctx;
	/* 1 when the build's .dynsym is kept already and a read would give it again (a
	 * resident profiler's memory, capture/profiler.h): a binary of the build without a
	 * .symtab is not read again; one with its own (the same build unstripped) still is.
	 * NULL: none is. */
	int (*dynsym_kept)(void *ctx, const char *build_id);
	void *dynsym_ctx;
	/* Source lines the caller has looked up already (a resident profiler's memory,
	 * capture/profiler.h): lines_known takes them out of addrs[0..*n) (sorted; *n
	 * shrinks), lines_looked_up hears of the addresses a read looked up. NULL: every
	 * sampled address is looked up. */
	void (*lines_known)(void *ctx, const char *build_id, uint64_t *addrs, size_t *n);
	void (*lines_looked_up)(void *ctx, const char *build_id, const uint64_t *addrs,
				size_t n);
	/* Reads lines as lines__read does, from the binary's own DWARF or (debug_file) its
	 * installed debug file, fd open on it; a resident profiler keeps the files' DWARF
	 * open across captures. NULL: lines__read. */
	int (*read_lines)(void *ctx, const char *build_id, bool debug_file, int fd,
			  const uint64_t *addrs, size_t n, const struct lines_caps *caps,
			  struct line_table **out);
	void *lines_ctx;
	/* Which files the distribution installed (proc/packages.h), kept by the caller
	 * across reads; NULL: read for this read alone. */
	struct packages *packages;
	/* The ELF facts of files read before, kept by the caller across reads
	 * (capture/elf_facts.h); NULL: each file's are read. */
	struct elf_facts *facts;
	/* After each binary: done of total. May be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

/*
 * After sampling, for every binary with frames in p: reads its ELF facts and fills in
 * its mapping (build id, language, whether it has .symtab), turns its frames' file
 * offsets into ELF addresses, reads its symbol table (.symtab, else .dynsym) into
 * out->symbols when it has a build id the caller keeps nothing for, and the source lines
 * of its sampled addresses (from its DWARF, or its installed debug file's) into
 * out->lines. A binary without a build id can be named by nothing later, so its frames
 * get their names now. A binary over a cap, or that cannot be read, is listed in p's
 * header as not read, with the reason. 0 or -ENOMEM.
 */
int binaries__read(struct binaries *b, struct profile *p, const struct binaries_read_options *o,
		   struct binaries_read_result *out);

#endif
