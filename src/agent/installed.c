// SPDX-License-Identifier: MIT
/*
 * The agent's installed profiler (installed.h). Trees are removed through directory
 * descriptors without following symbolic links, so a link planted in DATA/captures can
 * never make the agent delete what it points at.
 */
#include "agent/installed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "util/json_text.h"

struct agent_profiler {
	char data[PATH_MAX];
	char unwind_dir[PATH_MAX];
	bool installed;
};

struct agent_profiler *agent_profiler__open(const char *data)
{
	struct agent_profiler *ap = calloc(1, sizeof(*ap));

	if (!ap)
		return NULL;
	if ((size_t)snprintf(ap->data, sizeof(ap->data), "%s", data) >= sizeof(ap->data) ||
	    (size_t)snprintf(ap->unwind_dir, sizeof(ap->unwind_dir), "%s/profiler/unwind",
			     data) >= sizeof(ap->unwind_dir)) {
		free(ap);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return ap;
}

void agent_profiler__close(struct agent_profiler *ap)
{
	free(ap);
}

void agent_profiler__options(struct agent_profiler *ap, struct pipeline_options *opts)
{
	opts->cache_dir = ap->unwind_dir;
}

bool agent_profiler__installed(struct agent_profiler *ap)
{
	return ap->installed;
}

bool agent_profiler__will_install(struct agent_profiler *ap, enum question q)
{
	(void)q; /* today every capture loads its programs; the first fills the caches */
	return !ap->installed;
}

void agent_profiler__used(struct agent_profiler *ap)
{
	ap->installed = true;
}

struct removal {
	unsigned long long files, bytes;
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
		r->bytes += (unsigned long long)st.st_size;
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

int agent_profiler__remove(struct agent_profiler *ap, json_t **doc)
{
	static const char *const trees[] = { "profiler", "captures" };
	json_t *removed = json_array(), *failed = json_array();
	char path[PATH_MAX + 16];
	int dfd, err = 0;

	*doc = NULL;
	dfd = open(ap->data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || !removed || !failed) {
		err = dfd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct removal r = { 0 };
		struct stat st;
		int e;

		if (fstatat(dfd, trees[i], &st, AT_SYMLINK_NOFOLLOW))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ap->data, trees[i]);
		e = remove_tree(dfd, trees[i], &r);
		if (e) {
			json_array_append_new(failed, json_pack("{s:o, s:s}", "path",
								json_text(path), "error",
								strerror(-e)));
			err = err ? err : e;
		} else {
			json_array_append_new(removed,
					      json_pack("{s:o, s:I, s:I}", "path", json_text(path),
							"files", (json_int_t)r.files, "bytes",
							(json_int_t)r.bytes));
		}
	}
	ap->installed = false;
	*doc = json_pack("{s:O, s:O, s:o}", "removed", removed, "failed", failed, "kept",
			 json_text(ap->data));
	if (!*doc && !err)
		err = -ENOMEM;
out:
	if (dfd >= 0)
		close(dfd);
	json_decref(removed);
	json_decref(failed);
	return err;
}
