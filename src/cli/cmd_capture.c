// SPDX-License-Identifier: MIT
/*
 * slideops capture QUESTION [-d SECONDS] [-F HZ] [--flamegraph FILE]: profiles the whole
 * server, keeps the profile in the workspace, and prints its id, its answer, the owner
 * groups and the stripped-binary card (or the document of docs/architecture.md with --json).
 * Ctrl-C (or SIGTERM) ends the sampling early; what was captured is kept.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "views/analysis_view.h"
#include "analysis/flamegraph.h"
#include "util/format.h"
#include "util/json_text.h"
#include "capture/capture.h"
#include "pipeline/pipeline.h"
#include "cli/cli.h"
#include "proc/owner.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symbolize.h"
#include "util/clock.h"
#include "util/file.h"
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

/*
 * The first SIGINT or SIGTERM ends sampling and the profile is still saved; they stay
 * handled until it is. SA_RESETHAND makes a second one stop at once, as the signal does
 * by default: the kernel closes every descriptor, so nothing stays attached, and a
 * profile is only ever listed once it is whole. No SA_RESTART: the wait for the ring
 * buffer returns at once and sees the flag.
 */
static void stop_signals(bool install)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = install ? on_stop_signal : SIG_DFL;
	sa.sa_flags = install ? SA_RESETHAND : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* What the pipeline says while it runs: a countdown and progress on a terminal, every
 * error on stderr. */
struct capture_view {
	bool tty;
	bool said_stopping;
	bool line_open; /* a progress line is on the terminal */
	enum question question;
};

static void view_clear(struct capture_view *v)
{
	if (v->line_open) {
		fputs(msg_text(MSG_CAPTURE_PROGRESS_CLEAR), stderr);
		v->line_open = false;
	}
}

static void on_progress(void *ctx, const struct pipeline_progress *pr)
{
	struct capture_view *v = ctx;

	if (!v->tty)
		return;
	if (stop_requested && pr->phase == PIPELINE_SAMPLING) {
		if (!v->said_stopping)
			fputs(msg_text(MSG_CAPTURE_STOPPING), stderr);
		v->said_stopping = v->line_open = true;
	} else if (pr->phase == PIPELINE_SAMPLING) {
		uint64_t left_ms = pr->total > pr->done ? pr->total - pr->done : 0;
		char line[256];

		msg_format(line, sizeof(line), MSG_CAPTURE_PROGRESS, question__id(v->question),
			   (unsigned long long)((left_ms + 999) / 1000));
		fputs(line, stderr);
		v->line_open = true;
	} else if (pr->phase == PIPELINE_READING && pr->total) {
		char line[256];

		msg_format(line, sizeof(line), MSG_CAPTURE_READING, (unsigned long long)pr->done,
			   (unsigned long long)pr->total);
		view_clear(v);
		fputs(line, stderr);
		v->line_open = true;
	} else {
		view_clear(v);
	}
	fflush(stderr);
}

static void on_error(void *ctx, enum msg_id id, const char *text)
{
	view_clear(ctx);
	msg_error_text(id, text);
}

static int parse_args(int argc, char **argv, struct capture_args *a)
{
	char ids[QUESTION_LIST_MAX], word[QUESTION_LIST_MAX + 32];
	const char *question = NULL, *v;
	bool bad = false, duration = false;

	*a = (struct capture_args){ .question = -1, .seconds = SECONDS_DEFAULT, .hz = HZ_DEFAULT };
	for (int i = 1; i < argc; i++) {
		if ((v = cli_option_value(argc, argv, &i, "-d", "--duration", &bad))) {
			if (cli_parse_long(argv[0], "--duration", v, 1, SECONDS_MAX, &a->seconds))
				return -1;
			duration = true;
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
	question__list_ids(ids, sizeof(ids));
	if (!question) {
		msg_format(word, sizeof(word), MSG_CAPTURE_WORD_QUESTION, ids);
		msg_error(MSG_USAGE_MISSING_ARGUMENT, argv[0], word, argv[0]);
		return -1;
	}
	a->question = question__parse(question);
	if (a->question < 0) {
		msg_error(MSG_CAPTURE_UNKNOWN_QUESTION, question, ids);
		return -1;
	}
	if (duration && question__is_snapshot(a->question)) {
		msg_error(MSG_CAPTURE_SNAPSHOT_DURATION, question);
		return -1;
	}
	return 0;
}

static void print_text(const char *id, const struct analysis *a, const char *flamegraph)
{
	msg_print(MSG_CAPTURE_PROFILE_ID, id);
	analysis_view__print_report(a, stdout, FUNCTIONS_SHOWN);
	if (flamegraph) {
		fputc('\n', stdout);
		msg_print(MSG_CAPTURE_FLAMEGRAPH, flamegraph);
	}
}

static int print_json(const char *id, const struct analysis *a, const char *flamegraph)
{
	json_t *doc = analysis_view__to_json(a, id);

	if (doc && flamegraph && json_object_set_new(doc, "flamegraph", json_text(flamegraph))) {
		json_decref(doc);
		doc = NULL;
	}
	if (!doc) {
		msg_error(MSG_OUT_OF_MEMORY);
		return -ENOMEM;
	}
	return cli_print_json(doc);
}

/* What the user asked to see of a capture the workspace keeps as id. */
static int finish(const char *id, const struct pipeline_result *r,
		  const struct capture_args *args, const struct cli_env *env)
{
	int err = 0;

	if (args->flamegraph) {
		err = flamegraph__write_file(r->profile, args->flamegraph,
					     FLAMEGRAPH_COLOUR_LANGUAGE);
		if (err)
			msg_error(MSG_CAPTURE_FLAMEGRAPH_FAILED, args->flamegraph, strerror(-err));
	}
	if (env->json) {
		int e = print_json(id, r->analysis, err ? NULL : args->flamegraph);

		if (!err)
			err = e;
	} else {
		print_text(id, r->analysis, err ? NULL : args->flamegraph);
	}
	return err ? EXIT_FAIL : EXIT_OK;
}

int cmd_capture(int argc, char **argv, const struct cli_env *env)
{
	struct capture_view view = { .tty = env->tty };
	struct pipeline_callbacks cb = { .progress = on_progress, .error = on_error, .ctx = &view };
	struct workspace_capture wc;
	struct pipeline_result result;
	struct capture_args args;
	char id[STORE_ID_MAX];
	struct store *s;
	int err, rc;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_HELP_CAPTURE);
		return EXIT_OK;
	}
	if (parse_args(argc, argv, &args))
		return EXIT_REFUSED;
	view.question = args.question;
	/* Said before anything is opened: the reason a capture cannot run is the news. */
	if (capture__preflight(args.question, &(struct report){ .error = on_error, .ctx = &view }))
		return EXIT_FAIL;
	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	/* Before sampling: a flame graph that could not be written is not captured for. */
	if (args.flamegraph) {
		err = file__check_output(args.flamegraph);
		if (err) {
			msg_error(MSG_CAPTURE_OUTPUT_UNUSABLE, args.flamegraph, strerror(-err));
			store__close(s);
			return EXIT_FAIL;
		}
	}
	wc = (struct workspace_capture){ .question = args.question, .seconds = args.seconds,
					 .hz = args.hz };
	stop_signals(true);
	/* It refuses a workspace it could not keep the profile in before it samples. */
	err = pipeline__capture_workspace(s, &wc, &cb, &stop_requested, &result, id);
	rc = err ? EXIT_FAIL : finish(id, &result, &args, env);
	stop_signals(false);

	pipeline_result__release(&result);
	store__close(s);
	return rc;
}
