// SPDX-License-Identifier: MIT
/*
 * The SQLite workspace's directory: DIR, DIR/workspace.db and DIR/profiles, opened once
 * O_NOFOLLOW and checked (ours alone, no links), then the index opened and migrated.
 */
#include "store/store_lite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file.h"

/* mkdir -p; the last component gets mode, those above 0755. */
int store__mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0)
		return -ENOENT;
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static int problem(int err, const struct store *s, const char *name, uid_t uid)
{
	return store__set_problem(err, s->dir, name, uid);
}

/*
 * Everything the workspace keeps must be ours alone: a file another user owns or may
 * write could be a link planted to make root write through it, or an index edited to
 * make us delete or read what it names. Files readable by others are made ours alone
 * (profiles name processes and functions): best effort, a read-only workspace keeps its
 * modes.
 */
/* The rule of check_entry for a file already stat'd: ours, of its type, and written by
 * us alone. path: relative to the workspace, for the problem it names. */
int lite__check_stat(struct store *s, const struct stat *st, const char *path, bool want_dir,
		     bool must_be_ours_type)
{
	if (st->st_uid != geteuid())
		return problem(-EPERM, s, path, st->st_uid);
	if (must_be_ours_type && (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)))
		return problem(-ELOOP, s, path, st->st_uid);
	if (!S_ISLNK(st->st_mode) && (st->st_mode & 022))
		return problem(-EACCES, s, path, st->st_uid);
	return 0;
}

static int check_entry(struct store *s, int dirfd, const char *rel, const char *name,
		       bool want_dir, bool must_be_ours_type)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	snprintf(path, sizeof(path), "%s%s%s", rel ? rel : "", rel ? "/" : "", name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	err = lite__check_stat(s, &st, path, want_dir, must_be_ours_type);
	if (err)
		return err;
	if ((S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) && (st.st_mode & 077))
		fchmodat(dirfd, name, S_ISDIR(st.st_mode) ? 0700 : 0600, 0);
	return 0;
}

static bool is_blob_name(const char *name)
{
	size_t len = strlen(name), slen = strlen(LITE_BLOB_SUFFIX);

	return len > slen && strcmp(name + len - slen, LITE_BLOB_SUFFIX) == 0;
}

/* Checks every entry of a directory of the workspace; counts the profile blobs. */
static int check_dir(struct store *s, int fd, const char *rel, size_t *blobs)
{
	struct dirent *de;
	int dup_fd = dup(fd), err = 0;
	DIR *d;

	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -errno;
	}
	while (!err && (de = readdir(d))) {
		bool ours = strncmp(de->d_name, "workspace.db", 12) == 0 ||
			    strcmp(de->d_name, "profiles") == 0;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (blobs && is_blob_name(de->d_name))
			(*blobs)++;
		err = check_entry(s, fd, rel, de->d_name, strcmp(de->d_name, "profiles") == 0,
				  rel ? true : ours);
	}
	closedir(d);
	return err;
}

static int check_dir_itself(struct store *s, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid())
		return problem(-EPERM, s, NULL, st.st_uid);
	if (st.st_mode & 022)
		return problem(-EACCES, s, NULL, st.st_uid);
	if (st.st_mode & 077)
		fchmod(fd, 0700);
	return 0;
}

