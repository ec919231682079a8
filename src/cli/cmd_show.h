/* SPDX-License-Identifier: MIT */
/* What `show` and `compare` share: a stored profile, named with today's symbols, analysed. */
#ifndef SLIDEOPS_CLI_CMD_SHOW_H
#define SLIDEOPS_CLI_CMD_SHOW_H

struct store;
struct profile;
struct analysis;

/*
 * Loads profile id from the store, symbolizes and analyses it, and refreshes its stored
 * answer (names may have changed since it was captured). Prints why not on failure.
 * Returns EXIT_OK, or EXIT_FAIL with nothing to free.
 */
int show__load(struct store *s, const char *id, struct profile **p, struct analysis **a);

#endif
