// SPDX-License-Identifier: MIT
/* Removing trees of our own files and saying what went. See remove_tree.h. */
#include "util/remove_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/json_text.h"

struct removal {
	unsigned long long files;
	unsigned long long bytes;
};

/* Removes name (in dirfd) and, for a directory, everything under it. 0 or -errno. */
static int remove_tree(int dirfd, const char *name, struct removal *r)
{
	struct dirent *de;
	struct stat st;
	int fd, err = 0;
	DIR *dir;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0))
			return errno == ENOENT ? 0 : -errno;
		r->files++;
		r->bytes += st.st_size;
		return 0;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(dir))) {
		int e;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		e = remove_tree(fd, de->d_name, r);
		if (e && !err)
			err = e;
	}
	closedir(dir);
	if (!err && unlinkat(dirfd, name, AT_REMOVEDIR) && errno != ENOENT)
		err = -errno;
	return err;
}

int remove_report__init(struct remove_report *rep)
{
	if (!rep->removed)
		rep->removed = json_array();
	if (!rep->failed)
		rep->failed = json_array();
	return rep->removed && rep->failed ? 0 : -ENOMEM;
}

void remove_report__release(struct remove_report *rep)
{
	json_decref(rep->removed);
	json_decref(rep->failed);
	rep->removed = rep->failed = NULL;
}

static int note(json_t *list, json_t *item)
{
	if (!item || json_array_append_new(list, item))
		return -ENOMEM;
	return 0;
}

static int noted(struct remove_report *rep, const char *path, const struct removal *r)
{
	return note(rep->removed, json_pack("{s:o, s:I, s:I}", "path", json_text(path), "files",
					    (json_int_t)r->files, "bytes", (json_int_t)r->bytes));
}

int remove_report__removed(struct remove_report *rep, const char *path, uint64_t bytes)
{
	struct removal r = { .files = 1, .bytes = bytes };

	return noted(rep, path, &r);
}

int remove_report__failed(struct remove_report *rep, const char *path, int err)
{
	note(rep->failed, json_pack("{s:o, s:s}", "path", json_text(path), "error",
				    strerror(-err)));
	return err;
}

int remove_report__tree(struct remove_report *rep, int dirfd, const char *name,
			const char *path)
{
	struct removal r = { 0 };
	struct stat st;
	int err;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : remove_report__failed(rep, path, -errno);
	err = remove_tree(dirfd, name, &r);
	if (err)
		return remove_report__failed(rep, path, err);
	return noted(rep, path, &r);
}

int remove_report__path(struct remove_report *rep, const char *path)
{
	return remove_report__tree(rep, AT_FDCWD, path, path);
}
