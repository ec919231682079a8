// SPDX-License-Identifier: MIT
/*
 * slideops show ID: a stored profile as it reads today. Names are looked up now, so a
 * debug-symbol upload names profiles captured before it; the stored answer is refreshed
 * to match. Prints the answer, the stripped-binary card, the groups and the top
 * functions; writes the flame graph and exports on request.
 */
#include "cli/cmd_show.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "views/analysis_view.h"
#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "util/format.h"
#include "util/json_text.h"
#include "cli/cli.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "store/store.h"
#include "symbols/symbolize.h"
#include "util/file.h"
#include "util/messages.h"
#include "views/views.h"

#define TOP_DEFAULT 10
#define TOP_MAX 100000

enum export_format {
	EXPORT_NONE,
	EXPORT_PPROF,
	EXPORT_FOLDED,
};

static const char *const export_names[] = {
	[EXPORT_NONE] = "",
	[EXPORT_PPROF] = "pprof",
	[EXPORT_FOLDED] = "folded",
};

struct show_opts {
	const char *id;
	long top;
	bool top_given;
	const char *flamegraph;
	enum flamegraph_colour colour;
	enum export_format export;
	const char *export_path;
};

int show__load(struct store *s, const char *id, struct profile **out_p, struct analysis **out_a)
{
	struct view_error e;

	if (views__load_profile(s, id, out_p, out_a, &e)) {
		cli_print_view_error(&e);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int show__parse(int argc, char **argv, struct show_opts *o)
{
	bool bad = false;
	const char *v;

	*o = (struct show_opts){ .top = TOP_DEFAULT, .colour = FLAMEGRAPH_COLOUR_LANGUAGE };
	for (int i = 1; i < argc && !bad; i++) {
		if ((v = cli_option_value(argc, argv, &i, NULL, "--top", &bad))) {
			if (cli_parse_long(argv[0], "--top", v, 0, TOP_MAX, &o->top))
				return -1;
			o->top_given = true;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--flamegraph", &bad))) {
			o->flamegraph = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--color", &bad)) ||
			   (!bad && (v = cli_option_value(argc, argv, &i, NULL, "--colour", &bad)))) {
			int c = flamegraph_colour__parse(v);

			if (c < 0) {
				msg_error(MSG_SHOW_BAD_COLOUR, argv[0], v);
				return -1;
			}
			o->colour = (enum flamegraph_colour)c;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--export", &bad))) {
			if (strcmp(v, export_names[EXPORT_PPROF]) == 0) {
				o->export = EXPORT_PPROF;
			} else if (strcmp(v, export_names[EXPORT_FOLDED]) == 0) {
				o->export = EXPORT_FOLDED;
			} else {
				msg_error(MSG_SHOW_BAD_EXPORT, argv[0], v);
				return -1;
			}
			if (i + 1 >= argc) {
				msg_error(MSG_USAGE_MISSING_VALUE, argv[0], "--export");
				return -1;
			}
			o->export_path = argv[++i];
		} else if (bad) {
			break;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, argv[0], argv[i], argv[0]);
			return -1;
		} else if (!o->id) {
			o->id = argv[i];
		} else {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, argv[0], argv[i]);
			return -1;
		}
	}
	if (bad)
		return -1;
	if (!o->id) {
		msg_error(MSG_USAGE_MISSING_ARGUMENT, argv[0], msg_text(MSG_SHOW_ARGUMENT_ID),
			  argv[0]);
		return -1;
	}
	return 0;
}

static void show__print(const char *id, const struct analysis *a, size_t top)
{
	const struct profile *p = a->profile;
	char started[32], over[FORMAT_MAX];

	profile__format_started_at(p, started, sizeof(started));
	format_duration(p->header.duration_ns, over, sizeof(over));
	msg_print(MSG_SHOW_HEADER, id, question__title(p->header.question),
		  profile__str(p, p->header.hostname), started, over);
	fputc('\n', stdout);
	analysis_view__print_report(a, stdout, top);
}

static int show__write_files(const struct show_opts *o, struct profile *p, struct store *s)
{
	int err;

	if (o->flamegraph) {
		err = flamegraph__write_file(p, o->flamegraph, o->colour);
		if (err) {
			msg_error(MSG_SHOW_WRITE_FAILED, o->flamegraph, strerror(-err));
			return -1;
		}
	}
	if (o->export == EXPORT_PPROF) {
		/* Lines where the workspace keeps them (an agent's own server's, never another
		 * agent's); without, the export has names only. */
		struct server_names by_server;
		struct lines_lookup lines = store__profile_lines_lookup(&by_server, s, o->id);

		err = profile__add_lines(p, &lines);
		if (!err)
			err = pprof__write_file(p, true, o->export_path);
	} else if (o->export == EXPORT_FOLDED) {
		err = folded__write_file(p, o->export_path);
	} else {
		return 0;
	}
	if (err) {
		msg_error(MSG_SHOW_WRITE_FAILED, o->export_path, strerror(-err));
		return -1;
	}
	return 0;
}

int cmd_show(int argc, char **argv, const struct cli_env *env)
{
	struct analysis *a = NULL;
	struct profile *p = NULL;
	struct show_opts o;
	struct store *s;
	bool to_stdout;
	int rc;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_SHOW_HELP);
		return EXIT_OK;
	}
	if (show__parse(argc, argv, &o))
		return EXIT_REFUSED;
	s = cli_open_store_read(env);
	if (!s)
		return EXIT_FAIL;
	rc = show__load(s, o.id, &p, &a);
	if (rc)
		goto out_close;
	if (show__write_files(&o, p, s)) {
		rc = EXIT_FAIL;
		goto out_free;
	}
	/* A file written to standard output is the output: nothing else goes there. */
	to_stdout = (o.flamegraph && file__is_stdout(o.flamegraph)) ||
		    (o.export != EXPORT_NONE && file__is_stdout(o.export_path));
	if (to_stdout)
		goto out_free;
	if (env->json) {
		json_t *doc = o.top_given ? analysis_view__to_json_top(a, o.id, (size_t)o.top) :
					    analysis_view__to_json(a, o.id);

		if (doc && o.flamegraph)
			json_object_set_new(doc, "flamegraph", json_text(o.flamegraph));
		if (doc && o.export != EXPORT_NONE)
			json_object_set_new(doc, "export",
					    json_pack("{s:s, s:o}", "format",
						      export_names[o.export], "path",
						      json_text(o.export_path)));
		if (cli_print_json(doc))
			rc = EXIT_FAIL;
	} else {
		show__print(o.id, a, (size_t)o.top);
		if (o.flamegraph || o.export != EXPORT_NONE)
			fputc('\n', stdout);
		if (o.flamegraph)
			msg_print(MSG_SHOW_WROTE_FLAMEGRAPH, o.flamegraph);
		if (o.export != EXPORT_NONE)
			msg_print(MSG_SHOW_WROTE_EXPORT, export_names[o.export], o.export_path);
	}

out_free:
	analysis__free(a);
	profile__free(p);
out_close:
	store__close(s);
	return rc;
}
