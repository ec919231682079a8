// SPDX-License-Identifier: MIT
/*
 * What owns a process (architecture.md). The cgroup path says most of it: container runtimes
 * and systemd name their cgroups after what they run. What it cannot say (machines
 * without systemd) the process tree does: a controlling terminal, or an ancestor that is
 * a login (sshd, login) or a shell.
 *
 * Workload: a capture classifies each process it sees once, a few hundred to a few
 * thousand; ancestors are shared by many, so they are read once and kept. Container
 * names come from the runtimes' files and are kept per id (owner_cgroup.c: what a cgroup
 * path says, and the containers' names).
 */
#include "proc/owner.h"
#include "proc/owner_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/mounts.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/messages.h"
#include "util/clock.h"

/* ---- the process tree ---- */

static bool node_equal(const void *key, uint32_t id, void *ctx)
{
	const struct owner_resolver *r = ctx;

	return r->nodes[id].pid == *(const int *)key;
}

static int node_fill(struct owner_resolver *r, struct pnode *n, int pid)
{
	struct proc_info *p;
	int err;

	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	err = proc__read_stat(r->proc_root, pid, r->exe_services, p);
	if (err)
		goto out_free;
	free(n->exe);
	n->exe = NULL;
	n->pid = pid;
	n->ppid = p->ppid;
	n->tty_nr = p->tty_nr;
	n->kthread = p->kthread;
	n->start_ticks = p->start_ticks;
	n->read_at_ns = clock__monotonic_ns();
	memcpy(n->comm, p->comm, sizeof(n->comm));
	if (r->exe_services && p->exe[0]) {
		n->exe = strdup(p->exe);
		if (!n->exe)
			err = -ENOMEM;
	}
out_free:
	free(p);
	return err;
}

/*
 * The parent of a process that started at child_start: its index in r->nodes, or -1.
 * A kept node is read again when it is old, or when it started after the child (then
 * it is another process that got the pid since); a parent that started after its
 * child is not its parent (the child was reparented since we read it).
 */
static long node_parent(struct owner_resolver *r, int ppid, uint64_t child_start)
{
	uint64_t hash = hash_u64(0, (uint64_t)ppid);
	struct pnode *grown, fresh = { 0 };
	uint32_t id;

	id = hashmap__find(r->node_index, hash, &ppid, node_equal, r);
	if (id != HASHMAP_NONE) {
		if (r->nodes[id].start_ticks <= child_start &&
		    clock__monotonic_ns() - r->nodes[id].read_at_ns < NODE_FRESH_NS)
			return id;
		if (node_fill(r, &r->nodes[id], ppid) || r->nodes[id].start_ticks > child_start)
			return -1;
		return id;
	}
	if (node_fill(r, &fresh, ppid) || fresh.start_ticks > child_start)
		goto out_drop;
	if (r->nnodes == r->nodes_cap) {
		size_t cap = r->nodes_cap ? 2 * r->nodes_cap : 64;

		grown = realloc(r->nodes, cap * sizeof(*grown));
		if (!grown)
			goto out_drop;
		r->nodes = grown;
		r->nodes_cap = cap;
	}
	if (hashmap__insert(r->node_index, hash, r->nnodes))
		goto out_drop;
	r->nodes[r->nnodes] = fresh;
	return r->nnodes++;

out_drop:
	free(fresh.exe);
	return -1;
}

/* p's ancestors, nearest first, below pid 1 (init is everyone's ancestor and says
 * nothing) and outside the kernel's own threads. Returns how many went into out. */
static size_t ancestors(struct owner_resolver *r, const struct proc_info *p, long *out)
{
	uint64_t start = p->start_ticks;
	int ppid = p->ppid;
	size_t n = 0;

	while (ppid > 1 && n < MAX_ANCESTORS) {
		long id = node_parent(r, ppid, start);

		if (id < 0 || r->nodes[id].kthread)
			break;
		out[n++] = id;
		start = r->nodes[id].start_ticks;
		ppid = r->nodes[id].ppid;
	}
	return n;
}

/* ---- the rules ---- */

static bool comm_in(const char *comm, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(comm, *list) == 0)
			return true;
	return false;
}

/* Programs a person signs in through, and shells. */
static const char *const session_comms[] = {
	"sshd", "sshd-session", "login", "dropbear", "mosh-server", "tmux: server", "screen",
	"SCREEN", "su", "sudo", "bash", "sh", "dash", "zsh", "fish", "ksh", "ksh93", "mksh",
	"tcsh", "csh", "ash", "yash", "nu", NULL,
};

/* A terminal waiting for someone to sign in is not a session yet. */
static const char *const getty_comms[] = { "agetty", "getty", "mingetty", "fgetty", NULL };

