// SPDX-License-Identifier: MIT
/*
 * slideops remove: takes the profiler off this server, as "Remove the profiler" does in
 * the UI. Removes the installed profiler (DATA/profiler/), the capture files left
 * behind (DATA/captures/) and the files of saves that never finished, as the index lists
 * them. Keeps the workspace: its index, profiles, Services and debug symbols. Only in a
 * workspace: a directory without our index, or not its owner's alone, is refused.
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

static json_t *removed_json(const char *path, const struct removal *r)
{
	return json_pack("{s:o, s:I, s:I}", "path", json_text(path), "files", (json_int_t)r->files,
			 "bytes", (json_int_t)r->bytes);
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

struct leftovers {
	json_t *list;
	const struct cli_env *env;
	bool any;
};

static int report_leftover(void *ctx, const char *path, uint64_t bytes)
{
	struct leftovers *l = ctx;
	struct removal r = { .files = 1, .bytes = bytes };

	l->any = true;
	return report(l->list, l->env, path, &r) ? -ENOMEM : 0;
}

int cmd_remove(int argc, char **argv, const struct cli_env *env)
{
	static const char *const trees[] = { "profiler", "captures" };
	const char *data = env->data_dir ? env->data_dir : store__default_dir();
	struct leftovers left = { .env = env };
	char path[PATH_MAX];
	struct store *s;
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
	/* Only a workspace, checked as every command checks it: a directory that is not
	 * one is not ours to clean, whatever it holds. */
	s = store__open_existing(data);
	if (!s && errno == ENOENT && !*store__problem(NULL)) {
		if (env->json)
			return cli_print_json(json_pack("{s:[], s:o}", "removed", "kept",
							json_text(data))) ? EXIT_FAIL : EXIT_OK;
		msg_print(MSG_REMOVE_NOTHING);
		return EXIT_OK;
	}
	if (!s && errno == ENOENT) {
		msg_error(MSG_REMOVE_NOT_WORKSPACE, data);
		return EXIT_REFUSED;
	}
	if (!s) {
		s = cli_open_store(env); /* says why, as every command does */
		store__close(s);
		return EXIT_FAIL;
	}
	if (env->json) {
		list = json_array();
		if (!list) {
			store__close(s);
			msg_error(MSG_OUT_OF_MEMORY);
			return EXIT_FAIL;
		}
	}

	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct removal r = { 0 };
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", data, trees[i]);
		if (fstatat(store__dirfd(s), trees[i], &st, AT_SYMLINK_NOFOLLOW))
			continue;
		e = remove_tree(store__dirfd(s), trees[i], &r);
		if (e) {
			msg_error(MSG_REMOVE_FAILED, path, strerror(-e));
			err = err ? err : e;
			continue;
		}
		any = true;
		if (report(list, env, path, &r))
			err = -ENOMEM;
	}
	/* Files of saves that never finished, as the index lists them; nothing else. */
	left.list = list;
	e = store__leftovers(s, INT64_MAX, report_leftover, &left);
	if (e) {
		msg_error(MSG_REMOVE_FAILED, store__dir(s), strerror(-e));
		err = err ? err : e;
	}
	any = any || left.any;
	store__close(s);

	if (env->json) {
		if (cli_print_json(json_pack("{s:o, s:o}", "removed", list, "kept", json_text(data))))
			err = -EIO;
	} else {
		if (!any && !err)
			msg_print(MSG_REMOVE_NOTHING);
		msg_print(MSG_REMOVE_KEPT, data);
	}
	return err ? EXIT_FAIL : EXIT_OK;
}
