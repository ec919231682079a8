/* SPDX-License-Identifier: MIT */
/*
 * The agent's data directory and its credential (docs/protocol.md, Enrolment).
 * DATA/credential holds what enrolment gave: {"server_id", "credential", "name"}, mode
 * 0600, written whole. A data directory or credential that is a symbolic link, or that
 * others may write (or, for the credential, read), is refused: whoever could change it
 * could make the agent act for another server, or read its credential.
 */
#ifndef SLIDEOPS_AGENT_CREDENTIAL_H
#define SLIDEOPS_AGENT_CREDENTIAL_H

#include <stdbool.h>

#define CREDENTIAL_MAX 256
#define SERVER_NAME_MAX 256

struct agent_credential {
	char server_id[CREDENTIAL_MAX];
	char credential[CREDENTIAL_MAX];
	char name[SERVER_NAME_MAX];
};

/* Makes dir (mode 0700) if missing, and checks it: a directory, not a symbolic link,
 * owned by us, writable by no one else. 0 or -errno: -ELOOP a link, -ENOTDIR, -EPERM
 * writable by others or owned by another user. */
int agent_data__prepare(const char *dir);

/* Reads DATA/credential. 0; -ENOENT none (enrol first); -ELOOP a link; -EPERM a mode
 * other than 0600 or another owner; -EBADMSG not one of ours. */
int credential__load(const char *dir, struct agent_credential *out);
/* Writes DATA/credential whole, mode 0600. 0 or -errno. */
int credential__save(const char *dir, const struct agent_credential *c);
/* Deletes DATA/credential. 0 (also when there was none) or -errno. */
int credential__delete(const char *dir);

/* What enrolment says of this machine. */
struct agent_identity {
	char hostname[SERVER_NAME_MAX];
	char machine_id[64];  /* /etc/machine-id, "" when it has none */
	char kernel[128];     /* uname -r */
	char boot_id[64];     /* /proc/sys/kernel/random/boot_id */
	unsigned cpus;
};

/* 0, or -errno when the boot id cannot be read (a batch needs it). */
int agent_identity__read(struct agent_identity *out);

#endif
