// SPDX-License-Identifier: MIT
/* Helpers every subcommand shares: numbers, JSON output, the store, --help. */
#include "cli/cli.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_text.h"
#include "store/store.h"
#include "util/messages.h"
#include "views/views.h"

int cli_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
		   long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text ? text : "", &end, 10);
	if (!text || !*text || *end || errno || v < min || v > max) {
		msg_error(MSG_USAGE_BAD_NUMBER, cmd, text ? text : "", min, max, opt);
		return -1;
	}
	*out = v;
	return 0;
}

static bool json_printed;

int cli_print_json(json_t *doc)
{
	int err;

	if (!doc) {
		msg_error(MSG_JSON_FAILED);
		return -1;
	}
	json_printed = true;
	err = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					    JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	json_decref(doc);
	if (err || fflush(stdout) || ferror(stdout)) {
		msg_error(MSG_OUTPUT_FAILED, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

void cli_print_json_error(void)
{
	const char *hint, *error = msg_last_error(&hint);
	json_t *doc;

	if (json_printed || !error)
		return;
	doc = json_object();
	if (!doc)
		return;
	json_object_set_new(doc, "error", json_text(error));
	json_object_set_new(doc, "hint", hint ? json_text(hint) : json_null());
	cli_print_json(doc);
}

int cli_use_store_url(const char *url)
{
	int err = store__set_url(url);

	if (err == -EACCES)
		msg_error(MSG_STORE_URL_PASSWORD);
	else if (err == -ENOMEM)
		msg_error(MSG_OUT_OF_MEMORY);
	else if (err)
		msg_error(MSG_STORE_URL_BAD, url, *store__problem(NULL) ? store__problem(NULL) :
									 "it does not start with postgresql://");
	return err ? -1 : 0;
}

/* Says why the workspace database at url cannot be opened, and what to do. */
static void open_url_failed(const char *url, int err)
{
	switch (err) {
	case ECONNREFUSED:
		msg_error(MSG_STORE_PG_UNREACHABLE, url, store__problem(NULL));
		return;
	case EMEDIUMTYPE:
		msg_error(MSG_STORE_PG_FOREIGN, url);
		return;
	case EPROTO:
		msg_error(MSG_STORE_PG_NEWER, url);
		return;
	}
	msg_error(MSG_STORE_PG_FAILED, url,
		  *store__problem(NULL) ? store__problem(NULL) : strerror(err));
}

void cli_open_failed(const char *dir, int err)
{
	uid_t owner;
	const char *path;
	struct passwd *pw;
	char uid[32];

	if (store__url()) {
		open_url_failed(store__url(), err);
		return;
	}
	path = store__problem(&owner);
	switch (err) {
	case EPROTO:
		msg_error(MSG_STORE_NEWER_WORKSPACE, dir);
		return;
	case EPERM:
		pw = getpwuid(owner);
		snprintf(uid, sizeof(uid), "%u", (unsigned)owner);
		msg_error(MSG_STORE_NOT_OWNED, path, pw ? pw->pw_name : uid, dir);
		return;
	case EACCES:
		if (!*path)
			break;
		msg_error(MSG_STORE_OTHERS_WRITE, path, path);
		return;
	case ELOOP:
		msg_error(MSG_STORE_LINK, path, dir);
		return;
	case EUCLEAN:
		msg_error(MSG_STORE_INDEX_MISSING, dir, dir, dir);
		return;
	case EBADMSG:
		msg_error(MSG_STORE_INDEX_DAMAGED, dir, dir);
		return;
	case ENOTDIR:
		msg_error(MSG_DATA_DIR_NOT_DIR, dir);
		return;
	case ENOSPC:
		msg_error(MSG_DATA_DIR_FULL, dir);
		return;
	case EROFS:
		msg_error(MSG_DATA_DIR_READ_ONLY, dir);
		return;
	}
	msg_error(MSG_DATA_DIR_UNUSABLE, dir, strerror(err));
}

struct store *cli_open_store(const struct cli_env *env)
{
	const char *dir = env->data_dir ? env->data_dir : store__default_dir();
	struct store *s = store__open(dir);

	if (!s)
		cli_open_failed(dir, errno);
	return s;
}

struct store *cli_open_store_read(const struct cli_env *env)
{
	const char *dir = env->data_dir ? env->data_dir : store__default_dir();
	struct store *s = store__open_read(dir);

	if (!s)
		cli_open_failed(dir, errno);
	return s;
}

const char *cli_option_value(int argc, char **argv, int *i, const char *short_opt,
			     const char *long_opt, bool *bad)
{
	size_t len = strlen(long_opt);
	const char *arg = argv[*i];

	if (strncmp(arg, long_opt, len) == 0 && arg[len] == '=')
		return arg + len + 1;
	if (strcmp(arg, long_opt) != 0 && !(short_opt && strcmp(arg, short_opt) == 0))
		return NULL;
	if (*i + 1 >= argc) {
		msg_error(MSG_USAGE_MISSING_VALUE, argv[0], arg);
		*bad = true;
		return NULL;
	}
	return argv[++*i];
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

int cli_print_view_error(const struct view_error *e)
{
	msg_error_text(e->id, e->text);
	return e->status == 400 || e->status == 413 ? EXIT_REFUSED : EXIT_FAIL;
}
