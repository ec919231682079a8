/* SPDX-License-Identifier: MIT */
/*
 * The agent's spool (DATA/spool): finished captures, each one encoded Batch in a file of
 * its own, kept until the workspace has replied to it (docs/protocol.md, Delivering a
 * capture). A batch is named by (boot id, sequence); sequence numbers are handed out
 * from a state file, written before a number is used, so none is reused across
 * restarts. Every file is written whole (a temporary, fsync, rename): a crash leaves
 * the spool as it was or with the whole new file, and a leftover temporary is ignored
 * (and removed when the spool is opened).
 *
 * The spool is capped in bytes and in age; past a cap the oldest batches are dropped,
 * and the drops counted in the state file until a batch reports them (spool_dropped).
 * Safe to use from several threads.
 */
#ifndef SLIDEOPS_AGENT_SPOOL_H
#define SLIDEOPS_AGENT_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_DEFAULT_MAX_BYTES (256ULL << 20)
#define SPOOL_DEFAULT_MAX_AGE_S (7ULL * 24 * 3600)
#define SPOOL_NAME_MAX 128

struct spool_limits {
	uint64_t max_bytes;      /* all batches together; 0: the default */
	uint64_t max_age_s;      /* a batch older than this is dropped; 0: the default */
	/* Told of every batch dropped (why: "bytes", "age", "refused"). May be NULL. */
	void (*dropped)(void *ctx, const char *name, const char *why);
	/* The drops an encoded batch reports (0 when it cannot tell): when that batch is
	 * dropped in its turn they are counted again, for the next batch to report. May be
	 * NULL (then they are lost with it). */
	uint64_t (*carried)(void *ctx, const void *data, size_t len);
	void *ctx;
};

struct spool;

/* Opens (creating, mode 0700) the spool directory dir for this boot. NULL with errno. */
struct spool *spool__open(const char *dir, const struct spool_limits *limits,
			  const char *boot_id);
void spool__close(struct spool *sp);

/* The next sequence number of this boot, kept on disk before it is returned; and the
 * drops not yet reported, for the batch that will carry that number. 0 or -errno. */
int spool__reserve(struct spool *sp, uint64_t *sequence, uint64_t *dropped);

/* Keeps data (an encoded Batch with that sequence, reporting `reported` drops) whole,
 * then enforces the caps, dropping the oldest others first (a batch alone over the byte
 * cap is kept: it is the newest). The reported drops are then no longer counted.
 * 0 or -errno (nothing is kept). */
int spool__put(struct spool *sp, uint64_t sequence, const void *data, size_t len,
	       uint64_t reported);

/* The oldest batch waiting (after dropping those past the age cap): its file name and
 * contents (malloc'd). 0, -ENOENT when none waits, or -errno. */
int spool__oldest(struct spool *sp, char name[SPOOL_NAME_MAX], void **data, size_t *len);

/* The workspace replied to the batch in file name: it is gone from the spool. */
int spool__remove(struct spool *sp, const char *name);

/* Drops batch name without delivery (the workspace refuses it for good); counted. */
int spool__drop(struct spool *sp, const char *name);

/* Batches waiting, their bytes, and drops not yet reported. */
void spool__stats(struct spool *sp, size_t *batches, uint64_t *bytes, uint64_t *dropped);

/* Deletes every batch and the state (the server was removed). 0 or -errno. */
int spool__destroy(struct spool *sp);

#endif
