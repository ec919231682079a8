/* SPDX-License-Identifier: MIT */
/*
 * The workspace server: the JSON API under /api/ (docs/api.md) and the web UI, served
 * from assets embedded in the binary. libmicrohttpd with epoll and a small pool of
 * threads, so thousands of idle connections cost little, and those that do not send a
 * request in time are dropped; the API is answered by workers (workers.h), so a large
 * profile being read never holds up another request; captures run on their own worker
 * (capture_job.h).
 *
 * Every request needs the workspace token: the URL printed on start sets it as an
 * HttpOnly SameSite=Strict cookie, scripts send "Authorization: Bearer TOKEN". Changes
 * made with the cookie must carry this page's Origin. Every response carries a strict
 * Content-Security-Policy: scripts and styles only from here, nothing inline.
 */
#ifndef SLIDEOPS_SERVER_H
#define SLIDEOPS_SERVER_H

#include <signal.h>
#include <stdbool.h>

/* Names given with --allow-host, at most. */
#define SERVER_ALLOWED_HOSTS_MAX 16

struct server_options {
	const char *listen;      /* "ADDR:PORT"; NULL: 127.0.0.1:7070 */
	const char *data_dir;
	const char *tls_cert, *tls_key; /* PEM files; both or neither */
	bool insecure_http;      /* plain HTTP on a non-loopback address, said out loud */
	/* Host names it answers to besides IP addresses, localhost and this machine's name
	 * (--allow-host): any other is refused, against DNS rebinding. */
	const char **allowed_hosts;
	int nallowed_hosts;
};

/* Serves until *stop becomes non-zero. Prints the URL to open on stdout once listening.
 * 0, or -1 after printing why not. */
int server__run(const struct server_options *o, volatile sig_atomic_t *stop);

#endif
