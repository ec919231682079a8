// SPDX-License-Identifier: MIT
/*
 * slideops symbols upload FILE | list | delete BUILD_ID
 *
 * Debug symbols for stripped binaries (DESIGN §7). An upload reads only the function
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

#include "analysis/json_text.h"
#include "cli/cli.h"
#include "elf/elf_file.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/messages.h"

#define UPLOAD_MAX_BYTES (1ull << 30) /* "Files up to 1 GB are accepted." */
#define BUILD_ID_PREFIX_MIN 12

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
static int read_upload(const char *path, struct elf_info *info, struct symtab **tab)
{
	struct stat st;
	int fd, err, ret = EXIT_REFUSED;

	*tab = NULL;
	/* O_NONBLOCK: a FIFO given by mistake must not hang the command. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		msg_error(MSG_SYMBOLS_CANNOT_READ, path, strerror(errno));
		return EXIT_FAIL;
	}
	if (fstat(fd, &st) < 0) {
		msg_error(MSG_SYMBOLS_CANNOT_READ, path, strerror(errno));
		ret = EXIT_FAIL;
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		msg_error(MSG_SYMBOLS_IS_DIRECTORY, path);
		goto out_close;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > UPLOAD_MAX_BYTES) {
		msg_error(MSG_UPLOAD_TOO_LARGE);
		goto out_close;
	}

	err = elf_info__read(fd, info);
	if (err == -ENOEXEC || (!err && info->type != ET_EXEC && info->type != ET_DYN)) {
		/* Object files and core dumps are ELF, but not a build of a binary. */
		msg_error(MSG_UPLOAD_NOT_ELF);
		goto out_close;
	}
	if (err) {
		if (err == -ENOMEM)
			msg_error(MSG_OUT_OF_MEMORY);
		else
			msg_error(MSG_SYMBOLS_CANNOT_READ, path, strerror(-err));
		ret = EXIT_FAIL;
		goto out_close;
	}
	if (!info->build_id[0]) {
		msg_error(MSG_UPLOAD_NO_BUILD_ID);
		goto out_close;
	}
	/* .dynsym alone does not count: it names exports, not the functions of a build. */
	err = info->has_symtab ? symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, tab) : -ENOENT;
	if (!err && symtab__named(*tab) == 0)
		err = -ENOENT;
	switch (err) {
	case 0:
		ret = EXIT_OK;
		break;
	case -ENOENT:
		msg_error(MSG_UPLOAD_STRIPPED);
		break;
	case -ENOEXEC:
		msg_error(MSG_UPLOAD_NOT_ELF);
		break;
	case -ENOMEM:
		msg_error(MSG_OUT_OF_MEMORY);
		ret = EXIT_FAIL;
		break;
	default:
		msg_error(MSG_SYMBOLS_CANNOT_READ, path, strerror(-err));
		ret = EXIT_FAIL;
		break;
	}
	if (ret != EXIT_OK) {
		symtab__free(*tab);
		*tab = NULL;
	}
out_close:
	close(fd);
	return ret;
}

/* The source lines of the upload (its DWARF line program), kept by build id for pprof
 * exports. A file without DWARF simply has none: the upload is about names. */
static size_t upload_lines(struct store *s, const char *path, const char *build_id)
{
	struct line_table *t = NULL;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return 0;
	if (lines__read(fd, NULL, 0, NULL, &t) == 0 && store__put_lines(s, build_id, t) == 0)
		n = t->n;
	line_table__free(t);
	close(fd);
	return n;
}