/* Daemons that start shells on nobody's behalf: what runs under them is not a session. */
static const char *const daemon_comms[] = {
	"cron", "crond", "anacron", "atd", "systemd", "init", "runsv", "s6-supervise",
	"supervisord", NULL,
};

/*
 * Without systemd's session scopes: a controlling terminal, else the ancestors. The
 * farthest one that is a login, a shell or a scheduler decides: cron -> sh -> backup is
 * cron's, sshd -> bash -> cron -> job is whoever signed in and started that cron.
 */
static bool in_session(struct owner_resolver *r, const struct proc_info *p, const long *anc,
		       size_t nanc)
{
	bool session = false;

	if (p->tty_nr != 0 && !comm_in(p->comm, getty_comms))
		return true;
	for (size_t i = 0; i < nanc; i++) {
		const char *comm = r->nodes[anc[i]].comm;

		if (comm_in(comm, daemon_comms))
			session = false;
		else if (comm_in(comm, session_comms))
			session = true;
	}
	return session;
}

/* "/usr/bin/app (deleted)" is the old binary of a process whose file was replaced:
 * still that program. */
static bool exe_equal(const char *exe, const char *path)
{
	size_t len = path ? strlen(path) : 0;

	if (!exe || !len || strncmp(exe, path, len) != 0)
		return false;
	return exe[len] == '\0' || strcmp(exe + len, " (deleted)") == 0;
}

/* A script run by an interpreter ("python3 /usr/bin/gunicorn") has the interpreter as
 * its exe; its first or second argument names the program. */
static bool cmdline_names(const struct owner_resolver *r, int pid, const char *path)
{
	char file[PATH_MAX], buf[2 * PATH_MAX + 2];
	size_t len = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/%d/cmdline", r->proc_root, pid);
	f = fopen(file, "re");
	if (!f)
		return false;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	for (size_t off = 0, arg = 0; off < len && arg < 2; arg++) {
		if (strcmp(buf + off, path) == 0)
			return true;
		off += strlen(buf + off) + 1;
	}
	return false;
}

static bool unit_names(const char *cgroup, const char *unit)
{
	size_t ulen = strlen(unit);

	if (!ulen)
		return false;
	for (const char *c = cgroup; *c;) {
		const char *end = strchr(c, '/');
		size_t len = end ? (size_t)(end - c) : strlen(c);

		if ((len == ulen && memcmp(c, unit, len) == 0) ||
		    (len == ulen + 8 && memcmp(c, unit, ulen) == 0 &&
		     memcmp(c + ulen, ".service", 8) == 0))
			return true;
		if (!end)
			break;
		c = end + 1;
	}
	return false;
}

/* A container service names the container, by name ("redis"; for a kubernetes
 * "POD/CONTAINER" the container part too) or by id (12 hex or more). */
static bool container_names(const char *id, const char *name, const char *value)
{
	const char *slash = strrchr(name, '/');
	size_t vlen = strlen(value);

	while (*value == '/')
		value++, vlen--;
	if (!vlen)
		return false;
	if (strcmp(name, value) == 0 || (slash && strcmp(slash + 1, value) == 0))
		return true;
	return id[0] && vlen >= SHORT_ID_LEN && vlen <= strlen(id) && is_hex(value, vlen) &&
	       strncasecmp(id, value, vlen) == 0;
}

static const struct service *match_service(struct owner_resolver *r, const struct proc_info *p,
					   const struct cgroup_facts *f, const char *cname,
					   const long *anc, size_t nanc)
{
	for (size_t i = 0; i < r->nservices; i++) {
		const struct service *s = &r->services[i];

		switch (s->match) {
		case SERVICE_BY_UNIT:
			if (unit_names(p->cgroup, s->value))
				return s;
			break;
		case SERVICE_BY_CONTAINER:
			if ((f->container_id[0] || cname[0]) &&
			    container_names(f->container_id, cname, s->value))
				return s;
			break;
		case SERVICE_BY_EXE:
			if (exe_equal(p->exe, s->value) || exe_equal(p->exe, r->real_exes[i]) ||
			    cmdline_names(r, p->pid, s->value))
				return s;
			/* What the program started is its work too (workers, helpers). */
			for (size_t a = 0; a < nanc; a++)
				if (exe_equal(r->nodes[anc[a]].exe, s->value) ||
				    exe_equal(r->nodes[anc[a]].exe, r->real_exes[i]))
					return s;
			break;
		}
	}
	return NULL;
}

static void owner_set(struct owner *out, enum group_kind kind, const char *name)
{
	static const enum msg_id labels[GROUP_KIND__COUNT] = {
		[GROUP_SERVICE] = MSG_OWNER_SERVICE,   [GROUP_CONTAINER] = MSG_OWNER_CONTAINER,
		[GROUP_UNIT] = MSG_OWNER_UNIT,         [GROUP_SESSION] = MSG_OWNER_SESSION,
		[GROUP_SYSTEM] = MSG_OWNER_SYSTEM,     [GROUP_OTHER] = MSG_OWNER_OTHER,
	};

	out->kind = kind;
	snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
	msg_format(out->label, sizeof(out->label), labels[kind], out->name);
}

