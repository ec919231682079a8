/* SPDX-License-Identifier: MIT */
/*
 * Unwind tables: what the BPF walker (bpf/unwind_walk.h) needs to unwind x86_64 code
 * built without frame pointers, made from a binary's .eh_frame (or its .debug_frame when
 * that is all it has). One table per build id, built once off the sampling path, kept on
 * disk, shared by every process that maps the binary, loaded into BPF maps.
 *
 * A table is a sorted array of 8-byte rows (struct unwind_row): from row.pc (relative to
 * the table's base, an ELF virtual address) to the next row's pc, the CFA is rsp+off,
 * rbp+off, the PLT expression, or "end of stack", and the caller's rbp is unchanged or
 * saved at CFA+off. Gaps between functions are UNWIND_CFA_NONE rows, where the walker
 * falls back to frame pointers; the last row is always one.
 *
 * How the engine uses this layer (the whole interface):
 *
 *   1. Off the sampling path, for each binary it reads (fd open on the file, its build id
 *      from elf_info__read):
 *
 *        struct unwind_table *t;
 *        enum unwind_not_read why;
 *        int err = unwind_table__get(dir, build_id, fd, &caps, &t, &why);
 *
 *      dir is the profiler's own directory for tables (e.g. DATA/profiler/unwind); the
 *      table is read from dir/BUILD_ID when a sound copy is there, else built from fd
 *      within caps (unwind_caps__default) and written there atomically. A damaged file is
 *      rebuilt, never trusted. err == 0: t is the table. err == -ENOENT or -ENOEXEC and
 *      why != UNWIND_READ: no table for this binary ("not read: why",
 *      unwind_not_read__str), and its frames fall back to frame pointers.
 *
 *   2. Before loading the BPF object: unwind_maps__plan(budget_bytes, &plan) gives the
 *      max_entries of the three maps (bpf_map__set_max_entries), so that the tables'
 *      memory stays under budget_bytes whatever is loaded.
 *
 *   3. After loading: m = unwind_maps__new(&plan, rows_fd, tables_fd, procs_fd); then
 *      for each process (at start and when its mappings change):
 *
 *        unwind_maps__add_process(m, pid, maps, nmaps)
 *
 *      with its executable file mappings (struct unwind_mapping: address range, file
 *      offset, the binary's table or NULL). Tables are copied into the rows map once per
 *      build id and counted against the budget; when one does not fit, the least
 *      recently used tables that no live process maps are evicted, and when that is not
 *      enough the process's frames in that binary use frame pointers. unwind_maps__
 *      remove_process(m, pid) when a process exits; unwind_maps__stats for `check`.
 *
 *   4. The BPF side includes bpf/unwind_user.h (the maps of bpf/unwind_maps.h, the
 *      walker of bpf/unwind_walk.h, one frame per call of a global function over a walk
 *      state kept in a map value: docs/kernel.md, "The walker and the verifier's
 *      budget"). The engine's bpf/stack.h keeps a struct unwind_walk beside each sample
 *      in its per-CPU slot and calls
 *
 *        n = unwind_user_walk_current(&slot->walk, (struct unwind_pcs *)sample->ips,
 *                                     proc, &regs, klen, RECORD_MAX_STACK);
 *
 *      (unwind_user_walk_task with a task pointer in sleepable programs, reading with
 *      bpf_copy_from_user_task); walk.reason is the enum unwind_stop, and
 *      !unwind_stop__is_clean(reason) means a [truncated] stack. Programs of their own
 *      (bpf/unwind_check.bpf.c) do the same over their own per-CPU scratch map and count
 *      walks per reason in unwind_stops.
 */
#ifndef SLIDEOPS_UNWIND_UNWIND_H
#define SLIDEOPS_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_walk.h"

/* Per-binary caps: a table that would need more is not read (and says why). */
struct unwind_caps {
	uint64_t max_bytes;  /* of .eh_frame / .debug_frame read */
	uint32_t max_fdes;
	uint32_t max_rows;   /* rows in the finished table */
	uint32_t max_ms;     /* CPU time spent building (util/clock.h's budget) */
};

