// SPDX-License-Identifier: MIT
/*
 * The agent's credential: read from DATA/credential when it was enrolled before, else
 * got once by enrolling (docs/protocol.md, Enrolment) with the enrolment token, and kept
 * there 0600 (credential.c).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_state.h"
#include "agent/transport.h"
#include "util/clock.h"
#include "util/messages.h"

static int enrol(struct agent *a, struct transport *t)
{
	Slideops__Agent__EnrolRequest req = SLIDEOPS__AGENT__ENROL_REQUEST__INIT;
	Slideops__Agent__EnrolReply *reply;
	struct agent_identity *id = &a->identity;
	struct backoff backoff;
	struct http_reply r;
	uint8_t *body;
	size_t len;
	int err;

	req.protocol_version = AGENT_PROTOCOL_VERSION;
	req.enrolment_token = (char *)a->opts->enrol_token;
	req.name = (char *)(a->opts->name ? a->opts->name : id->hostname);
	req.hostname = id->hostname;
	req.machine_id = id->machine_id;
	req.kernel = id->kernel;
	req.cpus = id->cpus;
	req.agent_version = (char *)SLIDEOPS_VERSION;
	req.boot_id = id->boot_id;
	len = slideops__agent__enrol_request__get_packed_size(&req);
	body = malloc(len ? len : 1);
	if (!body) {
		msg_error(MSG_OUT_OF_MEMORY);
		return -ENOMEM;
	}
	slideops__agent__enrol_request__pack(&req, body);
	backoff__init(&backoff, POLL_FIRST_MS, POLL_CAP_MS, (uint64_t)clock__monotonic_ns());
	for (;;) {
		err = transport__post(t, "/agent/enrol", body, len, ENROL_TIMEOUT_MS, a->quit, &r);
		if (*a->quit) {
			if (!err)
				http_reply__release(&r);
			free(body);
			return -ECANCELED;
		}
		/* 429: this address failed tokens lately (a neighbour's guesses): it waits. */
		if (!err && r.status < 500 && r.status != 429)
			break;
		if (err)
			msg_error(MSG_AGENT_WORKSPACE_UNREACHABLE, a->opts->workspace, r.error);
		else
			msg_error(MSG_AGENT_WORKSPACE_FAILED, a->opts->workspace, r.status);
		http_reply__release(&r);
		agent__nap(a, backoff__next(&backoff));
	}
	explicit_bzero(body, len);
	free(body);
	if (r.status == 401) {
		json_t *doc;

		msg_error(MSG_AGENT_ENROL_REFUSED, a->opts->workspace, agent__error_text(&r, &doc));
		json_decref(doc);
		http_reply__release(&r);
		return -EACCES;
	}
	if (!agent__reply_allows(a, &r)) {
		http_reply__release(&r);
		return -EPROTO;
	}
	if (r.status != 200) {
		json_t *doc;

		msg_error(MSG_AGENT_ENROL_FAILED, a->opts->workspace, r.status,
			  agent__error_text(&r, &doc));
		json_decref(doc);
		http_reply__release(&r);
		return -EPROTO;
	}
	reply = slideops__agent__enrol_reply__unpack(NULL, r.len, (uint8_t *)r.body);
	http_reply__release(&r);
	if (!reply || !reply->credential || !*reply->credential || !reply->server_id ||
	    strlen(reply->credential) >= sizeof(a->cred.credential) ||
	    strlen(reply->server_id) >= sizeof(a->cred.server_id)) {
		if (reply)
			slideops__agent__enrol_reply__free_unpacked(reply, NULL);
		msg_error(MSG_AGENT_WORKSPACE_BAD_REPLY, "/agent/enrol");
		return -EPROTO;
	}
	snprintf(a->cred.server_id, sizeof(a->cred.server_id), "%s", reply->server_id);
	snprintf(a->cred.credential, sizeof(a->cred.credential), "%s", reply->credential);
	snprintf(a->cred.name, sizeof(a->cred.name), "%s",
		 reply->name && *reply->name ? reply->name : req.name);
	slideops__agent__enrol_reply__free_unpacked(reply, NULL);
	err = credential__save(a->opts->data, &a->cred);
	if (err) {
		msg_error(MSG_AGENT_CREDENTIAL_UNWRITABLE, a->opts->data, strerror(-err));
		return err;
	}
	msg_fprint(stderr, MSG_AGENT_ENROLLED, a->cred.name, a->opts->workspace);
	return 0;
}

/* The credential kept, or a new one from enrolment. 0 or -errno (said). */
int agent__credential(struct agent *a, struct transport *t)
{
	int err = credential__load(a->opts->data, &a->cred);

	if (err == -ENOENT) {
		if (!a->opts->enrol_token) {
			msg_error(MSG_AGENT_NOT_ENROLLED, a->opts->data);
			return err;
		}
		return enrol(a, t);
	}
	switch (err) {
	case 0:
		if (a->opts->enrol_token)
			msg_fprint(stderr, MSG_AGENT_ALREADY_ENROLLED, a->cred.name,
				   a->opts->data);
		return 0;
	case -ELOOP:
		msg_error(MSG_AGENT_CREDENTIAL_LINK, a->opts->data);
		return err;
	case -EPERM:
		msg_error(MSG_AGENT_CREDENTIAL_MODE, a->opts->data);
		return err;
	case -EBADMSG:
		msg_error(MSG_AGENT_CREDENTIAL_BAD, a->opts->data);
		return err;
	default:
		msg_error(MSG_AGENT_CREDENTIAL_UNREADABLE, a->opts->data, strerror(-err));
		return err;
	}
}

