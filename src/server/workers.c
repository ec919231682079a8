// SPDX-License-Identifier: MIT
/* A queue and its threads (workers.h). */
#include "server/workers.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "util/clock.h"

/* Work that took this long made what is worth giving back. */
#define TRIM_AFTER_NS (5 * 1000000LL)

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct request *head, *tail;
	bool stopping;
	struct server *srv;
	unsigned n;
	pthread_t threads[];
};

static void *workers__main(void *arg)
{
	struct workers *w = arg;
	struct request *req;
	int64_t started;
	bool stopping;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->head && !w->stopping)
			pthread_cond_wait(&w->cond, &w->lock);
		req = w->head;
		if (req) {
			w->head = req->next;
			if (!w->head)
				w->tail = NULL;
		}
		stopping = w->stopping;
		pthread_mutex_unlock(&w->lock);
		if (!req)
			return NULL;
		started = clock__monotonic_ns();
		/* An agent's credential, checked before its body: the handler is called
		 * again, and answers or reads the body. */
		if (req->gate_pending) {
			if (stopping) {
				reply__msg(&req->reply, 503, MSG_API_STOPPING);
				req->gate = GATE_REFUSED;
			} else {
				agent__gate(w->srv, req->conn, req);
			}
			MHD_resume_connection(req->conn);
			continue;
		}
		if (stopping)
			reply__msg(&req->reply, 503, MSG_API_STOPPING);
		else if (req->agent && agent__handle(w->srv, req->conn, req->url, req))
			continue; /* a poll held open: the hub answers and resumes it */
		else if (!req->agent)
			api__handle(w->srv, req->conn, req->method, req->url, req, &req->reply);
		req->replied = true;
		/* A profile's page takes tens of MB for a moment: give them back now, or the
		 * arenas keep what the busiest moment took. Only after such work: a trim costs
		 * more than a small answer does. */
		if (clock__monotonic_ns() - started > TRIM_AFTER_NS)
			malloc_trim(0);
		/* From here the connection's thread owns req again, and may free it. */
		MHD_resume_connection(req->conn);
	}
}

struct workers *workers__start(struct server *srv, unsigned n)
{
	struct workers *w = calloc(1, sizeof(*w) + n * sizeof(pthread_t));
	int err;

	if (!w)
		return NULL;
	w->srv = srv;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	for (; w->n < n; w->n++) {
		err = pthread_create(&w->threads[w->n], NULL, workers__main, w);
		if (err) {
			workers__stop(w);
			errno = err;
			return NULL;
		}
	}
	return w;
}

void workers__stop(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < w->n; i++)
		pthread_join(w->threads[i], NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

bool workers__submit(struct workers *w, struct request *req)
{
	pthread_mutex_lock(&w->lock);
	if (w->stopping) {
		pthread_mutex_unlock(&w->lock);
		return false;
	}
	/* Suspended before a worker can see it: a resume never comes before its suspend. */
	MHD_suspend_connection(req->conn);
	req->next = NULL;
	if (w->tail)
		w->tail->next = req;
	else
		w->head = req;
	w->tail = req;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return true;
}
