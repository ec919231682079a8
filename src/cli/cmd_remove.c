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
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/format.h"
#include "util/json_text.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/messages.h"
#include "views/views.h"

/* Says what was removed and what could not be, in words. */
static void print_report(const struct remove_report *rep)
{
	size_t i;
	json_t *item;

	json_array_foreach(rep->removed, i, item) {
		unsigned long long files = json_integer_value(json_object_get(item, "files"));
		const char *path = json_string_value(json_object_get(item, "path"));
		char size[FORMAT_MAX];

		format_bytes(json_integer_value(json_object_get(item, "bytes")), size,
			     sizeof(size));
		if (files == 1)
			msg_print(MSG_REMOVE_REMOVED_ONE, path, size);
		else
			msg_print(MSG_REMOVE_REMOVED, path, files, size);
	}
}

int cmd_remove(int argc, char **argv, const struct cli_env *env)
{
	const char *data = env->data_dir ? env->data_dir : store__default_dir();
	struct remove_report rep = { 0 };
	struct store *s;
	size_t i;
	json_t *item;
	int err;

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
	err = views__remove_profiler(s, &rep);
	store__close(s);
	if (!rep.removed || !rep.failed) {
		msg_error(MSG_OUT_OF_MEMORY);
		json_decref(rep.removed);
		json_decref(rep.failed);
		return EXIT_FAIL;
	}
	json_array_foreach(rep.failed, i, item)
		msg_error(MSG_REMOVE_FAILED, json_string_value(json_object_get(item, "path")),
			  json_string_value(json_object_get(item, "error")));
	if (env->json) {
		if (cli_print_json(views__remove_document(data, &rep)))
			err = -EIO;
	} else {
		print_report(&rep);
		if (!json_array_size(rep.removed) && !err)
			msg_print(MSG_REMOVE_NOTHING);
		msg_print(MSG_REMOVE_KEPT, data);
	}
	json_decref(rep.removed);
	json_decref(rep.failed);
	return err ? EXIT_FAIL : EXIT_OK;
}
