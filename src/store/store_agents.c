// SPDX-License-Identifier: MIT
/*
 * Agents in the workspace (store.h): enrolment tokens and credentials, kept as their
 * SHA-256 only, and the batches agents delivered, each kept once. The backends see
 * hashes, rows and keys; the secrets are made and hashed here.
 */
#include "store/store_backend.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "util/clock.h"

#define SHA256_BYTES 32
#define HASH_HEX (2 * SHA256_BYTES)

static void hex(const unsigned char *raw, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = "0123456789abcdef"[raw[i] >> 4];
		out[2 * i + 1] = "0123456789abcdef"[raw[i] & 0xf];
	}
	out[2 * n] = '\0';
}

/* A new secret: STORE_SECRET_HEX lowercase hex digits from getrandom. */
static int new_secret(char out[STORE_SECRET_HEX + 1])
{
	unsigned char raw[STORE_SECRET_HEX / 2];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -EIO;
	hex(raw, sizeof(raw), out);
	explicit_bzero(raw, sizeof(raw));
	return 0;
}

/* Only a secret of ours is hashed and looked up: STORE_SECRET_HEX lowercase hex digits. */
static bool secret_ok(const char *secret)
{
	return secret && strlen(secret) == STORE_SECRET_HEX &&
	       strspn(secret, "0123456789abcdef") == STORE_SECRET_HEX;
}

/* What the workspace keeps of a secret: its SHA-256, as hex. The lookup by this hash is
 * the comparison: its time depends on the hash, which the sender cannot steer. */
static int secret_hash(const char *secret, char out[HASH_HEX + 1])
{
	unsigned char digest[SHA256_BYTES];

	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, secret, strlen(secret), digest) < 0)
		return -EIO;
	hex(digest, sizeof(digest), out);
	return 0;
}

int store__new_enrolment(struct store *s, char token[STORE_SECRET_HEX + 1],
			 int64_t *expires_at_ns)
{
	int64_t now = clock__realtime_ns();
	char hash[HASH_HEX + 1];
	int err = store__need_db(s, true);

	if (!err)
		err = new_secret(token);
	if (!err)
		err = secret_hash(token, hash);
	if (err)
		return err;
	*expires_at_ns = now + (int64_t)STORE_ENROLMENT_TTL_S * 1000000000LL;
	err = s->ops->put_enrolment(s, hash, now, *expires_at_ns);
	if (err)
		explicit_bzero(token, STORE_SECRET_HEX + 1);
	return err;
}

/* A server id: "s" and 16 hex digits. */
static int new_server_id(char id[STORE_ID_MAX])
{
	unsigned char raw[8];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -EIO;
	id[0] = 's';
	hex(raw, sizeof(raw), id + 1);
	return 0;
}

int store__enrol(struct store *s, const char *token, struct server_entry *srv,
		 char credential[STORE_SECRET_HEX + 1])
{
	char token_hash[HASH_HEX + 1], cred_hash[HASH_HEX + 1];
	int err = store__need_db(s, true);

	if (err)
		return err;
	if (!secret_ok(token))
		return -EACCES;
	if (!srv->name || !*srv->name)
		return -EINVAL;
	err = secret_hash(token, token_hash);
	if (!err)
		err = new_secret(credential);
	if (!err)
		err = secret_hash(credential, cred_hash);
	if (!err)
		err = new_server_id(srv->id);
	if (err)
		return err;
	srv->this_server = false;
	err = s->ops->enrol(s, token_hash, clock__realtime_ns(), srv, cred_hash);
	if (err)
		explicit_bzero(credential, STORE_SECRET_HEX + 1);
	return err;
}

int store__enrolment_valid(struct store *s, const char *token)
{
	char hash[HASH_HEX + 1];
	int err;

	if (!secret_ok(token))
		return 0;
	err = store__need_db(s, false);
	if (!err)
		err = secret_hash(token, hash);
	return err ? err : s->ops->enrolment_valid(s, hash, clock__realtime_ns());
}

int store__authenticate(struct store *s, const char *credential, struct server_entry **out)
{
	char hash[HASH_HEX + 1];
	int err;

	*out = NULL;
	if (!secret_ok(credential))
		return -EACCES;
	err = store__need_db(s, false);
	if (!err)
		err = secret_hash(credential, hash);
	return err ? err : s->ops->authenticate(s, hash, out);
}

int store__server_seen(struct store *s, const char *id, const char *kernel,
		       const char *agent_version, const char *boot_id)
{
	int err = store__need_db(s, true);

	return err ? err : s->ops->server_seen(s, id, clock__realtime_ns(), kernel,
					       agent_version, boot_id);
}

int store__server_refused(struct store *s, const char *id, const char *why)
{
	int err = store__need_db(s, true);

	return err ? err : s->ops->server_refused(s, id, why, clock__realtime_ns());
}

int store__remove_server(struct store *s, const char *id)
{
	int err = store__need_db(s, true);

	if (err)
		return err;
	if (strcmp(id, "local") == 0)
		return -EPERM;
	return s->ops->remove_server(s, id, clock__realtime_ns());
}

int store__get_server(struct store *s, const char *id, struct server_entry **out)
{
	struct server_entry *e;
	size_t n;
	int err;

	*out = NULL;
	err = store__list_servers(s, &e, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(e[i].id, id) != 0)
			continue;
		/* The one asked for moves to the front; the rest are freed. */
		if (i) {
			struct server_entry t = e[0];

			e[0] = e[i];
			e[i] = t;
		}
		for (size_t j = 1; j < n; j++)
			server_entry__clear(&e[j]);
		*out = e;
		return 0;
	}
	server_entries__free(e, n);
	return -ENOENT;
}

int store__find_batch(struct store *s, const struct batch_key *key, char id[STORE_ID_MAX])
{
	int err = store__need_db(s, false);

	id[0] = '\0';
	return err ? err : s->ops->find_batch(s, key, id);
}

int store__save_batch(struct store *s, const struct profile *p, const char *answer,
		      const char *server, const struct batch_key *key, char id[STORE_ID_MAX])
{
	int err;

	if (!server || !key || !key->server_id || !key->boot_id)
		return -EINVAL;
	err = store__find_batch(s, key, id);
	if (err == 0)
		return 1;
	if (err != -ENOENT)
		return err;
	err = store__save_row(s, p, answer, server, key, id);
	/* Another request stored it meanwhile (a retry racing the first): that one. */
	if (err == -EALREADY)
		return store__find_batch(s, key, id) == 0 ? 1 : -EALREADY;
	return err;
}
