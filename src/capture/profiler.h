/* SPDX-License-Identifier: MIT */
/*
 * The installed profiler of one machine, resident in a long-running process (`slideops
 * serve` for the machine it runs on, `slideops agent` on a server): a question's BPF
 * object is loaded and verified once, on its first capture, and kept across captures;
 * one question's at a time, since each holds unwind maps of a whole memory plan (a
 * capture of another question unloads it and loads its own).
 * Nothing samples between captures: a capture attaches its programs when it starts and
 * closes every link and perf event when it ends (capture.h's session), so a kept object
 * is programs and maps only. What a capture must start without is reset when the next
 * one takes the object: its ring buffer drained, its counters zeroed, every map of
 * per-thread or per-process state emptied (the programs were detached meanwhile, so
 * what those maps hold is stale). What stays: the unwind tables in the kernel maps, by
 * build id (a process's mappings are loaded again, from those tables, when it is next
 * sampled: a pid may have been reused), and the kernel-symbol program.
 *
 * Everything is owned by this process's file descriptors and nothing is pinned: a
 * process killed in any way leaves no program, map or link of ours behind.
 *
 * One capture at a time: a second one asking while one runs is refused with -EBUSY, as
 * is profiler__remove. Otherwise any thread may call any function.
 */
#ifndef SLIDEOPS_CAPTURE_PROFILER_H
#define SLIDEOPS_CAPTURE_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "util/remove_tree.h"

struct profiler;

/*
 * A profiler whose files live in dir (DATA/profiler: dir/unwind holds the unwind tables
 * by build id). Nothing is loaded until the first capture that uses it (capture.h's
 * capture_config.profiler, pipeline.h's pipeline_options.profiler). NULL with errno.
 */
struct profiler *profiler__new(const char *dir);
/* Its directory, as given. */
const char *profiler__dir(const struct profiler *p);

/* Some question's programs are loaded (a capture installed them, nothing removed them). */
bool profiler__installed(struct profiler *p);
/* A capture of q now would load q's programs first (the first capture of q after a start
 * or a removal): it starts about a second later than one that finds them loaded. */
bool profiler__will_install(struct profiler *p, enum question q);

/*
 * Remove the profiler: unloads every program and map, then removes dir and the capture
 * files next to it (dir/../captures), each tree removed counted in rep (rep->removed:
 * [{"path", "files", "bytes"}], rep->failed: [{"path", "error"}]; the caller releases
 * them with remove_report__release). 0, -EBUSY (a capture runs: nothing was touched), or
 * the first -errno of a removal. The next capture installs it again.
 */
int profiler__remove(struct profiler *p, struct remove_report *rep);
/* Unloads every program and map, keeping the files. -EBUSY while a capture runs. */
int profiler__unload(struct profiler *p);

/*
 * What this process has read of each build and kept, so that the next capture of the
 * same builds does not read them again (a capture's own reading costs more than its
 * sampling). Forgotten by profiler__remove and profiler__unload.
 *
 * Names: build_id's .dynsym was kept by the caller (the workspace) when no debug file
 * was installed for it. profiler__symbols_kept (a binaries_read_options.dynsym_kept,
 * ctx the profiler) is 1 while that still holds: reading a binary of the build without
 * a .symtab again would give the same table, so the caller's copy names it.
 */
void profiler__note_symbols_kept(struct profiler *p, const char *build_id);
int profiler__symbols_kept(void *profiler, const char *build_id);
/*
 * Lines: the addresses of build_id whose source lines were looked up (found or not) by a
 * capture of this process, their rows kept by the caller. profiler__lines_known takes
 * them out of addrs[0..*n) (sorted; *n shrinks, 0: nothing left to read).
 */
void profiler__note_lines_looked_up(void *profiler, const char *build_id,
				    const uint64_t *addrs, size_t n);
void profiler__lines_known(void *profiler, const char *build_id, uint64_t *addrs, size_t *n);

/* Lines as lines__read reads them (a binaries_read_options.read_lines, ctx the
 * profiler), the DWARF of the builds read most recently kept open (a few, within a
 * memory bound): the next capture does not decompress a debug file again. */
struct line_table;
struct lines_caps;
int profiler__read_lines(void *profiler, const char *build_id, bool debug_file, int fd,
			 const uint64_t *addrs, size_t n, const struct lines_caps *caps,
			 struct line_table **out);

/* Which files the distribution installed (proc/packages.h), read once and kept until
 * dpkg's or apt's lists change. For the capture that holds the profiler; NULL on
 * ENOMEM. */
struct packages *profiler__packages(struct profiler *p);

/* The ELF facts of the files its captures read (capture/elf_facts.h), kept while the
 * files stay the same; NULL when memory was refused. */
struct elf_facts;
struct elf_facts *profiler__facts(struct profiler *p);

/* Unloads and frees; no capture may be running. NULL is a no-op. */
void profiler__free(struct profiler *p);

#endif
