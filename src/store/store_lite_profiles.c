// SPDX-License-Identifier: MIT
/*
 * Profiles in the SQLite workspace: the index row in workspace.db, the blob a file in
 * DIR/profiles. A blob is written to a temporary file, fsync'd, renamed into place and
 * its directory fsync'd; only then is it indexed, in one transaction. So the index never
 * lists a profile whose blob is not whole: a crash or a full disk before the commit
 * leaves at most an unlisted file, which a later save sweeps away (the pending table
 * names the files a save began, so nothing else is ever deleted).
 *
 * Save, load and delete share that one discipline of blob and index, checked here in
 * one file; reading and annotating the index alone is store_lite_query.c.
 */
#include "store/store_lite.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "profile/pprof.h"
#include "util/clock.h"
#include "util/file.h"

/* A temporary blob older than this was left by a crash, not by a save in progress. */
#define STALE_TMP_SECONDS 3600
#define TMP_PREFIX FILE_TMP_MARK
#define BLOB_SUFFIX LITE_BLOB_SUFFIX

static int profile_exists(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "SELECT 1 FROM profiles WHERE id = ?1 UNION ALL"
			 " SELECT 1 FROM pending WHERE blob = ?1 || '" BLOB_SUFFIX "'", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	return lite__any_row(s, st);
}