/* 64 MB of frame data, a million functions, 4 million rows (32 MB), 5 s. Debian's
 * libc has 3,713 FDEs and ~24k rows, python3.11 10,221 and ~60k. */
void unwind_caps__default(struct unwind_caps *caps);

/* Why a binary has no table. */
enum unwind_not_read {
	UNWIND_READ = 0,            /* it has one */
	UNWIND_NOT_ELF,             /* not a whole, readable ELF file */
	UNWIND_NOT_X86_64,          /* another machine: the walker is x86_64 only */
	UNWIND_NO_FRAME_INFO,       /* neither .eh_frame nor .debug_frame */
	UNWIND_TOO_BIG,             /* frame data over max_bytes */
	UNWIND_TOO_MANY_FDES,       /* over max_fdes */
	UNWIND_TOO_MANY_ROWS,       /* over max_rows */
	UNWIND_TOO_SLOW,            /* over max_ms */
	UNWIND_MALFORMED,           /* frame data that does not parse */
	UNWIND_TEXT_TOO_LARGE,      /* code spans more than 4 GB: rows hold 32-bit pcs */
	UNWIND_NO_MEMORY,
	UNWIND_IO_ERROR,
	UNWIND_NOT_READ_COUNT,
};

/* The reason as words, for "not read: REASON" (from messages.def). */
const char *unwind_not_read__str(enum unwind_not_read why);

struct unwind_table {
	uint64_t base;           /* ELF virtual address of row pc 0 */
	uint32_t nrows;
	struct unwind_row *rows; /* sorted by pc, strictly increasing; last is CFA_NONE */
	uint32_t nfdes;          /* FDEs read (for reports) */
	uint32_t nskipped;       /* FDEs left out: encodings we do not read, empty ranges */
	bool from_debug_frame;   /* .eh_frame was absent */
};

/*
 * Builds the table of the ELF file fd within caps (NULL: the defaults). 0 and *out, or
 * -ENOENT (no frame information), -ENOEXEC (not usable: see *why), -E2BIG (a cap),
 * -ENOMEM, -errno of a read; *why says which in every case.
 */
int unwind_table__build(int fd, const struct unwind_caps *caps, struct unwind_table **out,
			enum unwind_not_read *why);

/* The same, from the bytes of a frame section (for the fuzz target and tests): data is
 * .eh_frame at ELF address vaddr, or .debug_frame when debug_frame is true. */
int unwind_table__from_section(const void *data, size_t len, uint64_t vaddr, bool debug_frame,
			       const struct unwind_caps *caps, struct unwind_table **out,
			       enum unwind_not_read *why);

void unwind_table__free(struct unwind_table *t);

/* The row covering ELF address vaddr, or NULL (before the first row / past the last). */
const struct unwind_row *unwind_table__lookup(const struct unwind_table *t, uint64_t vaddr);

/* Checks the invariants every table keeps (sorted, kinds known, ends with NONE): true
 * when t could have been built by unwind_table__build. Used on everything read back. */
bool unwind_table__valid(const struct unwind_table *t);

/*
 * The on-disk form: a 48-byte header (magic, version, build id, counts, checksum) and the
 * rows, little-endian as in memory (x86_64 only). serialize mallocs *blob.
 * deserialize checks everything and returns NULL with errno EBADMSG otherwise.
 */
int unwind_table__serialize(const struct unwind_table *t, const char *build_id, void **blob,
			    size_t *len);
struct unwind_table *unwind_table__deserialize(const void *blob, size_t len,
					       const char *build_id);

/* dir/BUILD_ID written atomically (dir is created when missing). 0 or -errno. */
int unwind_table__save(const struct unwind_table *t, const char *dir, const char *build_id);
/* Reads dir/BUILD_ID back: 0 and *out, -ENOENT (none), -EBADMSG (damaged), -errno. */
int unwind_table__load(const char *dir, const char *build_id, struct unwind_table **out);

