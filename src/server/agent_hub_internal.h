/* SPDX-License-Identifier: MIT */
/* Inside the hub (agent_hub.h): agent_hub.c keeps polls, commands and calls,
 * agent_captures.c the captures, agent_capture_store.c (below both) a capture as the store
 * keeps it. The slots are used under the hub's lock; commands and captures are in the
 * store, read and written without it. */
#ifndef SLIDEOPS_SERVER_AGENT_HUB_INTERNAL_H
#define SLIDEOPS_SERVER_AGENT_HUB_INTERNAL_H

#include <limits.h>
#include <pthread.h>

#include "server/agent_hub.h"
#include "server/server_internal.h"
#include "store/store.h"

#define ID_LEN 24
#define NAME_LEN 256
#define PHASE_LEN 16
#define NOTE_LEN 256
/* A reply document an agent sends: the check and top documents are a few kB. */
#define REPLY_DOC_MAX (1u << 20)
/* A capture's progress (done of total) as an agent may say it, at most. */
#define PROGRESS_MAX (1ULL << 32)

/* A command as it waits in the store (store__queue_command): its JSON text. */
struct command {
	enum agent_command kind;
	char id[ID_LEN];
	char capture_id[ID_LEN];
	enum question question;
	unsigned seconds, hz;
	unsigned top;
};

/* A server's last capture on its agent, as the store keeps it (store__put_agent_capture)
 * for every process of the workspace. Times are realtime. */
struct capture {
	bool started;             /* one was asked for */
	bool running;
	bool heard;               /* the agent sent progress (or refused) */
	int64_t heard_ns;         /* its last progress */
	char id[ID_LEN];
	char command_id[ID_LEN];
	enum question question;
	unsigned seconds;
	int64_t started_at_ns;
	char phase[PHASE_LEN];
	uint64_t done, total;
	char profile_id[STORE_ID_MAX];
	char error[VIEW_ERROR_MAX];
	char note[NOTE_LEN];
	bool stopping;
};

/* What this process keeps of a server: the poll it holds open. */
struct slot {
	char id[STORE_ID_MAX];
	char name[NAME_LEN];
	struct request *parked;
	uint32_t parked_version;  /* the parked poll's protocol version */
	int64_t deadline_ns;      /* monotonic: when the parked poll is answered empty */
	int64_t polled_ns;        /* monotonic: the last poll here; 0 none */
	bool removed;
	/* Its agent's requests being answered here (agent_hub__admit): polls (two while a
	 * new one replaces a lost one), batches, and the rest. */
	unsigned polls, batches, others;
	int64_t poll_since_ns;    /* monotonic: the last poll admitted */
	struct slot *next;
};

struct agent_hub {
	pthread_mutex_t lock;
	pthread_cond_t changed;   /* a reply or progress came to this process */
	struct slot *slots;
	char data_dir[PATH_MAX];
	bool stopping;
};

/* An id of ours: prefix and 16 hex digits. */
void hub__new_id(char prefix, char out[ID_LEN]);
/* The server's slot, made on first use (name: kept when not NULL). Under the lock. */
struct slot *hub__slot_of(struct agent_hub *h, const char *id, const char *name);
struct slot *hub__slot_find(struct agent_hub *h, const char *id);
/* The workspace, opened for the hub's own work: NULL with e set (may be NULL). */
struct store *hub__store(struct agent_hub *h, struct view_error *e);
/* Queues c for server_id in the store (its id made here unless given): 0 or -errno. The
 * caller then wakes the server's poll (hub__wake), if this process holds it. */
int hub__queue(struct agent_hub *h, struct store *st, const char *server_id,
	       struct command *c);
/* Answers the server's poll held here, if any, with what waits in the store. */
void hub__wake(struct agent_hub *h, const char *server_id);
/* Waits for a reply or progress here, a little: false when deadline_ns (monotonic)
 * passed or the hub stops. Under the lock. */
bool hub__wait(struct agent_hub *h, int64_t deadline_ns);
/* True when the agent polls here now, or was heard by any process within
 * AGENT_UNREACHABLE_NS. */
bool hub__reachable(struct agent_hub *h, const struct server_entry *srv);
/* The 503 of an agent not heard from. */
void hub__unreachable(struct view_error *e, const struct server_entry *srv);
/* ---- agent_capture_store.c ---- */

/* The server's capture from the store: 0, or -ENOENT (zeroed: none asked for yet). */
int hub__capture_get(struct store *st, const char *server_id, struct capture *cap);
int hub__capture_put(struct store *st, const char *server_id, const struct capture *cap);
/* A poll saying which capture its agent runs now: a capture the agent no longer runs,
 * though it was sampling, failed (CAPTURE_LOST_AFTER_NS after its last progress). */
#define CAPTURE_LOST_AFTER_NS (3 * 1000000000LL)
void hub__capture_polled(struct store *st, const struct server_entry *srv,
			 const char *running_capture);

#endif