static int symbols_upload(int argc, char **argv, const struct cli_env *env)
{
	const char *path = NULL, *name;
	struct elf_info info;
	struct symtab *tab;
	struct store *s;
	size_t lines = 0;
	int ret, err;

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

	ret = read_upload(path, &info, &tab);
	if (ret != EXIT_OK)
		return ret;
	name = basename(path);
	if (!*name) /* a path that ends in a slash */
		name = path;

	s = cli_open_store(env);
	if (!s) {
		symtab__free(tab);
		return EXIT_FAIL;
	}
	err = store__put_symbols(s, info.build_id, SYMBOLS_UPLOAD, name, tab);
	if (!err)
		lines = upload_lines(s, path, info.build_id);
	store__close(s);
	if (err) {
		msg_error(MSG_SYMBOLS_UPLOAD_FAILED, path, strerror(-err));
		symtab__free(tab);
		return EXIT_FAIL;
	}

	if (env->json)
		err = cli_print_json(json_pack("{s:o, s:I, s:o, s:I}", "build_id",
					       json_text(info.build_id), "functions",
					       (json_int_t)symtab__named(tab), "file_name",
					       json_text(name), "lines", (json_int_t)lines));
	else
		msg_print(lines ? MSG_SYMBOLS_UPLOADED_LINES : MSG_SYMBOLS_UPLOADED,
			  (unsigned long long)symtab__named(tab), info.build_id, name);
	symtab__free(tab);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* "2026-12-02T15:04:05Z" (UTC), as every time in the JSON contract. */
static void format_time(int64_t ns, char buf[32])
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
}

static json_t *uploads_json(const struct upload_entry *e, size_t n)
{
	json_t *list = json_array();
	char when[32];

	for (size_t i = 0; list && i < n; i++) {
		format_time(e[i].uploaded_at_ns, when);
		if (json_array_append_new(list, json_pack("{s:o, s:I, s:o, s:s}", "file_name",
							  json_text(e[i].file_name), "functions",
							  (json_int_t)e[i].functions, "build_id",
							  json_text(e[i].build_id), "uploaded_at",
							  when))) {
			json_decref(list);
			list = NULL;
		}
	}
	return list ? json_pack("{s:o}", "uploads", list) : NULL;
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
		err = cli_print_json(uploads_json(e, n));
	} else if (n == 0) {
		msg_print(MSG_SYMBOLS_LIST_EMPTY);
	} else {
		msg_print(MSG_SYMBOLS_LIST_HEADER);
		for (size_t i = 0; i < n; i++) {
			format_time(e[i].uploaded_at_ns, when);
			msg_print(MSG_SYMBOLS_LIST_ROW, e[i].file_name,
				  (unsigned long long)e[i].functions, when, e[i].build_id);
		}
	}
	upload_entries__free(e, n);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* A whole build id, or a prefix of at least 12 hex digits: lowercased into out. */
static bool parse_build_id(const char *arg, char out[BUILD_ID_HEX_MAX + 1])
{
	size_t len = strlen(arg);

	if (len < BUILD_ID_PREFIX_MIN || len > BUILD_ID_HEX_MAX)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !isxdigit((unsigned char)arg[i]))
			return false;
		out[i] = (char)tolower((unsigned char)arg[i]);
	}
	return true;
}

static int symbols_delete(int argc, char **argv, const struct cli_env *env)
{
	char id[BUILD_ID_HEX_MAX + 1], deleted[BUILD_ID_HEX_MAX + 1];
	struct store *s;
	int err;

	if (argc < 3) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "symbols delete",
			  msg_text(MSG_SYMBOLS_WORD_BUILD_ID), "symbols");
		return EXIT_REFUSED;
	}
	if (argc > 3)
		return refuse_argument("symbols delete", argv[3]);
	if (!parse_build_id(argv[2], id)) {
		msg_error(MSG_SYMBOLS_BAD_BUILD_ID, argv[2]);
		return EXIT_REFUSED;
	}

	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	err = store__delete_upload(s, id, deleted);
	store__close(s);
	switch (err) {
	case 0:
		break;
	case -ENOENT:
		msg_error(MSG_SYMBOLS_NO_SUCH_UPLOAD, id);
		return EXIT_FAIL;
	case -EEXIST:
		msg_error(MSG_SYMBOLS_AMBIGUOUS, id);
		return EXIT_REFUSED;
	default:
		msg_error(MSG_SYMBOLS_DELETE_FAILED, id, strerror(-err));
		return EXIT_FAIL;
	}
	if (env->json)
		return cli_print_json(json_pack("{s:s}", "deleted", deleted)) ? EXIT_FAIL : EXIT_OK;
	else
		msg_print(MSG_SYMBOLS_DELETED, deleted);
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