/*
 * The cached table of build_id, or a new one built from fd and saved (a damaged cache
 * file is replaced). Returns as unwind_table__build; a failure to save is not an error
 * (the table is still returned). build_id must be 2-128 lowercase hex digits. A refusal
 * that the same file and caps would always give (no frame information, a size cap,
 * malformed, ...) is remembered as dir/BUILD_ID.none and returned without reading fd
 * again, until the caps change.
 */
int unwind_table__get(const char *dir, const char *build_id, int fd,
		      const struct unwind_caps *caps, struct unwind_table **out,
		      enum unwind_not_read *why);

/* ---- the BPF maps (bpf/unwind_maps.h), filled from tables: maps.c ---- */

/* Map sizes for a memory budget: max_entries of unwind_rows and unwind_procs. */
struct unwind_maps_plan {
	uint64_t budget;  /* bytes, as asked */
	uint32_t rows;    /* unwind_rows max_entries */
	uint32_t procs;   /* unwind_procs max_entries */
};

/* At least 1 MB. procs is 1024 processes, or fewer for a small budget (each costs
 * 2 KB); the rest is rows. 0 or -EINVAL. */
int unwind_maps__plan(uint64_t budget, struct unwind_maps_plan *plan);

/* One executable mapping of a process, as the loader wants it. */
struct unwind_mapping {
	uint64_t start, end;            /* [start, end) in the process */
	uint64_t vaddr;                 /* the ELF address at start (elf_info__offset_to_vaddr
					   of the mapping's file offset) */
	const char *build_id;           /* "" or NULL: frame pointers in this mapping */
	/* NULL: frame pointers here, unless build_id's table is loaded already
	 * (unwind_maps__loaded; a resident profiler's maps keep tables across captures) */
	const struct unwind_table *table;
};

struct unwind_maps_stats {
	uint64_t budget, used;  /* bytes of rows in use, of the rows' share of the budget */
	uint32_t tables, processes;
	uint32_t evictions;     /* tables evicted to make room */
	uint32_t over_budget;   /* mappings left to frame pointers: no room even so */
	/* Mappings with a table left to frame pointers because their process had more than
	 * maps_limit (UNWIND_MAX_PROC_MAPS), and the processes that had them. */
	uint32_t maps_dropped, procs_dropping, maps_limit;
};

struct unwind_maps;

/* Takes the fds of the three maps loaded with plan's sizes (not owned). NULL, errno. */
struct unwind_maps *unwind_maps__new(const struct unwind_maps_plan *plan, int rows_fd,
				     int tables_fd, int procs_fd);
void unwind_maps__free(struct unwind_maps *m);

/*
 * Sets pid's mappings (replacing what it had): each table not yet loaded is copied into
 * unwind_rows (least recently used unmapped tables are evicted when it does not fit; a
 * table that still does not fit leaves its mapping to frame pointers), then pid's sorted
 * mappings are written. Only the first UNWIND_MAX_PROC_MAPS mappings with a table are
 * kept; the others are counted (unwind_maps_stats.maps_dropped). 0, or -errno of a map
 * update.
 */
int unwind_maps__add_process(struct unwind_maps *m, uint32_t pid,
			     const struct unwind_mapping *maps, size_t n);
/* Forgets pid: its tables may be evicted from now on. 0 or -ENOENT. */
int unwind_maps__remove_process(struct unwind_maps *m, uint32_t pid);
/* build_id's table is in the maps: a mapping of it needs no struct unwind_table. */
bool unwind_maps__loaded(const struct unwind_maps *m, const char *build_id);
/* Forgets every process (a resident profiler's next capture: a pid may be another
 * process by then); the tables stay loaded, found again by build id. 0 or the first
 * -errno of a map delete (all are forgotten anyway). */
int unwind_maps__forget_processes(struct unwind_maps *m);
void unwind_maps__stats(const struct unwind_maps *m, struct unwind_maps_stats *stats);

#endif
