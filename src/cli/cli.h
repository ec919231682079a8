/* SPDX-License-Identifier: MIT */
/*
 * What every subcommand shares. main.c takes the global options (--json, --data DIR,
 * --store URL) out of argv before dispatch, so a subcommand sees only its own: argv[0] is
 * its name.
 * Exit codes: 0 ok, 1 failure, 2 refused input or usage.
 */
#ifndef SLIDEOPS_CLI_H
#define SLIDEOPS_CLI_H

#include <jansson.h>
#include <stdbool.h>

#include "util/exit_codes.h"

struct store;

struct cli_env {
	bool json;            /* print one JSON document on stdout */
	const char *data_dir; /* --data, or NULL: store__default_dir() */
	const char *store_url; /* --store or $SLIDEOPS_STORE: the workspace in PostgreSQL */
	bool tty;             /* stderr is a terminal: progress may be shown */
};

/* Parses a whole number in [min, max] for option opt of command cmd; prints the usage
 * error and returns -1 when it is not one. */
int cli_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
		   long *out);

/* Prints doc as one JSON document on stdout and releases it. NULL (a document that
 * could not be built) or a failed write: says so, and returns -1; the command then
 * exits non-zero. 0 when printed. */
int cli_print_json(json_t *doc);

/* With --json, after a failed command that printed no document: {"error", "hint"} on
 * stdout, from the first error it said. */
void cli_print_json_error(void);

/* Makes url (NULL or empty: none) the workspace of every store opened after; says why
 * not and returns -1 (a URL with a password is refused, and never printed). */
int cli_use_store_url(const char *url);

/* Opens the workspace store to write (creating the data dir); prints why not (and what
 * to do) and returns NULL. */
struct store *cli_open_store(const struct cli_env *env);
/* The same to read: creates nothing, needs no free space, works read-only. */
struct store *cli_open_store_read(const struct cli_env *env);
/* Says why a store__open* of dir failed with err (an errno), and what to do. */
void cli_open_failed(const char *dir, int err);

/* The value of option argv[*i] ("-d 5", "--duration 5", "--duration=5"; short_opt may
 * be NULL), or NULL when argv[*i] is not that option. When its value is missing, prints
 * the usage error, sets *bad and returns NULL. */
const char *cli_option_value(int argc, char **argv, int *i, const char *short_opt,
			     const char *long_opt, bool *bad);

struct view_error;

/* Prints a library error as every error is printed ("slideops: MESSAGE") and returns
 * the exit code its status maps to (refused input: 2, else 1). */
int cli_print_view_error(const struct view_error *e);

/* True when argv has -h/--help; then the command prints its help. */
bool cli_wants_help(int argc, char **argv);

#define CLI_COMMANDS(X)                                                                 \
	X(check, CHECK)                                                                 \
	X(top, TOP)                                                                     \
	X(capture, CAPTURE)                                                             \
	X(profiles, PROFILES)                                                           \
	X(show, SHOW)                                                                   \
	X(compare, COMPARE)                                                             \
	X(symbols, SYMBOLS)                                                             \
	X(services, SERVICES)                                                           \
	X(remove, REMOVE)                                                               \
	X(serve, SERVE)                                                                 \
	X(agent, AGENT)

#define X(name, NAME) int cmd_##name(int argc, char **argv, const struct cli_env *env);
CLI_COMMANDS(X)
#undef X

#endif
