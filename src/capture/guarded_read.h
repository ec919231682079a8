/* SPDX-License-Identifier: MIT */
/*
 * Files on mounts that can block without end (proc/mounts.h: NFS, CIFS, 9p, Ceph, FUSE),
 * opened and read only in a process of their own, which the capture can abandon. An
 * open, a stat or a read of such a file whose server stopped answering waits in the
 * kernel, where no signal ends it: in the capture's own process that wait would be the
 * capture's (a thread joined, a lock held), and a resident profiler's for good.
 *
 * A guarded read starts a reader (this binary again, `slideops __read-guard`, with no
 * descriptor of ours but its socket) that opens the file, checks it is the one asked for
 * (device and inode), copies it into a sealed memory file and hands that back; callers
 * read the copy with their ordinary readers, which never block. The reader says it is
 * alive as it goes; one that has said nothing for GUARDED_READ_ANSWER_S seconds is
 * abandoned: sent SIGKILL (which ends a wait on NFS, not one on a FUSE daemon), never
 * waited for. While it stays stuck, no other read of a file of its device is started, by
 * this capture or a later one in the same process: each gets the same answer at once.
 *
 * Process-wide and thread-safe: the sampling thread starts reads, the unwind worker and
 * the reading after sampling wait for them, captures one after another share the record
 * of what is stuck.
 */
#ifndef SLIDEOPS_CAPTURE_GUARDED_READ_H
#define SLIDEOPS_CAPTURE_GUARDED_READ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A reader that says nothing for this long is abandoned: its file system did not
 * answer. Both times are multiplied by SLIDEOPS_READ_TIME_FACTOR (util/time_factor.h). */
#define GUARDED_READ_ANSWER_S 2
/* The time a reader has to start and say so (exec and dynamic loading, on a loaded
 * machine). */
#define GUARDED_READ_START_S 5
/* A file larger than this is not copied (its memory is the caller's until the capture
 * ends), nor one that would take the copies held at once past GUARDED_READ_TOTAL_MAX. */
#define GUARDED_READ_FILE_MAX (256ull << 20)
#define GUARDED_READ_TOTAL_MAX (512ull << 20)
/* Readers running at once; more wait their turn. */
#define GUARDED_READ_RUNNING_MAX 8

/* The error of a read whose file system did not answer in time (or whose device has a
 * reader stuck already). */
#define GUARDED_READ_HUNG (-EREMOTEIO)

/* The argument that makes this binary a reader (main() hands it to guarded_read__main). */
#define GUARDED_READ_ARG "__read-guard"

struct guarded_file;

/*
 * Starts reading the file (dev, ino) at the first of paths (at most 2) that opens as that
 * file, in a reader process; never waits for it. NULL only when out of memory. When a
 * reader of a file of dev is stuck, the read fails at once with GUARDED_READ_HUNG.
 */
struct guarded_file *guarded_file__start(dev_t dev, uint64_t ino, const char *const *paths,
					 size_t npaths);

/*
 * Waits for the copy until deadline_ns (CLOCK_MONOTONIC; 0: none) or until *cancel
 * (may be NULL) is set. 0: guarded_file__fd is the copy. -ETIMEDOUT: the deadline or the
 * cancel came first (the read goes on; wait again or close it). GUARDED_READ_HUNG: the
 * file system did not answer; -EFBIG: over the size caps; -ENOENT: no path opened as the
 * file; -ECHILD: the reader failed to start or ended without an answer; -errno otherwise.
 * The outcome stays: waiting again gives it at once.
 */
int guarded_file__wait(struct guarded_file *g, const atomic_bool *cancel, int64_t deadline_ns);

/* The copy (a sealed memory file, owned by g) after guarded_file__wait gave 0; else -1. */
int guarded_file__fd(const struct guarded_file *g);
/* The file's size as the reader found it (0 before). */
uint64_t guarded_file__size(const struct guarded_file *g);

/* Lets the read go: its copy is closed; a reader still running is sent SIGKILL and left
 * to end when its file system lets it (its device counts as stuck while it says
 * nothing). NULL is a no-op. */
void guarded_file__close(struct guarded_file *g);

/* What the process-wide record holds (tests, the debug line). */
struct guarded_read_stats {
	uint32_t started;     /* readers started by this process */
	uint32_t running;     /* alive now, owned or abandoned */
	uint32_t stuck;       /* of them, abandoned as not answering */
	uint64_t copied;      /* bytes of the copies held now */
};
void guarded_read__stats(struct guarded_read_stats *out);

/* Ends what can end: reaps readers that ended, frees abandoned ones that answered.
 * Called by every other entry point too. */
void guarded_read__sweep(void);

/* The reader's side (`slideops __read-guard`, started by a guarded read with its socket
 * and the copy as descriptors 3 and 4): reads one file, then exits. */
_Noreturn void guarded_read__main(void);

#endif
