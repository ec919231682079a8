// SPDX-License-Identifier: MIT
/*
 * slideops symbols upload FILE | list | delete BUILD_ID
 *
 * Debug symbols for stripped binaries (docs/architecture.md). An upload reads only the function
 * names, addresses and sizes of an unstripped build or a debug file, keeps them in the
 * workspace under the file's build id, and forgets the file. Refusals are checked in
 * the order a person can act on them: size first (before reading anything), then
 * whether it is ELF at all, then its build id, then whether it has names to give.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/json_text.h"
#include "cli/cli.h"
#include "elf/elf_file.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/messages.h"
#include "views/views.h"


/* The usage error for an argument that is not expected: an option or an extra word. */
static int refuse_argument(const char *cmd, const char *arg)
{
	if (arg[0] == '-' && arg[1])
		msg_error(MSG_USAGE_UNKNOWN_OPTION, cmd, arg, "symbols");
	else
		msg_error(MSG_USAGE_EXTRA_ARGUMENT, cmd, arg);
	return EXIT_REFUSED;
}

/*
 * Reads the names of the file at path: EXIT_OK with *tab and info filled, or prints why
 * not and returns the exit code.
 */
/*
 * Opens the file at path and reads its names: the descriptor (the names kept, its lines
 * are read from it too) with *tab and info filled, or prints why not and returns -1 with
 * the exit code in *rc.
 */
static int read_upload(const char *path, struct elf_info *info, struct symtab **tab, int *rc)
{
	struct view_error e;
	int fd;

	*tab = NULL;
	/* O_NONBLOCK: a FIFO given by mistake must not hang the command. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		msg_error(MSG_SYMBOLS_CANNOT_READ, path, strerror(errno));
		*rc = EXIT_FAIL;
		return -1;
	}
	if (views__read_upload(fd, path, info, tab, &e)) {
		close(fd);
		*rc = cli_print_view_error(&e);
		return -1;
	}
	return fd;
}

static int symbols_upload(int argc, char **argv, const struct cli_env *env)
{
	const char *path = NULL, *name;
	struct elf_info info;
	struct view_error e;
	struct symtab *tab;
	struct store *s;
	json_t *doc;
	int fd, ret;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !path) {
			path = argv[++i];
			continue;
		}
		if ((argv[i][0] == '-' && argv[i][1]) || path)
			return refuse_argument("symbols upload", argv[i]);
		path = argv[i];
	}
	if (!path) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "symbols upload",
			  msg_text(MSG_SYMBOLS_WORD_FILE), "symbols");
		return EXIT_REFUSED;
	}

	fd = read_upload(path, &info, &tab, &ret);
	if (fd < 0)
		return ret;
	name = basename(path);
	if (!*name) /* a path that ends in a slash */
		name = path;

	s = cli_open_store(env);
	if (!s) {
		close(fd);
		symtab__free(tab);
		return EXIT_FAIL;
	}
	doc = views__keep_upload(s, &info, name, tab, fd, &e);
	store__close(s);
	close(fd);
	if (!doc) {
		symtab__free(tab);
		return cli_print_view_error(&e);
	}
	ret = EXIT_OK;
	if (env->json) {
		if (cli_print_json(doc))
			ret = EXIT_FAIL;
	} else {
		msg_print(json_integer_value(json_object_get(doc, "lines")) ?
				  MSG_SYMBOLS_UPLOADED_LINES : MSG_SYMBOLS_UPLOADED,
			  (unsigned long long)symtab__named(tab), info.build_id, name);
		json_decref(doc);
	}
	symtab__free(tab);
	return ret;
}

static int symbols_list(int argc, char **argv, const struct cli_env *env)
{
	struct upload_entry *e;
	struct store *s;
	char when[32];
	size_t n;
	int err;

	if (argc > 2)
		return refuse_argument("symbols list", argv[2]);
	s = cli_open_store_read(env);
	if (!s)
		return EXIT_FAIL;
	err = store__list_uploads(s, &e, &n);
	store__close(s);
	if (err) {
		msg_error(MSG_SYMBOLS_LIST_FAILED, strerror(-err));
		return EXIT_FAIL;
	}
	if (env->json) {
		cli_print_json(views__uploads(e, n));
	} else if (n == 0) {
		msg_print(MSG_SYMBOLS_LIST_EMPTY);
	} else {
		msg_print(MSG_SYMBOLS_LIST_HEADER);
		for (size_t i = 0; i < n; i++) {
			views__format_time(e[i].uploaded_at_ns, when);
			msg_print(MSG_SYMBOLS_LIST_ROW, e[i].file_name,
				  (unsigned long long)e[i].functions, when, e[i].build_id);
		}
	}
	upload_entries__free(e, n);
	return err ? EXIT_FAIL : EXIT_OK;
}

static int symbols_delete(int argc, char **argv, const struct cli_env *env)
{
	struct view_error e;
	struct store *s;
	json_t *doc;

	if (argc < 3) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "symbols delete",
			  msg_text(MSG_SYMBOLS_WORD_BUILD_ID), "symbols");
		return EXIT_REFUSED;
	}
	if (argc > 3)
		return refuse_argument("symbols delete", argv[3]);
	if (!views__parse_build_id(argv[2], (char[BUILD_ID_HEX_MAX + 1]){ 0 })) {
		msg_error(MSG_SYMBOLS_BAD_BUILD_ID, argv[2]);
		return EXIT_REFUSED;
	}

	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	doc = views__delete_upload(s, argv[2], &e);
	store__close(s);
	if (!doc)
		return cli_print_view_error(&e);
	if (env->json) {
		cli_print_json(doc);
	} else {
		msg_print(MSG_SYMBOLS_DELETED, json_string_value(json_object_get(doc, "deleted")));
		json_decref(doc);
	}
	return EXIT_OK;
}

int cmd_symbols(int argc, char **argv, const struct cli_env *env)
{
	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_SYMBOLS);
		return EXIT_OK;
	}
	if (argc < 2) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "symbols",
			  msg_text(MSG_SYMBOLS_WORD_SUBCOMMAND), "symbols");
		return EXIT_REFUSED;
	}
	if (strcmp(argv[1], "upload") == 0)
		return symbols_upload(argc, argv, env);
	if (strcmp(argv[1], "list") == 0)
		return symbols_list(argc, argv, env);
	if (strcmp(argv[1], "delete") == 0)
		return symbols_delete(argc, argv, env);
	msg_error(MSG_SYMBOLS_UNKNOWN_SUBCOMMAND, argv[1]);
	return EXIT_REFUSED;
}
