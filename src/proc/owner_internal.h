/* SPDX-License-Identifier: MIT */
/*
 * What owner.c (the process tree and the rules) and owner_cgroup.c (what a cgroup path
 * says, containers' names) share. Private to those two.
 */
#ifndef SLIDEOPS_PROC_OWNER_INTERNAL_H
#define SLIDEOPS_PROC_OWNER_INTERNAL_H

#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/owner.h"

#define CONTAINER_ID_MAX 64
#define SHORT_ID_LEN 12
#define MAX_ANCESTORS 64
/* How long a process read as someone's ancestor is believed. Parents exit and their
 * pids come back as other processes; within a second that is rare enough, and a whole
 * `top` or a burst of new processes in a capture is read once. */
#define NODE_FRESH_NS 1000000000ULL

/* A process seen as someone's ancestor: what the session and service rules ask. */
struct pnode {
	int pid, ppid, tty_nr;
	bool kthread;
	uint64_t start_ticks;
	uint64_t read_at_ns; /* CLOCK_MONOTONIC */
	char comm[PROC_COMM_MAX + 1];
	char *exe;
};

struct container_name {
	char id[CONTAINER_ID_MAX + 1];
	char *name;
};

struct owner_resolver {
	char *proc_root;
	char *container_root;
	struct service *services;
	char **real_exes; /* per service: an --exe path with its symlinks resolved, or NULL */
	size_t nservices;
	bool exe_services; /* any service declared by --exe: ancestors' exes are read */

	struct pnode *nodes;
	size_t nnodes, nodes_cap;
	struct hashmap *node_index;

	struct container_name *names;
	size_t nnames, names_cap;
	json_t *storage_containers; /* containers/storage's containers.json, read once */
	bool storage_read;
};

/* What a cgroup path says. */
struct cgroup_facts {
	char container_id[CONTAINER_ID_MAX + 1]; /* hex, deepest container in the path */
	char container_name[OWNER_NAME_MAX];     /* when the path itself names it (lxc, pod) */
	char unit[OWNER_NAME_MAX];               /* deepest "NAME.service", user managers aside */
	bool session;                            /* user.slice: session scopes, user managers */
};

static inline bool is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return len > 0;
}

/* What a cgroup path says (owner_cgroup.c). */
void cgroup_facts__parse(const char *path, struct cgroup_facts *f);
/* The name of container id into out: the runtime's, else the 12-hex short id. */
void owner_resolver__container_name(struct owner_resolver *r, const char *id, char *out,
				    size_t size);

#endif
