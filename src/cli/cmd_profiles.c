// SPDX-License-Identifier: MIT
/*
 * slideops profiles: the workspace's past profiles, newest first, each with its id (for
 * `show` and `compare`) and its answer. Reads the index only, never a profile blob, so
 * it stays quick however many profiles the workspace keeps.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/json_text.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/text.h"
#include "util/clock.h"
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
		/* A server's name is its agent's to choose: shown escaped. */
		char *server = text__escape(e[i].server);

		views__format_time(e[i].started_at_ns, when);
		msg_print(MSG_PROFILES_ROW, e[i].id, question__id(e[i].question),
			  server ? server : "?", when, whole_seconds(e[i].duration_ns));
		free(server);
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

/* "30d", "12h", "90m", "3600s": seconds, or -1 when it is not an age. */
static long long parse_age(const char *text)
{
	static const struct {
		char unit;
		long long seconds;
	} units[] = { { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };
	char *end;
	long long n;

	errno = 0;
	n = strtoll(text ? text : "", &end, 10);
	if (!text || end == text || errno || n <= 0 || !end[0] || end[1])
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit)
			return n <= LLONG_MAX / units[i].seconds / 1000000000LL ?
				       n * units[i].seconds : -1;
	return -1;
}

/* slideops profiles prune --older-than AGE: in bounded batches, oldest first. */
static int profiles_prune(int argc, char **argv, const struct cli_env *env)
{
	const char *age_text = NULL, *v;
	long long age = -1;
	char when[32];
	uint64_t deleted = 0;
	int64_t before_ns;
	struct store *s;
	bool bad = false;
	int err;

	for (int i = 2; i < argc && !bad; i++) {
		if ((v = cli_option_value(argc, argv, &i, NULL, "--older-than", &bad)))
			age_text = v;
		else if (bad)
			break;
		else if (argv[i][0] == '-')
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "profiles prune", argv[i], "profiles");
		else
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "profiles prune", argv[i]);
		if (!v && !bad)
			return EXIT_REFUSED;
	}
	if (bad)
		return EXIT_REFUSED;
	if (!age_text) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "profiles prune", "--older-than AGE",
			  "profiles");
		return EXIT_REFUSED;
	}
	age = parse_age(age_text);
	if (age < 0) {
		msg_error(MSG_PROFILES_PRUNE_BAD_AGE, age_text);
		return EXIT_REFUSED;
	}
	before_ns = clock__realtime_ns() - age * 1000000000LL;
	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	err = store__prune_profiles(s, before_ns, 0, NULL, NULL, &deleted);
	if (err)
		msg_error(MSG_PROFILES_PRUNE_FAILED, store__where(s), strerror(-err),
			  (unsigned long long)deleted);
	store__close(s);
	if (err)
		return EXIT_FAIL;
	views__format_time(before_ns, when);
	if (env->json)
		return cli_print_json(json_pack("{s:I, s:o}", "deleted", (json_int_t)deleted,
						"before", json_text(when))) ?
			       EXIT_FAIL : EXIT_OK;
	msg_print(MSG_PROFILES_PRUNED, (unsigned long long)deleted, when);
	return EXIT_OK;
}

/* Seconds as the largest whole unit: "30d", "12h", "90m", "45s". */
static void format_age(long long seconds, char out[32])
{
	if (seconds % 86400 == 0)
		snprintf(out, 32, "%lldd", seconds / 86400);
	else if (seconds % 3600 == 0)
		snprintf(out, 32, "%lldh", seconds / 3600);
	else if (seconds % 60 == 0)
		snprintf(out, 32, "%lldm", seconds / 60);
	else
		snprintf(out, 32, "%llds", seconds);
}

/* slideops profiles retention [AGE | off]: the workspace's setting, shown or set. */
static int profiles_retention(int argc, char **argv, const struct cli_env *env)
{
	long long age = -1;
	int64_t keep = 0;
	struct store *s;
	char text[32];
	int err;

	if (argc > 3) {
		msg_error(MSG_USAGE_EXTRA_ARGUMENT, "profiles retention", argv[3]);
		return EXIT_REFUSED;
	}
	if (argc == 3) {
		age = strcmp(argv[2], "off") == 0 ? 0 : parse_age(argv[2]);
		if (age < 0) {
			msg_error(MSG_PROFILES_RETENTION_BAD_AGE, argv[2]);
			return EXIT_REFUSED;
		}
	}
	s = age >= 0 ? cli_open_store(env) : cli_open_store_read(env);
	if (!s)
		return EXIT_FAIL;
	err = age >= 0 ? store__set_retention(s, age) : store__retention(s, &keep);
	if (err)
		msg_error(MSG_PROFILES_RETENTION_FAILED, store__where(s), strerror(-err));
	store__close(s);
	if (err)
		return EXIT_FAIL;
	if (age >= 0)
		keep = age;
	if (env->json)
		return cli_print_json(json_pack("{s:o}", "retention_seconds",
						keep ? json_integer(keep) : json_null())) ?
			       EXIT_FAIL : EXIT_OK;
	format_age(keep, text);
	if (keep)
		msg_print(MSG_PROFILES_RETENTION, text);
	else
		msg_print(MSG_PROFILES_RETENTION_NONE);
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
	if (argc > 1 && strcmp(argv[1], "prune") == 0)
		return profiles_prune(argc, argv, env);
	if (argc > 1 && strcmp(argv[1], "retention") == 0)
		return profiles_retention(argc, argv, env);
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
		msg_error(MSG_PROFILES_LIST_FAILED, store__where(s), strerror(-err));
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