/* 1 when the index lists id (0 when not, -errno). */
static int profile_indexed(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	int err;

	err = lite__prepare(s, "SELECT 1 FROM profiles WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	return lite__any_row(s, st);
}

/* Forgets a save that is over (done, failed, or swept). */
static int pending_forget(struct store *s, const char *blob)
{
	sqlite3_stmt *st;
	int err = lite__prepare(s, "DELETE FROM pending WHERE blob = ?", &st);

	if (err)
		return err;
	sqlite3_bind_text(st, 1, blob, -1, SQLITE_STATIC);
	return lite__run(s, st);
}

/* A name this store wrote itself: no slash, no dot-dot, not empty. */

int lite__leftovers(struct store *s, int64_t older_than_ns,
		     int (*found)(void *ctx, const char *path, uint64_t bytes), void *ctx)
{
	sqlite3_stmt *st;
	char **names = NULL;
	size_t n = 0;
	int err, rc;

	if (s->profiles_fd < 0)
		return 0;
	err = lite__prepare(s, "SELECT blob, tmp FROM pending WHERE started_at_ns < ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, older_than_ns);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **grown = realloc(names, sizeof(*names) * (n + 2));

		if (!grown) {
			err = -ENOMEM;
			break;
		}
		names = grown;
		names[n] = lite__text(st, 0);
		names[n + 1] = lite__text(st, 1);
		n += 2;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; !err && i < n; i += 2) {
		for (size_t j = i; j < i + 2; j++) {
			char id[STORE_ID_MAX + sizeof(BLOB_SUFFIX)], path[PATH_MAX];
			size_t len = names[j] ? strlen(names[j]) : 0;
			struct stat stt;

			if (!store__plain_name(names[j]))
				continue;
			/* The blob of a save that did get indexed stays. */
			if (j == i && len > strlen(BLOB_SUFFIX) && len < sizeof(id)) {
				memcpy(id, names[j], len - strlen(BLOB_SUFFIX));
				id[len - strlen(BLOB_SUFFIX)] = '\0';
				if (profile_indexed(s, id) != 0)
					continue;
			}
			if (fstatat(s->profiles_fd, names[j], &stt, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISREG(stt.st_mode))
				continue;
			if (unlinkat(s->profiles_fd, names[j], 0)) {
				err = -errno;
				break;
			}
			snprintf(path, sizeof(path), "%s/%s", s->profiles_dir, names[j]);
			if (found)
				err = found(ctx, path, (uint64_t)stt.st_size);
		}
		if (!err)
			err = pending_forget(s, names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

/*
 * Removes what a crash left behind: the files of saves this workspace started more
 * than an hour ago and never finished. Nothing else: a file the index does not name is
 * not ours to delete. Best effort; run by saves, which are rare.
 */
static void store__sweep(struct store *s)
{
	lite__leftovers(s, clock__realtime_ns() - STALE_TMP_SECONDS * 1000000000LL, NULL, NULL);
}


/* Claims a fresh id and says, in the index, which two files the save will make. */
static int pending_begin(struct store *s, const struct profile_row *row,
			 char id[STORE_ID_MAX], char *blob, size_t blob_size, char *tmp,
			 size_t tmp_size)
{
	sqlite3_stmt *st;
	uint64_t r;
	int err, tries;

	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	for (tries = 0; tries < 64; tries++) {
		store__new_id(row->question, row->started_at_ns, id);
		err = profile_exists(s, id);
		if (err <= 0)
			break;
	}
	if (!err && tries == 64)
		err = -EEXIST;
	if (err)
		goto out_rollback;
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)clock__realtime_ns();
	snprintf(blob, blob_size, "%s" BLOB_SUFFIX, id);
	snprintf(tmp, tmp_size, "%s" TMP_PREFIX "%016llx", blob, (unsigned long long)r);
	err = lite__prepare(s, "INSERT INTO pending (blob, tmp, started_at_ns) VALUES (?, ?, ?)", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, blob, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, tmp, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, row->saved_at_ns);
	err = lite__run(s, st);
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (!err)
		return 0;
out_rollback:
	lite__exec(s, "ROLLBACK");
	id[0] = '\0';
	return err;
}

/* Writes data to the new file name in the profiles directory, fsync'd. */
static int write_new(struct store *s, const char *name, const void *data, size_t len)
{
	int fd, err;

	fd = openat(s->profiles_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	err = file__write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlinkat(s->profiles_fd, name, 0);
	return err;
}

/* Moves tmp to blob unless blob exists (-EEXIST). */
static int rename_noreplace(int dirfd, const char *tmp, const char *blob)
{
	if (renameat2(dirfd, tmp, dirfd, blob, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A filesystem without RENAME_NOREPLACE: link refuses an existing name too. */
	if (linkat(dirfd, tmp, dirfd, blob, 0))
		return -errno;
	unlinkat(dirfd, tmp, 0);
	return 0;
}

static int index_profile(struct store *s, const struct profile_row *row, const char *id,
			 const char *blob)
{
	sqlite3_stmt *st;
	int err;

	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = lite__prepare(s,
		      "INSERT INTO profiles (id, question, server, started_at_ns, duration_ns,"
		      " answer, blob, saved_at_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		      &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, question__id(row->question), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, row->server, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, row->started_at_ns);
	sqlite3_bind_int64(st, 5, row->duration_ns);
	sqlite3_bind_text(st, 6, row->answer, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, blob, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, row->saved_at_ns);
	err = lite__run(s, st);
	if (!err && row->batch)
		err = lite__keep_batch(s, row->batch, id, row->saved_at_ns);
	if (!err)
		err = pending_forget(s, blob);
	/* Listed whole and no longer pending (with its batch's key), or none of these. */
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (!err)
		return 0;
out_rollback:
	lite__exec(s, "ROLLBACK");
	return err;
}

int lite__save_profile(struct store *s, const struct profile_row *row, const void *data,
		       size_t len, char id[STORE_ID_MAX])
{
	char tmp[PATH_MAX], blob[STORE_ID_MAX + sizeof(BLOB_SUFFIX)];
	int err;

	store__sweep(s);
	err = pending_begin(s, row, id, blob, sizeof(blob), tmp, sizeof(tmp));
	if (err)
		return err;
	err = write_new(s, tmp, data, len);
	if (!err)
		err = rename_noreplace(s->profiles_fd, tmp, blob);
	if (!err && fsync(s->profiles_fd) && errno != EINVAL)
		err = -errno;
	if (!err)
		err = index_profile(s, row, id, blob);
	if (err) {
		/* Nothing half-written stays: neither file, nor (when the index can still
		 * be written) the note that they were being made. */
		unlinkat(s->profiles_fd, tmp, 0);
		unlinkat(s->profiles_fd, blob, 0);
		fsync(s->profiles_fd);
		pending_forget(s, blob);
	}
	return err;
}

/* What check_entry asks of every file at open, asked of a profile's file as it is read
 * (store__open_again checks none at open): ours, a plain file, written by us alone. */
static int blob__check(struct store *s, int fd, const char *name)
{
	char rel[PATH_MAX];
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	snprintf(rel, sizeof(rel), "profiles/%s", name);
	return lite__check_stat(s, &st, rel, false, true);
}

int lite__load_profile(struct store *s, const char *id, struct profile **out)
{
	const char *blob;
	sqlite3_stmt *st;
	int rc, err, fd;

	*out = NULL;
	err = lite__prepare(s, "SELECT blob FROM profiles WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
	}
	/* The blob's name is ours, but an edited index must not lead outside the dir. */
	blob = (const char *)sqlite3_column_text(st, 0);
	if (!store__plain_name(blob) || s->profiles_fd < 0) {
		sqlite3_finalize(st);
		return s->profiles_fd < 0 ? -ENODATA : -EBADMSG;
	}
	fd = openat(s->profiles_fd, blob, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	if (!err)
		err = blob__check(s, fd, blob);
	sqlite3_finalize(st);
	if (err == -ENOENT)
		return -ENODATA; /* listed, but its file is gone */
	if (err == -ELOOP)
		return -EBADMSG;
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = pprof__read_fd(fd, out);
	close(fd);
	/* Listed but unreadable as a profile: the profile is damaged, not absent. */
	if (err == -EINVAL || err == -EFBIG)
		err = -EBADMSG;
	return err;
}

/* Unlisted first, then removed: a crash in between leaves only an unlisted file. */
static void unlink_blob(struct store *s, const char *blob)
{
	if (store__plain_name(blob) && s->profiles_fd >= 0)
		unlinkat(s->profiles_fd, blob, 0);
}

int lite__delete_profile(struct store *s, const char *id)
{
	char *blob = NULL;
	sqlite3_stmt *st;
	int rc, err;

	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		return err;
	err = lite__prepare(s, "SELECT blob FROM profiles WHERE id = ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		blob = lite__text(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		err = rc == SQLITE_DONE ? -ENOENT : lite__err(s->db, rc);
		goto out_rollback;
	}
	err = -ENOMEM;
	if (!blob)
		goto out_rollback;
	err = lite__prepare(s, "DELETE FROM profiles WHERE id = ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	err = lite__run(s, st);
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (err)
		goto out_rollback;
	unlink_blob(s, blob);
	if (s->profiles_fd >= 0)
		fsync(s->profiles_fd);
	free(blob);
	return 0;

out_rollback:
	lite__exec(s, "ROLLBACK");
	free(blob);
	return err;
}

int lite__prune_profiles(struct store *s, int64_t before_ns, size_t max, size_t *deleted)
{
	char **blobs = NULL;
	sqlite3_stmt *st;
	size_t n = 0;
	int rc = SQLITE_DONE, err;

	*deleted = 0;
	blobs = calloc(max, sizeof(*blobs));
	if (!blobs)
		return -ENOMEM;
	err = lite__exec(s, "BEGIN IMMEDIATE");
	if (err)
		goto out_free;
	err = lite__prepare(s, "SELECT blob FROM profiles WHERE started_at_ns < ?"
			       " ORDER BY started_at_ns LIMIT ?", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_int64(st, 1, before_ns);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (!(blobs[n++] = lite__text(st, 0)))
			rc = SQLITE_NOMEM;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		err = lite__err(s->db, rc);
		goto out_rollback;
	}
	err = lite__prepare(s, "DELETE FROM profiles WHERE id IN (SELECT id FROM profiles"
			       " WHERE started_at_ns < ? ORDER BY started_at_ns LIMIT ?)", &st);
	if (err)
		goto out_rollback;
	sqlite3_bind_int64(st, 1, before_ns);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	err = lite__run(s, st);
	if (!err)
		err = lite__exec(s, "COMMIT");
	if (err)
		goto out_rollback;
	for (size_t i = 0; i < n; i++)
		unlink_blob(s, blobs[i]);
	if (n && s->profiles_fd >= 0)
		fsync(s->profiles_fd);
	*deleted = n;
	goto out_free;

out_rollback:
	lite__exec(s, "ROLLBACK");
out_free:
	for (size_t i = 0; i < n; i++)
		free(blobs[i]);
	free(blobs);
	return err;
}
