/* SPDX-License-Identifier: MIT */
/*
 * The binaries a capture met, each once however many processes map it, keyed by the
 * file's identity (device, inode). Each keeps an open descriptor from the moment it is
 * first seen, so it can still be read when the capture ends, after the processes that
 * mapped it (and their /proc entries) are gone. Its ELF facts (build id, segments) are
 * read on first sight: they turn every sampled file offset into an ELF address.
 */
#ifndef SLIDEOPS_CAPTURE_BINARIES_H
#define SLIDEOPS_CAPTURE_BINARIES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf/elf_file.h"
#include "profile/profile.h"

struct store;

struct binary {
	dev_t dev;
	uint64_t ino;
	int fd;              /* -1 when it could not be opened */
	char *path;          /* as the first process that mapped it saw it */
	bool elf_ok;         /* info was read */
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

/* A binary at a path of our own mount namespace, used only when its identity is
 * (dev, ino): a process that exited before we read it. NULL when it is not that file. */
struct binary *binaries__get_by_path(struct binaries *b, dev_t dev, uint64_t ino,
				     const char *path, bool is_exe);

/* The [vdso] of this kernel (the same image in every process), read from our own. */
struct binary *binaries__vdso(struct binaries *b);

/* The ELF address of a file offset in bin, and bin's mapping in p (added when first
 * needed). UINT32_MAX on ENOMEM. */
uint32_t binary__mapping(struct binary *bin, struct profile *p);
uint64_t binary__vaddr(const struct binary *bin, uint64_t file_offset);

/*
 * When the capture ends: for every binary with frames in p, keep its symbol table in the
 * store by build id (.symtab, else .dynsym) unless it is there already; a binary without
 * a build id can be named by nothing later, so its frames get their names now. Returns 0
 * or -ENOMEM; a binary that cannot be read stays unnamed.
 */
int binaries__finish(struct binaries *b, struct profile *p, struct store *store);

#endif
