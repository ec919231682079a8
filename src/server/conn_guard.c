// SPDX-License-Identifier: MIT
/*
 * The idle connections, oldest first, in one list under one lock (conn_guard.h). The
 * list holds at most a few thousand: a walk of it per accepted connection costs less
 * than the accept itself.
 */
#include "server/conn_guard.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct conn_slot {
	struct conn_slot *prev, *next; /* the idle list, while idle */
	bool idle;
	bool dropped;                  /* shut down: closing, never idle again */
	int64_t idle_since_ns;
	int fd;
	sa_family_t family;
	unsigned char addr[16];        /* the address alone, not the port */
};

struct conn_guard {
	pthread_mutex_t lock;
	struct conn_guard_limits limits;
	struct conn_slot *head, *tail; /* oldest idle first */
	unsigned idle;
};

struct conn_guard *conn_guard__new(const struct conn_guard_limits *limits)
{
	struct conn_guard *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return NULL;
	g->limits = *limits;
	err = pthread_mutex_init(&g->lock, NULL);
	if (err) {
		free(g);
		errno = err;
		return NULL;
	}
	return g;
}

void conn_guard__free(struct conn_guard *g)
{
	if (!g)
		return;
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static void list__remove(struct conn_guard *g, struct conn_slot *s)
{
	if (!s->idle)
		return;
	if (s->prev)
		s->prev->next = s->next;
	else
		g->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		g->tail = s->prev;
	s->prev = s->next = NULL;
	s->idle = false;
	g->idle--;
}

static void list__append(struct conn_guard *g, struct conn_slot *s, int64_t now_ns)
{
	if (s->idle || s->dropped)
		return;
	s->idle_since_ns = now_ns;
	s->prev = g->tail;
	s->next = NULL;
	if (g->tail)
		g->tail->next = s;
	else
		g->head = s;
	g->tail = s;
	s->idle = true;
	g->idle++;
}

/* Under the lock: the slot's socket is still open (conn_guard__close comes first). */
static void drop(struct conn_guard *g, struct conn_slot *s)
{
	list__remove(g, s);
	s->dropped = true;
	shutdown(s->fd, SHUT_RDWR);
}

static bool same_address(const struct conn_slot *a, const struct conn_slot *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

struct conn_slot *conn_guard__open(struct conn_guard *g, int fd, const struct sockaddr *addr,
				   int64_t now_ns)
{
	struct conn_slot *s = calloc(1, sizeof(*s)), *old;
	unsigned from_here = 0;

	if (!s)
		return NULL;
	s->fd = fd;
	s->family = addr ? addr->sa_family : AF_UNSPEC;
	if (s->family == AF_INET)
		memcpy(s->addr, &((const struct sockaddr_in *)addr)->sin_addr, 4);
	else if (s->family == AF_INET6)
		memcpy(s->addr, &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);

	pthread_mutex_lock(&g->lock);
	list__append(g, s, now_ns);
	for (struct conn_slot *i = g->head; i; i = i->next)
		from_here += same_address(i, s);
	/* The oldest idle one from this address makes room; else the oldest of all. */
	if (from_here > g->limits.idle_per_address_max) {
		for (old = g->head; old && !same_address(old, s); old = old->next)
			;
		if (old && old != s)
			drop(g, old);
	}
	if (g->idle > g->limits.idle_max && g->head != s)
		drop(g, g->head);
	pthread_mutex_unlock(&g->lock);
	return s;
}

void conn_guard__close(struct conn_guard *g, struct conn_slot *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&g->lock);
	list__remove(g, s);
	pthread_mutex_unlock(&g->lock);
	free(s);
}

void conn_guard__busy(struct conn_guard *g, struct conn_slot *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&g->lock);
	list__remove(g, s);
	pthread_mutex_unlock(&g->lock);
}

void conn_guard__idle(struct conn_guard *g, struct conn_slot *s, int64_t now_ns)
{
	if (!s)
		return;
	pthread_mutex_lock(&g->lock);
	list__append(g, s, now_ns);
	pthread_mutex_unlock(&g->lock);
}

unsigned conn_guard__sweep(struct conn_guard *g, int64_t now_ns)
{
	unsigned n = 0;

	pthread_mutex_lock(&g->lock);
	/* Oldest first: the first one young enough ends the walk. */
	while (g->head && now_ns - g->head->idle_since_ns > g->limits.deadline_ns) {
		drop(g, g->head);
		n++;
	}
	pthread_mutex_unlock(&g->lock);
	return n;
}

unsigned conn_guard__idle_count(struct conn_guard *g)
{
	unsigned n;

	pthread_mutex_lock(&g->lock);
	n = g->idle;
	pthread_mutex_unlock(&g->lock);
	return n;
}
