// SPDX-License-Identifier: MIT
/*
 * Remove the profiler: removes the installed profiler (DATA/profiler/), the capture files
 * left behind (DATA/captures/) and the files of saves that never finished, as the index
 * lists them. Keeps the workspace: its index, profiles, Services and debug symbols.
 *
 * Trees are removed through directory descriptors without following symbolic links, so
 * a link planted in DATA/captures can never make us delete what it points at.
 */
#include "views/views.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/json_text.h"
#include "store/store.h"

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

static int note(json_t *list, json_t *item)
{
	if (!item || json_array_append_new(list, item))
		return -ENOMEM;
	return 0;
}

static int removed(struct remove_report *rep, const char *path, const struct removal *r)
{
	return note(rep->removed, json_pack("{s:o, s:I, s:I}", "path", json_text(path), "files",
					    (json_int_t)r->files, "bytes", (json_int_t)r->bytes));
}

static int failed(struct remove_report *rep, const char *path, int err)
{
	note(rep->failed, json_pack("{s:o, s:s}", "path", json_text(path), "error",
				    strerror(-err)));
	return err;
}

static int leftover(void *ctx, const char *path, uint64_t bytes)
{
	struct removal r = { .files = 1, .bytes = bytes };

	return removed(ctx, path, &r);
}

int views__remove_profiler(struct store *s, struct remove_report *rep)
{
	static const char *const trees[] = { "profiler", "captures" };
	char path[PATH_MAX];
	int err = 0, e;

	rep->removed = json_array();
	rep->failed = json_array();
	if (!rep->removed || !rep->failed)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct removal r = { 0 };
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", store__dir(s), trees[i]);
		if (fstatat(store__dirfd(s), trees[i], &st, AT_SYMLINK_NOFOLLOW))
			continue;
		e = remove_tree(store__dirfd(s), trees[i], &r);
		if (!e)
			e = removed(rep, path, &r);
		else
			failed(rep, path, e);
		err = err ? err : e;
	}
	/* Files of saves that never finished, as the index lists them; nothing else. */
	e = store__leftovers(s, INT64_MAX, leftover, rep);
	if (e)
		failed(rep, store__dir(s), e);
	return err ? err : e;
}

json_t *views__remove_document(const char *data, struct remove_report *rep)
{
	return json_pack("{s:O, s:o}", "removed", rep->removed, "kept", json_text(data));
}
