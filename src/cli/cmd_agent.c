// SPDX-License-Identifier: MIT
/*
 * slideops agent --workspace URL [--enrol-token TOKEN] [--name NAME] [--data DIR]
 *                [--ca-file FILE] [--spool-max-mb MB] [--spool-max-days DAYS]:
 * a server's resident agent (src/agent), in the foreground until SIGINT or SIGTERM.
 */
#include <signal.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/workspace_url.h"
#include "cli/cli.h"
#include "util/messages.h"

#define SPOOL_MAX_MB 1048576L
#define SPOOL_MAX_DAYS 3650L

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

int cmd_agent(int argc, char **argv, const struct cli_env *env)
{
	struct agent_options o = { .data = env->data_dir ? env->data_dir : AGENT_DEFAULT_DATA };
	struct sigaction sa = { .sa_handler = on_signal };
	bool bad = false;
	const char *v;
	long n;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_AGENT_HELP);
		return EXIT_OK;
	}
	for (int i = 1; i < argc && !bad; i++) {
		if ((v = cli_option_value(argc, argv, &i, NULL, "--workspace", &bad))) {
			o.workspace = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--enrol-token", &bad))) {
			o.enrol_token = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--name", &bad))) {
			o.name = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--ca-file", &bad))) {
			o.ca_file = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--spool-max-mb", &bad))) {
			if (cli_parse_long("agent", "--spool-max-mb", v, 1, SPOOL_MAX_MB, &n))
				return EXIT_REFUSED;
			o.spool_max_bytes = (uint64_t)n << 20;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--spool-max-days",
						 &bad))) {
			if (cli_parse_long("agent", "--spool-max-days", v, 1, SPOOL_MAX_DAYS, &n))
				return EXIT_REFUSED;
			o.spool_max_age_s = (uint64_t)n * 24 * 3600;
		} else if (bad) {
			break;
		} else if (argv[i][0] == '-') {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "agent", argv[i], "agent");
			return EXIT_REFUSED;
		} else {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "agent", argv[i]);
			return EXIT_REFUSED;
		}
	}
	if (bad)
		return EXIT_REFUSED;
	if (!o.workspace) {
		msg_error(MSG_AGENT_MISSING_WORKSPACE);
		return EXIT_REFUSED;
	}
	/* Decided on the host the URL parses to, before anything connects. */
	if (workspace_url__check(o.workspace)) {
		msg_error(MSG_AGENT_BAD_WORKSPACE, o.workspace);
		return EXIT_REFUSED;
	}
	if (o.enrol_token && !*o.enrol_token)
		o.enrol_token = NULL;
	if (o.name && !*o.name)
		o.name = NULL;
	/* No SA_RESTART: a signal cuts waits short, and every loop looks at quit. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return agent__run(&o, &quit);
}
