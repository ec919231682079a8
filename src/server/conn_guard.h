/* SPDX-License-Identifier: MIT */
/*
 * Connections no credential vouches for: what lets a client without the token hold the
 * server's connections. Each connection is "idle" (unauthenticated) from its accept, and
 * again from the end of each request, until its request's token or agent credential has
 * passed (server.c calls conn_guard__busy then): a header not yet whole, an enrolment
 * (its token is in its few bytes of body), a request being refused. An idle connection
 * is dropped (shutdown(2): the server's own loop then sees the end and closes it) when
 *   - it stays idle past the deadline, however slowly it trickles bytes;
 *   - a new connection would pass the cap of idle ones from its address, or in all: the
 *     oldest idle one (of that address, or of all) makes room. A new connection is never
 *     refused for it, so a client that sends its request at once always gets in.
 * Connections busy with a request are never dropped here.
 *
 * Thread-safe: the server's threads open, mark and close; its main thread sweeps. A slot
 * leaves the guard (conn_guard__close) before its socket is closed, so a drop never
 * reaches a descriptor that has been reused.
 */
#ifndef SLIDEOPS_SERVER_CONN_GUARD_H
#define SLIDEOPS_SERVER_CONN_GUARD_H

#include <stdint.h>
#include <sys/socket.h>

struct conn_guard;
struct conn_slot;

struct conn_guard_limits {
	unsigned idle_max;             /* idle connections in all */
	unsigned idle_per_address_max; /* idle connections from one address */
	int64_t deadline_ns;           /* idle longer than this: dropped */
};

/* NULL with errno set. */
struct conn_guard *conn_guard__new(const struct conn_guard_limits *limits);
void conn_guard__free(struct conn_guard *g);

/* A connection accepted on fd from addr, idle from now_ns; may drop older idle ones.
 * NULL (out of memory): the connection goes unguarded. */
struct conn_slot *conn_guard__open(struct conn_guard *g, int fd, const struct sockaddr *addr,
				   int64_t now_ns);
/* Before its socket is closed. s may be NULL. */
void conn_guard__close(struct conn_guard *g, struct conn_slot *s);
/* Its request header is whole: never dropped until idle again. s may be NULL. */
void conn_guard__busy(struct conn_guard *g, struct conn_slot *s);
/* Its request ended: idle from now_ns, waiting for the next header. s may be NULL. */
void conn_guard__idle(struct conn_guard *g, struct conn_slot *s, int64_t now_ns);
/* Drops every connection idle past the deadline at now_ns; how many. */
unsigned conn_guard__sweep(struct conn_guard *g, int64_t now_ns);
/* Idle connections being kept (not dropped). */
unsigned conn_guard__idle_count(struct conn_guard *g);

#endif
