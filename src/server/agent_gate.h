/* SPDX-License-Identifier: MIT */
/*
 * What an agent's request must pass before serve reads its body (docs/security.md):
 *   - its credential is one the workspace gave: either known here (its SHA-256 seen by a
 *     worker's check of the store within KNOWN_FOR_NS) or checked by a worker first, its
 *     connection suspended meanwhile, nothing of the body read;
 *   - the address it comes from has not been failing credentials: after a few failures,
 *     an address waits, the wait doubling with each further failure (up to a minute),
 *     and a request from it with a credential not known here is refused (429) before
 *     the store is asked. A credential known here passes, so honest agents behind the
 *     same address (a NAT, loopback) are not held by a neighbour's guessing.
 * In memory, per process, fixed in size: two tables of GATE_SLOTS entries, each slot
 * found directly from a hash. A credential or an address that finds its slot taken
 * replaces a quiet entry only, so a stranger cannot push a blocked address out by
 * coming from many addresses: past the table's size, a new address is simply not
 * remembered (and is still refused at the store, at a worker's cost).
 * Thread-safe (one lock); every call costs a hash and a slot or two.
 */
#ifndef SLIDEOPS_SERVER_AGENT_GATE_H
#define SLIDEOPS_SERVER_AGENT_GATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "store/store.h"

#define GATE_SLOTS 4096
/* Failures an address may make before it waits; its first wait; the longest. */
#define GATE_FREE_FAILURES 4
#define GATE_FIRST_WAIT_NS (250 * 1000000LL)
#define GATE_LONGEST_WAIT_NS (60 * 1000000000LL)
/* An address that fails nothing for this long starts again from nothing. */
#define GATE_FORGET_NS (600 * 1000000000LL)
/* A credential a worker found valid passes without asking the store again for this long
 * (the request's handler still asks it: a server removed meanwhile gets its 410). */
#define GATE_KNOWN_FOR_NS (60 * 1000000000LL)

struct agent_gate;

/* Where a request comes from: an IPv4 address, or an IPv6 one's /64 (one host's share of
 * addresses), as the limiter counts them. */
struct gate_addr {
	sa_family_t family;
	unsigned char a[16];
};

void gate_addr__from(struct gate_addr *out, const struct sockaddr *sa);

/* NULL with errno set. */
struct agent_gate *agent_gate__new(void);
void agent_gate__free(struct agent_gate *g);

/* 0 when a credential from a may be checked now; else how many seconds (at least 1) it
 * waits before its next try. */
unsigned agent_gate__wait_s(struct agent_gate *g, const struct gate_addr *a, int64_t now_ns);
/* A credential (or enrolment token) from a was not valid. */
void agent_gate__failed(struct agent_gate *g, const struct gate_addr *a, int64_t now_ns);

/* The SHA-256 of a credential, as the gate keeps it. */
void agent_gate__hash(const char *credential, unsigned char out[32]);
/* True, and its server's id, when a worker found this credential valid within
 * GATE_KNOWN_FOR_NS. */
bool agent_gate__known(struct agent_gate *g, const unsigned char hash[32], int64_t now_ns,
		       char server_id[STORE_ID_MAX]);
void agent_gate__learn(struct agent_gate *g, const unsigned char hash[32],
		       const char *server_id, int64_t now_ns);
/* The server was removed: its credentials are not known here any more. */
void agent_gate__forget_server(struct agent_gate *g, const char *server_id);

#endif