static int open_dir_nofollow(int at, const char *path)
{
	int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Opens (or, writing, creates) DIR and DIR/profiles, checked. */
static int store__open_dirs(struct store *s, bool create, size_t *blobs)
{
	int err;

	s->dir_fd = open_dir_nofollow(AT_FDCWD, s->dir);
	if (s->dir_fd == -ENOENT && create) {
		/* Profiles name processes and paths: the workspace is its owner's alone. */
		err = store__mkdir_p(s->dir, 0700);
		if (err)
			return err;
		s->dir_fd = open_dir_nofollow(AT_FDCWD, s->dir);
	}
	if (s->dir_fd == -ENOTDIR) {
		struct stat st;

		/* O_NOFOLLOW|O_DIRECTORY says ENOTDIR for a link to a directory. */
		if (lstat(s->dir, &st) == 0 && S_ISLNK(st.st_mode))
			s->dir_fd = -ELOOP;
	}
	if (s->dir_fd == -ELOOP)
		return problem(-ELOOP, s, NULL, 0);
	if (s->dir_fd < 0)
		return s->dir_fd;
	err = check_dir_itself(s, s->dir_fd);
	if (!err)
		err = check_dir(s, s->dir_fd, NULL, NULL);
	if (err)
		return err;
	s->profiles_fd = open_dir_nofollow(s->dir_fd, "profiles");
	if (s->profiles_fd == -ENOENT && create) {
		if (mkdirat(s->dir_fd, "profiles", 0700) && errno != EEXIST)
			return -errno;
		s->profiles_fd = open_dir_nofollow(s->dir_fd, "profiles");
	}
	if (s->profiles_fd == -ENOENT)
		return 0;
	if (s->profiles_fd < 0)
		return s->profiles_fd == -ELOOP || s->profiles_fd == -ENOTDIR ?
			       problem(-ELOOP, s, "profiles", 0) :
			       s->profiles_fd;
	if (s->again) {
		/* Opened and checked whole before: 10k profiles are 10k fstat calls a request,
		 * so each is checked as it is read instead. Profiles are assumed there: an
		 * index gone or emptied since is refused, never made anew over them. */
		*blobs = 1;
		return 0;
	}
	return check_dir(s, s->profiles_fd, "profiles", blobs);
}

/* The SQLite name of a file in the workspace: through our checked directory fd, so
 * nothing swapped in under the directory's path is opened. */
void lite__db_path(const struct store *s, char *buf, size_t size, bool uri)
{
	if (uri)
		snprintf(buf, size, "file:/proc/self/fd/%d/workspace.db?immutable=1", s->dir_fd);
	else
		snprintf(buf, size, "/proc/self/fd/%d/workspace.db", s->dir_fd);
}

static int store__open_db(struct store *s, bool write, size_t blobs)
{
	char path[PATH_MAX];
	struct stat st;
	int rc, err, flags;

	if (fstatat(s->dir_fd, "workspace.db", &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return -errno;
		/* Blobs without an index: recreating it would make the sweep take them. */
		if (blobs)
			return problem(-EUCLEAN, s, "workspace.db", 0);
		if (!write)
			return 0; /* no workspace yet: an empty one, created by nothing */
		if (!s->create)
			return problem(-ENOENT, s, "workspace.db", 0);
		rc = openat(s->dir_fd, "workspace.db",
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (rc < 0 && errno != EEXIST)
			return -errno;
		if (rc >= 0)
			close(rc);
	} else if (st.st_size == 0 && blobs) {
		return problem(-EUCLEAN, s, "workspace.db", 0);
	}

	/* No SQLITE_OPEN_NOFOLLOW: the path is a link to our directory by design, and the file
	 * itself was checked above. */
	flags = write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	lite__db_path(s, path, sizeof(path), false);
	rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc == SQLITE_OK && !write &&
	    sqlite3_exec(s->db, "PRAGMA user_version", NULL, NULL, NULL) != SQLITE_OK) {
		/* A read-only directory holding a WAL index: read it as the file stands. */
		sqlite3_close_v2(s->db);
		s->db = NULL;
		lite__db_path(s, path, sizeof(path), true);
		rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_URI, NULL);
	}
	if (rc != SQLITE_OK)
		return lite__err(s->db, rc);
	sqlite3_busy_timeout(s->db, LITE_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 1);
	if (!write)
		return 0;
	/* A rollback journal, not WAL: reading then needs no shared-memory file, so a
	 * read-only or full workspace can still be listed and shown. */
	lite__exec(s, "PRAGMA journal_mode = DELETE");
	err = lite__exec(s, "PRAGMA synchronous = FULL");
	return err;
}

int store_lite__open(struct store *s, enum store_mode mode)
{
	bool write = mode != STORE_READ;
	size_t blobs = 0;
	int err;

	s->create = mode == STORE_WRITE;
	s->again = mode == STORE_AGAIN;
	if (asprintf(&s->profiles_dir, "%s/profiles", s->dir) < 0) {
		s->profiles_dir = NULL;
		return -ENOMEM;
	}
	err = *s->dir ? 0 : -ENOENT;
	if (!err)
		err = store__open_dirs(s, s->create, &blobs);
	if (err == -ENOENT && !write)
		return 0; /* nothing there yet: an empty workspace to read */
	if (!err)
		err = store__open_db(s, write, blobs);
	if (!err && s->db)
		err = lite__migrate(s, write, blobs);
	/* A damaged index beside profiles: the same refusal as a missing one. */
	if (err == -EBADMSG && blobs)
		err = problem(-EUCLEAN, s, "workspace.db", 0);
	return err;
}

void lite__close(struct store *s)
{
	sqlite3_close_v2(s->db);
	s->db = NULL;
	if (s->profiles_fd >= 0)
		close(s->profiles_fd);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	s->profiles_fd = s->dir_fd = -1;
}

bool lite__exists(const struct store *s)
{
	return s->db != NULL;
}

int lite__free_space(struct store *s, uint64_t needed, uint64_t *available)
{
	int err;

	*available = 0;
	if (s->dir_fd < 0)
		return -ENOENT;
	err = file__free_bytes(s->dir_fd, available);
	if (err)
		return err;
	return *available < needed ? -ENOSPC : 0;
}

/* A file can be made in dirfd: an unnamed one (O_TMPFILE), or where the file system has
 * none, a named one removed at once. 0 or -errno (EROFS: a read-only file system). */
static int dir_can_write(int dirfd)
{
	char name[64];
	int fd;

	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	snprintf(name, sizeof(name), "%swrite-check.%d", FILE_TMP_MARK, (int)getpid());
	fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	unlinkat(dirfd, name, 0);
	return 0;
}

int lite__check_writable(struct store *s)
{
	int err;

	if (sqlite3_db_readonly(s->db, "main") == 1)
		return -EROFS;
	err = dir_can_write(s->dir_fd);
	if (!err && s->profiles_fd >= 0)
		err = dir_can_write(s->profiles_fd);
	return err;
}
