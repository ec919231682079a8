// SPDX-License-Identifier: MIT
/*
 * slideops remove: takes the profiler off this server, as "Remove the profiler" does in
 * the UI. Removes the installed profiler (DATA/profiler/), the capture files left
 * behind (DATA/captures/) and unfinished temporary files of captures being saved
 * ("*.tmp-*" in DATA/ and DATA/profiles/). Keeps the workspace: its index, profiles,
 * Services and debug symbols.
 *
 * Trees are removed through directory descriptors without following symbolic links, so
 * a link planted in DATA/captures can never make us delete what it points at.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/format.h"
#include "analysis/json_text.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/messages.h"

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

/* Leftovers of an atomic write: "ID.pb.gz.tmp-1a2b3c4d" (written, fsync'd, renamed). */
static bool is_temporary(const char *name)
{
	return strstr(name, ".tmp-") != NULL;
}

static json_t *removed_json(const char *path, const struct removal *r)
{
	return json_pack("{s:o, s:I, s:I}", "path", json_text(path), "files", (json_int_t)r->files, "bytes",
			 (json_int_t)r->bytes);
}

/* Reports one removal, in JSON or in words. */
static int report(json_t *list, const struct cli_env *env, const char *path,
		  const struct removal *r)
{
	char size[FORMAT_MAX];

	if (env->json)
		return json_array_append_new(list, removed_json(path, r));
	format_bytes((int64_t)r->bytes, size, sizeof(size));
	if (r->files == 1)
		msg_print(MSG_REMOVE_REMOVED_ONE, path, size);
	else
		msg_print(MSG_REMOVE_REMOVED, path, r->files, size);
	return 0;
}

/* The temporary files directly in dir (DATA or DATA/profiles). */
static int remove_temporaries(const char *dir_path, json_t *list, const struct cli_env *env,
			      bool *any)
{
	struct dirent *de;
	int err = 0;
	DIR *dir;

	dir = opendir(dir_path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		struct removal r = { 0 };
		char path[PATH_MAX];
		int e;

		if (!is_temporary(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir_path, de->d_name);
		e = remove_tree(dirfd(dir), de->d_name, &r);
		if (e) {
			msg_error(MSG_REMOVE_FAILED, path, strerror(-e));
			err = err ? err : e;
			continue;
		}
		*any = true;
		if (report(list, env, path, &r))
			err = -ENOMEM;
	}
	closedir(dir);
	return err;
}

int cmd_remove(int argc, char **argv, const struct cli_env *env)
{
	static const char *const trees[] = { "profiler", "captures" };
	const char *data = env->data_dir ? env->data_dir : store__default_dir();
	char path[PATH_MAX];
	json_t *list = NULL;
	bool any = false;
	int err = 0, e;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_REMOVE);
		return EXIT_OK;
	}
	if (argc > 1) {
		if (argv[1][0] == '-')
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "remove", argv[1], "remove");
		else
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "remove", argv[1]);
		return EXIT_REFUSED;
	}
	if (env->json) {
		list = json_array();
		if (!list) {
			msg_error(MSG_OUT_OF_MEMORY);
			return EXIT_FAIL;
		}
	}

	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct removal r = { 0 };
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", data, trees[i]);
		if (lstat(path, &st))
			continue;
		e = remove_tree(AT_FDCWD, path, &r);
		if (e) {
			msg_error(MSG_REMOVE_FAILED, path, strerror(-e));
			err = err ? err : e;
			continue;
		}
		any = true;
		if (report(list, env, path, &r))
			err = -ENOMEM;
	}
	e = remove_temporaries(data, list, env, &any);
	err = err ? err : e;
	snprintf(path, sizeof(path), "%s/profiles", data);
	e = remove_temporaries(path, list, env, &any);
	err = err ? err : e;

	if (env->json) {
		if (cli_print_json(json_pack("{s:o, s:o}", "removed", list, "kept", json_text(data))))
			err = -EIO;
	} else {
		struct stat st;

		if (!any && !err)
			msg_print(MSG_REMOVE_NOTHING);
		if (stat(data, &st) == 0)
			msg_print(MSG_REMOVE_KEPT, data);
	}
	return err ? EXIT_FAIL : EXIT_OK;
}
