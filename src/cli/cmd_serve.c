// SPDX-License-Identifier: MIT
/*
 * slideops serve [--listen ADDR:PORT] [--tls-cert FILE --tls-key FILE | --insecure-http]
 *               [--allow-host NAME]...:
 * the workspace server and its web UI (src/server), until SIGINT or SIGTERM.
 */
#include <signal.h>
#include <string.h>

#include "cli/cli.h"
#include "server/server.h"
#include "store/store.h"
#include "util/messages.h"

static volatile sig_atomic_t stop;

int cmd_serve(int argc, char **argv, const struct cli_env *env)
{
	struct server_options o = { .data_dir = env->data_dir ? env->data_dir :
							       store__default_dir() };
	const char *hosts[SERVER_ALLOWED_HOSTS_MAX + 1];
	bool bad = false;
	struct store *s;
	const char *v;

	if (cli_wants_help(argc, argv)) {
		msg_print(MSG_SERVE_HELP);
		return EXIT_OK;
	}
	for (int i = 1; i < argc && !bad; i++) {
		if ((v = cli_option_value(argc, argv, &i, "-l", "--listen", &bad))) {
			o.listen = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--tls-cert", &bad))) {
			o.tls_cert = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--tls-key", &bad))) {
			o.tls_key = v;
		} else if ((v = cli_option_value(argc, argv, &i, NULL, "--allow-host", &bad))) {
			/* One past the most: server__run says how many it takes. */
			if (o.nallowed_hosts <= SERVER_ALLOWED_HOSTS_MAX)
				hosts[o.nallowed_hosts++] = v;
			o.allowed_hosts = hosts;
		} else if (bad) {
			break;
		} else if (strcmp(argv[i], "--insecure-http") == 0) {
			o.insecure_http = true;
		} else if (argv[i][0] == '-') {
			msg_error(MSG_USAGE_UNKNOWN_OPTION, "serve", argv[i], "serve");
			return EXIT_REFUSED;
		} else {
			msg_error(MSG_USAGE_EXTRA_ARGUMENT, "serve", argv[i]);
			return EXIT_REFUSED;
		}
	}
	if (bad)
		return EXIT_REFUSED;
	/* The workspace opened (made, migrated) once before serving, so that a database
	 * that cannot be used is said as every command says it. */
	s = cli_open_store(env);
	if (!s)
		return EXIT_FAIL;
	store__close(s);
	return server__run(&o, &stop) ? EXIT_FAIL : EXIT_OK;
}
