// SPDX-License-Identifier: MIT
/*
 * slideops profiles: the workspace's past profiles, newest first, each with its id (for
 * `show` and `compare`) and its answer. Reads the index only, never a profile blob, so
 * it stays quick however many profiles the workspace keeps.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/json_text.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/messages.h"
#include "views/views.h"

/* Whole seconds, rounded: a capture ended early by Ctrl-C says how long it ran. */
static long long whole_seconds(uint64_t ns)
{
	return (long long)((ns + 500000000ULL) / 1000000000ULL);
}

static void print_entries(const struct profile_entry *e, size_t n)
{
	char when[32];

	if (!n) {
		msg_print(MSG_PROFILES_NONE);
		return;
	}
	msg_print(MSG_PROFILES_HEADER);
	for (size_t i = 0; i < n; i++) {
		views__format_time(e[i].started_at_ns, when);
		msg_print(MSG_PROFILES_ROW, e[i].id, question__id(e[i].question), e[i].server,
			  when, whole_seconds(e[i].duration_ns));
		if (e[i].answer[0])
			msg_print(MSG_PROFILES_ANSWER, e[i].answer);
	}
}

/* slideops profiles delete ID: the index row first, then the file. */
static int profiles_delete(int argc, char **argv, const struct cli_env *env)
{
	struct store *s;
	int err;

	if (argc < 3) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "profiles delete",
			  msg_text(MSG_PROFILES_WORD_ID), "profiles");
		return EXIT_REFUSED;
	}
	if (argc > 3) {
		msg_error(MSG_USAGE_EXTRA_ARGUMENT, "profiles delete", argv[3]);
		return EXIT_REFUSED;
	}
	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	err = store__delete_profile(s, argv[2]);
	store__close(s);
	if (err == -ENOENT) {
		msg_error(MSG_SHOW_NO_SUCH_PROFILE, argv[2]);
		return EXIT_FAIL;
	}
	if (err) {
		msg_error(MSG_PROFILES_DELETE_FAILED, argv[2], strerror(-err));
		return EXIT_FAIL;
	}
	if (env->json)
		return cli_print_json(json_pack("{s:o}", "deleted", json_text(argv[2]))) ?
			       EXIT_FAIL : EXIT_OK;
	msg_print(MSG_PROFILES_DELETED, argv[2]);
	return EXIT_OK;
}

int cmd_profiles(int argc, char **argv, const struct cli_env *env)
{
	struct profile_entry *entries;
	struct store *s;
	size_t n;
	int err;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_PROFILES);
		return EXIT_OK;
	}
	if (argc > 1 && strcmp(argv[1], "delete") == 0)
		return profiles_delete(argc, argv, env);
	if (argc > 1 && strcmp(argv[1], "list") == 0) {
		argv++;
		argc--;
	}
	if (argc > 1) {
		if (argv[1][0] == '-' && argv[1][1])
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "profiles", argv[1], "profiles");
		else
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "profiles", argv[1]);
		return EXIT_REFUSED;
	}

	s = cli_open_store_read(env);
	if (!s)
		return EXIT_FAIL;
	err = store__list_profiles(s, &entries, &n);
	if (err) {
		msg_error(MSG_PROFILES_LIST_FAILED, store__dir(s), strerror(-err));
		store__close(s);
		return EXIT_FAIL;
	}
	store__close(s);

	if (env->json)
		err = cli_print_json(views__profiles(entries, n, NULL));
	else
		print_entries(entries, n);
	profile_entries__free(entries, n);
	return err ? EXIT_FAIL : EXIT_OK;
}
