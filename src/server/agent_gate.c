// SPDX-License-Identifier: MIT
/* Credentials known, and addresses that failed them (agent_gate.h). */
#include "server/agent_gate.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct known {
	unsigned char hash[32];
	char server_id[STORE_ID_MAX];
	int64_t learnt_ns;            /* 0: empty */
};

struct failing {
	struct gate_addr addr;
	unsigned failures;
	int64_t last_ns;              /* its last failure; 0: empty */
	int64_t until_ns;             /* it waits until then */
};

struct agent_gate {
	pthread_mutex_t lock;
	uint64_t seed;                /* slots of addresses are this process's own */
	struct known known[GATE_SLOTS];
	struct failing failing[GATE_SLOTS];
};

void gate_addr__from(struct gate_addr *out, const struct sockaddr *sa)
{
	memset(out, 0, sizeof(*out));
	if (!sa)
		return;
	out->family = sa->sa_family;
	if (sa->sa_family == AF_INET) {
		memcpy(out->a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		/* An IPv4 client of a dual-stack socket is its IPv4 address. */
		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			out->family = AF_INET;
			memcpy(out->a, a6->s6_addr + 12, 4);
		} else {
			memcpy(out->a, a6->s6_addr, 8); /* the /64 */
		}
	}
}

struct agent_gate *agent_gate__new(void)
{
	struct agent_gate *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	if (getrandom(&g->seed, sizeof(g->seed), 0) != sizeof(g->seed))
		g->seed = (uint64_t)(uintptr_t)g ^ 0x9e3779b97f4a7c15ULL;
	pthread_mutex_init(&g->lock, NULL);
	return g;
}

void agent_gate__free(struct agent_gate *g)
{
	if (!g)
		return;
	pthread_mutex_destroy(&g->lock);
	explicit_bzero(g->known, sizeof(g->known));
	free(g);
}

/* FNV-1a over the address, from the process's seed. */
static unsigned addr_slot(const struct agent_gate *g, const struct gate_addr *a)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ g->seed;

	h = (h ^ a->family) * 0x100000001b3ULL;
	for (size_t i = 0; i < sizeof(a->a); i++)
		h = (h ^ a->a[i]) * 0x100000001b3ULL;
	return (unsigned)(h ^ (h >> 32)) % GATE_SLOTS;
}

static bool same_addr(const struct gate_addr *x, const struct gate_addr *y)
{
	return x->family == y->family && memcmp(x->a, y->a, sizeof(x->a)) == 0;
}

/* An entry no longer matters: it waits no more and failed nothing lately. */
static bool quiet(const struct failing *f, int64_t now_ns)
{
	return !f->last_ns || (now_ns >= f->until_ns && now_ns - f->last_ns > GATE_FORGET_NS);
}

unsigned agent_gate__wait_s(struct agent_gate *g, const struct gate_addr *a, int64_t now_ns)
{
	struct failing *f = &g->failing[addr_slot(g, a)];
	int64_t left = 0;

	pthread_mutex_lock(&g->lock);
	if (f->last_ns && same_addr(&f->addr, a) && now_ns < f->until_ns)
		left = f->until_ns - now_ns;
	pthread_mutex_unlock(&g->lock);
	return left ? (unsigned)((left + 999999999) / 1000000000) : 0;
}

void agent_gate__failed(struct agent_gate *g, const struct gate_addr *a, int64_t now_ns)
{
	struct failing *f = &g->failing[addr_slot(g, a)];

	pthread_mutex_lock(&g->lock);
	if (!f->last_ns || !same_addr(&f->addr, a)) {
		/* Another address holds the slot while it matters: this one is not kept. */
		if (!quiet(f, now_ns)) {
			pthread_mutex_unlock(&g->lock);
			return;
		}
		*f = (struct failing){ .addr = *a };
	} else if (now_ns >= f->until_ns && now_ns - f->last_ns > GATE_FORGET_NS) {
		f->failures = 0;
	}
	f->failures++;
	f->last_ns = now_ns;
	if (f->failures > GATE_FREE_FAILURES) {
		unsigned doublings = f->failures - GATE_FREE_FAILURES - 1;
		int64_t wait = doublings >= 16 ? GATE_LONGEST_WAIT_NS :
						 GATE_FIRST_WAIT_NS << doublings;

		f->until_ns = now_ns + (wait < GATE_LONGEST_WAIT_NS ? wait : GATE_LONGEST_WAIT_NS);
	}
	pthread_mutex_unlock(&g->lock);
}

void agent_gate__hash(const char *credential, unsigned char out[32])
{
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, credential, strlen(credential), out) < 0)
		memset(out, 0, 32);
}

/* The hash is SHA-256 of a secret: its first bytes are as good a slot as any. */
static struct known *known_slot(struct agent_gate *g, const unsigned char hash[32])
{
	return &g->known[((unsigned)hash[0] << 8 | hash[1]) % GATE_SLOTS];
}

bool agent_gate__known(struct agent_gate *g, const unsigned char hash[32], int64_t now_ns,
		       char server_id[STORE_ID_MAX])
{
	struct known *k = known_slot(g, hash);
	bool yes;

	pthread_mutex_lock(&g->lock);
	yes = k->learnt_ns && now_ns - k->learnt_ns < GATE_KNOWN_FOR_NS &&
	      memcmp(k->hash, hash, 32) == 0;
	if (yes)
		snprintf(server_id, STORE_ID_MAX, "%s", k->server_id);
	pthread_mutex_unlock(&g->lock);
	return yes;
}

void agent_gate__learn(struct agent_gate *g, const unsigned char hash[32],
		       const char *server_id, int64_t now_ns)
{
	struct known *k = known_slot(g, hash);

	pthread_mutex_lock(&g->lock);
	memcpy(k->hash, hash, 32);
	snprintf(k->server_id, sizeof(k->server_id), "%s", server_id);
	k->learnt_ns = now_ns;
	pthread_mutex_unlock(&g->lock);
}

void agent_gate__forget_server(struct agent_gate *g, const char *server_id)
{
	pthread_mutex_lock(&g->lock);
	for (size_t i = 0; i < GATE_SLOTS; i++)
		if (g->known[i].learnt_ns && strcmp(g->known[i].server_id, server_id) == 0)
			memset(&g->known[i], 0, sizeof(g->known[i]));
	pthread_mutex_unlock(&g->lock);
}
