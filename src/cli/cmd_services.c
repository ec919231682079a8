// SPDX-License-Identifier: MIT
/*
 * slideops services add NAME (--unit U | --container C | --exe PATH) | list | remove NAME
 *
 * The workspace's Services: what the owner rules put first (docs/architecture.md). Names are kept
 * simple because they become group labels, folded-stack roots and JSON values.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "util/json_text.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/messages.h"

#define SERVICE_NAME_MAX 64

static const char *const match_keys[] = {
	[SERVICE_BY_UNIT] = "unit",
	[SERVICE_BY_CONTAINER] = "container",
	[SERVICE_BY_EXE] = "exe",
};

static const enum msg_id match_words[] = {
	[SERVICE_BY_UNIT] = MSG_SERVICE_WORD_UNIT,
	[SERVICE_BY_CONTAINER] = MSG_SERVICE_WORD_CONTAINER,
	[SERVICE_BY_EXE] = MSG_SERVICE_WORD_EXE,
};

static bool valid_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > SERVICE_NAME_MAX || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Unit names and container names have no spaces; a container may be named
 * "POD/CONTAINER" (kubernetes) or "/redis" (docker's own spelling). */
static bool valid_value(enum service_match m, const char *v)
{
	if (!*v || !printable(v))
		return false;
	if (m == SERVICE_BY_EXE)
		return true;
	if (strchr(v, ' ') || (m == SERVICE_BY_UNIT && strchr(v, '/')))
		return false;
	return true;
}

/* Whether anything on this server matches svc now: a unit known to systemd, a program
 * that exists. Containers come and go; they are not checked. -1 when not checked. */
static int service_matches_now(const struct service *svc)
{
	char path[PATH_MAX];
	const char *dot;

	if (svc->match == SERVICE_BY_EXE)
		return access(svc->value, X_OK) == 0;
	if (svc->match != SERVICE_BY_UNIT)
		return -1;
	dot = strrchr(svc->value, '.');
	snprintf(path, sizeof(path), "/run/systemd/units/invocation:%s%s", svc->value,
		 dot ? "" : ".service");
	if (access(path, F_OK) == 0)
		return 1;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/system.slice/%s%s", svc->value,
		 dot ? "" : ".service");
	return access(path, F_OK) == 0;
}

static json_t *service_json(const struct service *s)
{
	return json_pack("{s:o, s:s, s:o}", "name", json_text(s->name), "match",
			 match_keys[s->match], "value", json_text(s->value));
}

static int services_add(int argc, char **argv, const struct cli_env *env)
{
	struct service svc = { 0 };
	struct store *st;
	const char *name = NULL;
	int nmatch = 0, err, matches;

	for (int i = 2; i < argc; i++) {
		static const struct {
			const char *opt;
			enum service_match match;
		} opts[] = { { "--unit", SERVICE_BY_UNIT },
			     { "--container", SERVICE_BY_CONTAINER },
			     { "--exe", SERVICE_BY_EXE } };
		const char *arg = argv[i], *value = NULL;
		bool known = false;

		for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
			size_t len = strlen(opts[o].opt);

			if (strncmp(arg, opts[o].opt, len) != 0 || (arg[len] && arg[len] != '='))
				continue;
			known = true;
			if (arg[len] == '=') {
				value = arg + len + 1;
			} else if (i + 1 < argc) {
				value = argv[++i];
			} else {
				msg_error(MSG_USAGE_MISSING_VALUE, "services add", opts[o].opt);
				return EXIT_REFUSED;
			}
			svc.match = opts[o].match;
			svc.value = (char *)value;
			nmatch++;
			if (!valid_value(svc.match, value)) {
				msg_error(MSG_SERVICE_BAD_VALUE, opts[o].opt);
				return EXIT_REFUSED;
			}
		}
		if (known)
			continue;
		if (arg[0] == '-' && arg[1]) {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "services add", arg, "services");
			return EXIT_REFUSED;
		}
		if (name) {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "services add", arg);
			return EXIT_REFUSED;
		}
		name = arg;
	}
	if (!name) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "services add",
			  msg_text(MSG_SERVICE_WORD_NAME_ARG), "services");
		return EXIT_REFUSED;
	}
	if (!valid_name(name)) {
		msg_error(MSG_SERVICE_BAD_NAME, name);
		return EXIT_REFUSED;
	}
	if (nmatch != 1) {
		msg_error(MSG_SERVICE_NEEDS_ONE_MATCH);
		return EXIT_REFUSED;
	}
	if (svc.match == SERVICE_BY_EXE && svc.value[0] != '/') {
		msg_error(MSG_SERVICE_BAD_EXE, svc.value);
		return EXIT_REFUSED;
	}
	svc.name = (char *)name;

	st = cli_open_store(env);
	if (!st)
		return EXIT_FAIL;
	err = store__add_service(st, &svc);
	store__close(st);
	if (err == -EEXIST) {
		msg_error(MSG_SERVICE_EXISTS, name);
		return EXIT_REFUSED;
	}
	if (err) {
		msg_error(MSG_SERVICE_ADD_FAILED, name, strerror(-err));
		return EXIT_FAIL;
	}
	matches = service_matches_now(&svc);
	if (env->json) {
		json_t *doc = json_pack("{s:o}", "added", service_json(&svc));

		if (doc && matches >= 0)
			json_object_set_new(doc, "matches_now", json_boolean(matches));
		if (cli_print_json(doc))
			return EXIT_FAIL;
	} else {
		msg_print(MSG_SERVICE_ADDED, name, msg_text(match_words[svc.match]), svc.value,
			  name);
		/* Said, not refused: a Service may be declared before it is deployed. */
		if (matches == 0 && svc.match == SERVICE_BY_UNIT)
			msg_print(MSG_SERVICE_NO_SUCH_UNIT, svc.value, name);
		else if (matches == 0)
			msg_print(MSG_SERVICE_NO_SUCH_EXE, svc.value, name);
	}
	return EXIT_OK;
}