void owner_resolver__classify(struct owner_resolver *r, const struct proc_info *p,
			      struct owner *out)
{
	char cname[OWNER_NAME_MAX] = "";
	const struct service *svc;
	long anc[MAX_ANCESTORS];
	struct cgroup_facts f;
	size_t nanc = 0;

	cgroup_facts__parse(p->cgroup, &f);
	if (f.container_id[0])
		owner_resolver__container_name(r, f.container_id, cname, sizeof(cname));
	else
		snprintf(cname, sizeof(cname), "%s", f.container_name);
	if (!p->kthread)
		nanc = ancestors(r, p, anc);

	svc = match_service(r, p, &f, cname, anc, nanc);
	/* The profiler itself (the process classifying, on this machine's /proc) is
	 * System's, wherever it was started from: its cost stays visible as a process row of
	 * its own there, and no answer names it (the profile's header says its pid). */
	if (!p->kthread && p->pid == getpid() && strcmp(r->proc_root, "/proc") == 0)
		owner_set(out, GROUP_SYSTEM, NULL);
	else if (svc)
		owner_set(out, GROUP_SERVICE, svc->name);
	else if (cname[0])
		owner_set(out, GROUP_CONTAINER, cname);
	else if (f.unit[0])
		owner_set(out, GROUP_UNIT, f.unit);
	else if (f.session || (!p->kthread && in_session(r, p, anc, nanc)))
		owner_set(out, GROUP_SESSION, NULL);
	else if (p->kthread || p->pid == 1)
		owner_set(out, GROUP_SYSTEM, NULL);
	else
		owner_set(out, GROUP_OTHER, NULL);
}

/* ---- life cycle ---- */

static int services_copy(struct owner_resolver *r, const struct service *src, size_t n)
{
	struct mounts mounts = { 0 };
	bool mounts_read = false;

	if (!n)
		return 0;
	r->services = calloc(n, sizeof(*r->services));
	r->real_exes = calloc(n, sizeof(*r->real_exes));
	if (!r->services || !r->real_exes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r->services[i].match = src[i].match;
		r->services[i].name = strdup(src[i].name ? src[i].name : "");
		r->services[i].value = strdup(src[i].value ? src[i].value : "");
		r->nservices++;
		if (!r->services[i].name || !r->services[i].value) {
			mounts__clear(&mounts);
			return -ENOMEM;
		}
		if (src[i].match == SERVICE_BY_EXE) {
			const struct mount_entry *e;

			if (!mounts_read) {
				mounts_read = true;
				mounts__read(&mounts, "/proc/self/mountinfo");
			}
			/* /proc/PID/exe shows the file, not the link the user named
			 * ("/usr/bin/python3" runs as "/usr/bin/python3.11"). Not on a mount
			 * that may not answer (proc/mounts.h): each lstat of the way could wait
			 * for good, and every capture with it; such a path is taken as named. */
			e = mounts__of_path(&mounts, src[i].value);
			if (!e || !e->may_hang)
				r->real_exes[i] = realpath(src[i].value, NULL);
			r->exe_services = true;
		}
	}
	mounts__clear(&mounts);
	return 0;
}

struct owner_resolver *owner_resolver__new(const char *proc_root, const char *container_root,
					   const struct service *services, size_t n)
{
	const char *env = getenv("SLIDEOPS_CONTAINER_ROOT");
	struct owner_resolver *r;

	if (env && *env)
		container_root = env;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->proc_root = strdup(proc_root ? proc_root : "/proc");
	r->container_root = strdup(container_root ? container_root : "/");
	r->node_index = hashmap__new();
	if (!r->proc_root || !r->container_root || !r->node_index ||
	    services_copy(r, services, n))
		goto out_free;
	return r;

out_free:
	owner_resolver__free(r);
	errno = ENOMEM;
	return NULL;
}

void owner_resolver__free(struct owner_resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nservices; i++) {
		free(r->services[i].name);
		free(r->services[i].value);
		free(r->real_exes[i]);
	}
	free(r->services);
	free(r->real_exes);
	for (size_t i = 0; i < r->nnodes; i++)
		free(r->nodes[i].exe);
	free(r->nodes);
	hashmap__free(r->node_index);
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i].name);
	free(r->names);
	json_decref(r->storage_containers);
	free(r->proc_root);
	free(r->container_root);
	free(r);
}

void services__free(struct service *svc, size_t n)
{
	if (!svc)
		return;
	for (size_t i = 0; i < n; i++) {
		free(svc[i].name);
		free(svc[i].value);
	}
	free(svc);
}
