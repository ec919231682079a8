/* SPDX-License-Identifier: MIT */
/* Inside the hub (agent_hub.h): agent_hub.c keeps polls, commands and calls,
 * agent_captures.c the captures. Everything here is used under the hub's lock. */
#ifndef SLIDEOPS_SERVER_AGENT_HUB_INTERNAL_H
#define SLIDEOPS_SERVER_AGENT_HUB_INTERNAL_H

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

struct command {
	enum agent_command kind;
	char id[ID_LEN];
	char capture_id[ID_LEN];
	enum question question;
	unsigned seconds, hz;
	unsigned top;
	struct command *next;
};

/* An API request waiting for a command's reply. */
struct call {
	char server_id[STORE_ID_MAX];
	char command_id[ID_LEN];
	bool answered;
	int status;
	char *doc;
	struct call *next;
};

struct capture {
	bool started;             /* one was asked for since serve started */
	bool running;
	bool heard;               /* the agent sent progress (or refused) */
	int64_t heard_ns;         /* monotonic: its last progress */
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

struct slot {
	char id[STORE_ID_MAX];
	char name[NAME_LEN];
	struct command *head, *tail;
	struct request *parked;
	uint32_t parked_version;  /* the parked poll's protocol version */
	int64_t deadline_ns;      /* monotonic: when the parked poll is answered empty */
	int64_t polled_ns;        /* monotonic: the last poll; 0 none */
	bool removed;
	uint64_t spool_dropped;
	struct capture cap;
	struct slot *next;
};

struct agent_hub {
	pthread_mutex_t lock;
	pthread_cond_t replied;
	struct slot *slots;
	struct call *calls;
	bool stopping;
};

/* An id of ours: prefix and 16 hex digits. */
void hub__new_id(char prefix, char out[ID_LEN]);
/* The server's slot, made on first use (name: kept when not NULL). */
struct slot *hub__slot_of(struct agent_hub *h, const char *id, const char *name);
struct slot *hub__slot_find(struct agent_hub *h, const char *id);
/* Wakes the server's parked poll with what is queued. */
void hub__wake(struct slot *s);
/* Queues a command for the slot (hub__wake sends it). */
struct command *hub__queue(struct slot *s, enum agent_command kind);
/* Takes a command not yet delivered off the queue: true when it was there. */
bool hub__unqueue(struct slot *s, const char *command_id);
/* True when the agent polls now or did within AGENT_UNREACHABLE_NS. */
bool hub__reachable(const struct slot *s, const struct server_entry *srv);
/* The 503 of an agent not heard from. */
void hub__unreachable(struct view_error *e, const struct server_entry *srv);
void hub__call_unlink(struct agent_hub *h, struct call *call);
/* A poll saying which capture its agent runs now: a capture the agent no longer runs,
 * though it was sampling, failed (CAPTURE_LOST_AFTER_NS after its last progress). */
#define CAPTURE_LOST_AFTER_NS (3 * 1000000000LL)
void hub__capture_polled(struct slot *s, const char *running_capture);

#endif
