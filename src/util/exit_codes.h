/* SPDX-License-Identifier: MIT */
/*
 * What a command's process exits with: the CLI's subcommands and the resident agent
 * (its systemd unit tells a refusal, which a restart would meet again, from a failure).
 */
#ifndef SLIDEOPS_UTIL_EXIT_CODES_H
#define SLIDEOPS_UTIL_EXIT_CODES_H

#define EXIT_OK 0
#define EXIT_FAIL 1      /* it failed */
#define EXIT_REFUSED 2   /* refused input or usage */

#endif
