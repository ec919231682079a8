// SPDX-License-Identifier: MIT
/*
 * slideops capture QUESTION [-d SECONDS] [-F HZ] [--flamegraph FILE]: profiles the whole
 * server, keeps the profile in the workspace, and prints its id, its answer, the owner
 * groups and the stripped-binary card (or DESIGN §8's document with --json).
 * Ctrl-C (or SIGTERM) ends the sampling early; what was captured is kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/flamegraph.h"
#include "capture/capture.h"
#include "cli/cli.h"
#include "proc/owner.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symbolize.h"
#include "util/messages.h"

#define SECONDS_DEFAULT 30
#define SECONDS_MAX 86400
#define HZ_DEFAULT 99
#define HZ_MAX 1000
#define FUNCTIONS_SHOWN 10

struct capture_args {
	int question;
	long seconds, hz;
	const char *flamegraph;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* No SA_RESTART: the wait for the ring buffer returns at once and sees the flag. */
static void stop_signals(bool install)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = install ? on_stop_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int parse_args(int argc, char **argv, struct capture_args *a)
{
	const char *question = NULL, *v;
	bool bad = false;

	*a = (struct capture_args){ .question = -1, .seconds = SECONDS_DEFAULT, .hz = HZ_DEFAULT };
	for (int i = 1; i < argc; i++) {
		if ((v = cli_option_value(argc, argv, &i, "-d", "--duration", &bad))) {
			if (cli_parse_long(argv[0], "--duration", v, 1, SECONDS_MAX, &a->seconds))
				return -1;
		} else if ((v = cli_option_value(argc, argv, &i, "-F", "--frequency", &bad))) {
			if (cli_parse_long(argv[0], "--frequency", v, 1, HZ_MAX, &a->hz))
				return -1;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--flamegraph", &bad))) {
			a->flamegraph = v;
		} else if (bad) {
			return -1;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, argv[0], argv[i], argv[0]);
			return -1;
		} else if (!question) {
			question = argv[i];
		} else {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, argv[0], argv[i]);
			return -1;
		}
	}
	if (!question) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, argv[0], msg_text(MSG_CAPTURE_WORD_QUESTION),
			  argv[0]);
		return -1;
	}
	a->question = question__parse(question);
	if (a->question < 0) {
		msg_error(MSG_CAPTURE_UNKNOWN_QUESTION, question);
		return -1;
	}
	return 0;
}

/* The workspace's Services, so that their processes are grouped by them. */
static struct owner_resolver *owners__load(struct store *s)
{
	struct owner_resolver *owners;
	struct service *svc = NULL;
	size_t n = 0;
	int err;

	err = store__list_services(s, &svc, &n);
	if (err) {
		msg_error(MSG_CAPTURE_SERVICES_FAILED, strerror(-err));
		svc = NULL;
		n = 0;
	}
	owners = owner_resolver__new("/proc", "/", svc, n);
	services__free(svc, n);
	if (!owners)
		msg_error(MSG_OUT_OF_MEMORY);
	return owners;
}

static void print_text(const char *id, const struct analysis *a, const char *flamegraph)
{
	msg_print(MSG_CAPTURE_PROFILE_ID, id);
	analysis__print_report(a, stdout, FUNCTIONS_SHOWN);
	if (flamegraph) {
		fputc('\n', stdout);
		msg_print(MSG_CAPTURE_FLAMEGRAPH, flamegraph);
	}
}

static int print_json(const char *id, const struct analysis *a, const char *flamegraph)
{
	json_t *doc = analysis__to_json(a, id);

	if (doc && flamegraph && json_object_set_new(doc, "flamegraph", json_string(flamegraph))) {
		json_decref(doc);
		doc = NULL;
	}
	if (!doc) {
		msg_error(MSG_OUT_OF_MEMORY);
		return -ENOMEM;
	}
	cli_print_json(doc);
	return 0;
}

/* Names, answer, the workspace, then what the user asked to see. */
static int finish(struct store *s, struct profile *p, const struct capture_args *args,
		  const struct cli_env *env)
{
	char id[STORE_ID_MAX];
	struct analysis *a;
	int err;

	err = store__symbolize(s, p);
	if (err) {
		msg_error(MSG_CAPTURE_SYMBOLIZE_FAILED, strerror(-err));
		return EXIT_FAIL;
	}
	a = analysis__new(p);
	if (!a) {
		msg_error(MSG_CAPTURE_ANALYSIS_FAILED, strerror(errno));
		return EXIT_FAIL;
	}
	err = store__save_profile(s, p, a->answer, id);
	if (err) {
		msg_error(MSG_CAPTURE_SAVE_FAILED, store__dir(s), strerror(-err));
		goto out_free;
	}
	if (args->flamegraph) {
		err = flamegraph__write_file(p, args->flamegraph, FLAMEGRAPH_COLOUR_LANGUAGE);
		if (err)
			msg_error(MSG_CAPTURE_FLAMEGRAPH_FAILED, args->flamegraph, strerror(-err));
	}
	if (env->json) {
		int e = print_json(id, a, err ? NULL : args->flamegraph);

		if (!err)
			err = e;
	} else {
		print_text(id, a, err ? NULL : args->flamegraph);
	}

out_free:
	analysis__free(a);
	return err ? EXIT_FAIL : EXIT_OK;
}

int cmd_capture(int argc, char **argv, const struct cli_env *env)
{
	struct capture_options opts = { 0 };
	struct capture_args args;
	struct profile *p = NULL;
	struct store *s;
	int err, rc;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_CAPTURE);
		return EXIT_OK;
	}
	if (parse_args(argc, argv, &args))
		return EXIT_REFUSED;
	/* Said before anything is opened: the reason a capture cannot run is the news. */
	if (capture__preflight(args.question))
		return EXIT_FAIL;
	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	opts.question = args.question;
	opts.seconds = args.seconds;
	opts.hz = args.hz;
	opts.progress = env->tty;
	opts.stop = &stop_requested;
	opts.store = s;
	opts.owners = owners__load(s);
	if (!opts.owners) {
		store__close(s);
		return EXIT_FAIL;
	}

	stop_signals(true);
	err = capture__run(&opts, &p);
	stop_signals(false);
	rc = err ? EXIT_FAIL : finish(s, p, &args, env);

	profile__free(p);
	owner_resolver__free(opts.owners);
	store__close(s);
	return rc;
}
