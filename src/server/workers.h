/* SPDX-License-Identifier: MIT */
/*
 * The threads that answer the API. The HTTP threads (a small pool, each watching many
 * connections with epoll) must never wait on a profile being read, an export being
 * encoded or an upload's names being read: a request that reaches the API is suspended,
 * queued here, answered by a worker into req->reply, and resumed, so its HTTP thread
 * sends the reply and goes on serving the others meanwhile. The workers are few, which
 * also bounds how many profiles are in memory at once.
 */
#ifndef SLIDEOPS_SERVER_WORKERS_H
#define SLIDEOPS_SERVER_WORKERS_H

#include "server/server_internal.h"

struct workers;

/* n threads answering for srv; NULL with errno set. */
struct workers *workers__start(struct server *srv, unsigned n);
/* Answers what is queued with 503 (stopping), waits for what runs, ends the threads: every
 * suspended connection has been resumed when it returns. NULL is a no-op. */
void workers__stop(struct workers *w);
/* Suspends req->conn and queues req: true. false when stopping (nothing was done). Called
 * from the connection's HTTP thread. */
bool workers__submit(struct workers *w, struct request *req);

#endif