static int services_list(int argc, char **argv, const struct cli_env *env)
{
	struct service *svc;
	struct store *st;
	json_t *list;
	size_t n;
	int err;

	if (argc > 2) {
		msg_error(MSG_USAGE_EXTRA_ARGUMENT, "services list", argv[2]);
		return EXIT_REFUSED;
	}
	st = cli_open_store_read(env);
	if (!st)
		return EXIT_FAIL;
	err = store__list_services(st, &svc, &n);
	store__close(st);
	if (err) {
		msg_error(MSG_SERVICE_LIST_FAILED, strerror(-err));
		return EXIT_FAIL;
	}
	if (env->json) {
		list = json_array();
		for (size_t i = 0; list && i < n; i++) {
			if (json_array_append_new(list, service_json(&svc[i]))) {
				json_decref(list);
				list = NULL;
			}
		}
		err = cli_print_json(list ? json_pack("{s:o}", "services", list) : NULL);
	} else if (!n) {
		msg_print(MSG_SERVICE_LIST_EMPTY);
	} else {
		msg_print(MSG_SERVICE_LIST_HEADER, msg_text(MSG_SERVICE_WORD_NAME),
			  msg_text(MSG_SERVICE_WORD_MATCH), msg_text(MSG_SERVICE_WORD_VALUE));
		for (size_t i = 0; i < n; i++)
			msg_print(MSG_SERVICE_LIST_LINE, svc[i].name,
				  msg_text(match_words[svc[i].match]), svc[i].value);
	}
	services__free(svc, n);
	return err ? EXIT_FAIL : EXIT_OK;
}

static int services_remove(int argc, char **argv, const struct cli_env *env)
{
	struct service *svc = NULL;
	struct store *st;
	json_t *removed = NULL;
	size_t n = 0;
	int err;

	if (argc < 3) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "services remove",
			  msg_text(MSG_SERVICE_WORD_NAME_ARG), "services");
		return EXIT_REFUSED;
	}
	if (argc > 3) {
		msg_error(MSG_USAGE_EXTRA_ARGUMENT, "services remove", argv[3]);
		return EXIT_REFUSED;
	}
	st = cli_open_store(env);
	if (!st)
		return EXIT_FAIL;
	/* What it matched, for the JSON document; the removal itself decides. */
	if (env->json && store__list_services(st, &svc, &n) == 0) {
		for (size_t i = 0; i < n && !removed; i++)
			if (strcmp(svc[i].name, argv[2]) == 0)
				removed = service_json(&svc[i]);
		services__free(svc, n);
	}
	err = store__remove_service(st, argv[2]);
	store__close(st);
	if (err == -ENOENT) {
		json_decref(removed);
		msg_error(MSG_SERVICE_NOT_FOUND, argv[2]);
		return EXIT_REFUSED;
	}
	if (err) {
		json_decref(removed);
		msg_error(MSG_SERVICE_REMOVE_FAILED, argv[2], strerror(-err));
		return EXIT_FAIL;
	}
	if (env->json) {
		if (!removed)
			removed = json_pack("{s:o}", "name", json_text(argv[2]));
		if (cli_print_json(json_pack("{s:o}", "removed", removed)))
			return EXIT_FAIL;
	} else {
		msg_print(MSG_SERVICE_REMOVED, argv[2]);
	}
	return EXIT_OK;
}

int cmd_services(int argc, char **argv, const struct cli_env *env)
{
	int (*run)(int, char **, const struct cli_env *) = NULL;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_SERVICES);
		return EXIT_OK;
	}
	if (argc < 2) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, "services",
			  msg_text(MSG_SERVICE_WORD_SUBCOMMAND), "services");
		return EXIT_REFUSED;
	}
	if (strcmp(argv[1], "add") == 0)
		run = services_add;
	else if (strcmp(argv[1], "list") == 0)
		run = services_list;
	else if (strcmp(argv[1], "remove") == 0)
		run = services_remove;
	if (!run) {
		msg_error(MSG_SERVICE_UNKNOWN_SUBCOMMAND, argv[1]);
		return EXIT_REFUSED;
	}
	return run(argc, argv, env);
}
