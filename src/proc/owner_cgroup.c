// SPDX-License-Identifier: MIT
/*
 * What a process's cgroup path says of its owner (owner.h): the container runtimes and
 * systemd name their cgroups after what they run (docker, containerd, podman, kubepods,
 * lxc, NAME.service, user.slice), and the runtimes' own files name their containers,
 * kept per id. Paths and files are a process's or a runtime's: read as hostile.
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

#include "util/hash.h"
#include "util/hashmap.h"
#include "util/messages.h"
#include "util/clock.h"

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static void copy_part(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/*
 * A container id in one path component: "docker-ID.scope" (docker, systemd driver),
 * "cri-containerd-ID.scope", "crio-ID.scope", "libpod-ID.scope" (podman), or a bare
 * 64-hex component ("/docker/ID", "/kubepods/besteffort/podUID/ID", cgroupfs drivers).
 * "libpod-conmon-ID.scope" and "crio-conmon-ID.scope" hold the monitors, not the
 * containers, and fail the hex test.
 */
static bool component_container_id(const char *c, size_t len, char id[CONTAINER_ID_MAX + 1])
{
	static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-", "libpod-",
						"cri-dockerd-" };
	const char *colon = memrchr(c, ':', len);

	/* "kubepods-...-podUID.slice:cri-containerd:ID": containerd given systemd-style
	 * names without the systemd driver. */
	if (colon && (size_t)(c + len - colon - 1) == CONTAINER_ID_MAX &&
	    is_hex(colon + 1, CONTAINER_ID_MAX)) {
		copy_part(id, CONTAINER_ID_MAX + 1, colon + 1, CONTAINER_ID_MAX);
		return true;
	}
	if (has_suffix(c, len, ".scope"))
		len -= strlen(".scope");
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (has_prefix(c, len, prefixes[i]) && len - n >= SHORT_ID_LEN &&
		    len - n <= CONTAINER_ID_MAX && is_hex(c + n, len - n)) {
			copy_part(id, CONTAINER_ID_MAX + 1, c + n, len - n);
			return true;
		}
	}
	if (len == CONTAINER_ID_MAX && is_hex(c, len)) {
		copy_part(id, CONTAINER_ID_MAX + 1, c, len);
		return true;
	}
	return false;
}

/* A kubernetes pod uid: "podUID" (cgroupfs) or "kubepods-QOS-podUID.slice" (systemd,
 * with the uid's dashes escaped to underscores). Written to uid without its dashes. */
static bool component_pod_uid(const char *c, size_t len, char uid[CONTAINER_ID_MAX + 1])
{
	char hex[CONTAINER_ID_MAX + 1];
	const char *p = NULL;
	size_t n = 0;

	if (has_suffix(c, len, ".slice"))
		len -= strlen(".slice");
	if (has_prefix(c, len, "pod")) {
		p = c + 3;
	} else if (has_prefix(c, len, "kubepods")) {
		for (size_t i = 0; i + 4 <= len; i++)
			if (memcmp(c + i, "-pod", 4) == 0)
				p = c + i + 4;
	}
	if (!p)
		return false;
	for (; p < c + len; p++) {
		if (*p == '-' || *p == '_')
			continue;
		if (!isxdigit((unsigned char)*p) || n == CONTAINER_ID_MAX)
			return false;
		hex[n++] = *p;
	}
	if (n < SHORT_ID_LEN)
		return false;
	copy_part(uid, CONTAINER_ID_MAX + 1, hex, n);
	return true;
}

void cgroup_facts__parse(const char *path, struct cgroup_facts *f)
{
	bool kube = false, user_slice = false;
	char pod[CONTAINER_ID_MAX + 1] = "";
	const char *prev = NULL;
	size_t prev_len = 0;

	memset(f, 0, sizeof(*f));
	for (const char *c = path; *c;) {
		const char *end = strchr(c, '/');
		size_t len = end ? (size_t)(end - c) : strlen(c);
		char id[CONTAINER_ID_MAX + 1];

		if (len == 0)
			goto next;
		if (component_container_id(c, len, id)) {
			snprintf(f->container_id, sizeof(f->container_id), "%s", id);
			f->container_name[0] = '\0';
		} else if (has_prefix(c, len, "lxc.payload.") && len > strlen("lxc.payload.")) {
			/* LXC 4+: the container's name is in the path. */
			f->container_id[0] = '\0';
			copy_part(f->container_name, sizeof(f->container_name),
				  c + strlen("lxc.payload."), len - strlen("lxc.payload."));
		} else if (prev_len == 3 && memcmp(prev, "lxc", 3) == 0) {
			f->container_id[0] = '\0';
			copy_part(f->container_name, sizeof(f->container_name), c, len);
		} else if (has_prefix(c, len, "kubepods")) {
			kube = true;
		}
		if (kube && !pod[0])
			component_pod_uid(c, len, pod);
		if (c == path + 1 && len == 10 && memcmp(c, "user.slice", 10) == 0)
			user_slice = true;
		if (has_prefix(c, len, "session-") && has_suffix(c, len, ".scope"))
			f->session = true;
		/* A user's own manager (user@1000.service) is the user's, not a unit of the
		 * machine; the services it runs for them are units. */
		if (has_suffix(c, len, ".service") && !has_prefix(c, len, "user@"))
			copy_part(f->unit, sizeof(f->unit), c, len);
next:
		prev = c;
		prev_len = len;
		if (!end)
			break;
		c = end + 1;
	}
	if (user_slice && !f->unit[0])
		f->session = true;
	/* A pod's own cgroup, outside any of its containers (rare): name it by the pod. */
	if (kube && !f->container_id[0] && !f->container_name[0] && pod[0])
		snprintf(f->container_name, sizeof(f->container_name), "pod-%.*s", SHORT_ID_LEN,
			 pod);
}

/* ---- container names ---- */

/* The directory entry in dir whose name is id or starts with it (a short id), or -1. */
static int find_entry(const char *dir, const char *id, const char *suffix, char *out,
		      size_t size)
{
	size_t idlen = strlen(id);
	struct dirent *de;
	int found = -1;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (suffix) {
			/* kubelet's "POD_NAMESPACE_CONTAINER-ID.log": the id ends the name. */
			const char *dash;

			if (!has_suffix(de->d_name, len, suffix))
				continue;
			len -= strlen(suffix);
			dash = memrchr(de->d_name, '-', len);
			if (!dash || (size_t)(de->d_name + len - dash - 1) < idlen ||
			    strncmp(dash + 1, id, idlen) != 0)
				continue;
		} else if (strncmp(de->d_name, id, idlen) != 0) {
			continue;
		}
		snprintf(out, size, "%s", de->d_name);
		found = 0;
		break;
	}
	closedir(d);
	return found;
}

/* Docker: /var/lib/docker/containers/ID/config.v2.json, "Name": "/redis". */
static char *docker_name(const struct owner_resolver *r, const char *id)
{
	char dir[PATH_MAX], entry[NAME_MAX + 1], path[PATH_MAX + NAME_MAX + 32];
	const char *name;
	char *out = NULL;
	json_t *doc;

	snprintf(dir, sizeof(dir), "%s/var/lib/docker/containers", r->container_root);
	if (find_entry(dir, id, NULL, entry, sizeof(entry)))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/config.v2.json", dir, entry);
	doc = json_load_file(path, 0, NULL);
	if (!doc)
		return NULL;
	name = json_string_value(json_object_get(doc, "Name"));
	if (name) {
		while (*name == '/')
			name++;
		if (*name)
			out = strdup(name);
	}
	json_decref(doc);
	return out;
}

/* Kubernetes: kubelet links /var/log/containers/POD_NAMESPACE_CONTAINER-ID.log for
 * every container it runs, whatever the runtime. Named "POD/CONTAINER". */
static char *kubelet_name(const struct owner_resolver *r, const char *id)
{
	char dir[PATH_MAX], entry[NAME_MAX + 1], *first, *last, *dash, *out;

	snprintf(dir, sizeof(dir), "%s/var/log/containers", r->container_root);
	if (find_entry(dir, id, ".log", entry, sizeof(entry)))
		return NULL;
	first = strchr(entry, '_');
	last = strrchr(entry, '_');
	dash = strrchr(entry, '-');
	if (!first || last == first || !dash || dash < last)
		return NULL;
	*first = '\0';
	*dash = '\0';
	if (asprintf(&out, "%s/%s", entry, last + 1) < 0)
		return NULL;
	return out;
}

/* Podman and CRI-O keep containers in containers/storage: a JSON array of
 * {"id": ..., "names": [...]} in overlay-containers/containers.json. */
static char *storage_name(struct owner_resolver *r, const char *id)
{
	size_t idlen = strlen(id), i;
	json_t *c;

	if (!r->storage_read) {
		char path[PATH_MAX];

		r->storage_read = true;
		snprintf(path, sizeof(path),
			 "%s/var/lib/containers/storage/overlay-containers/containers.json",
			 r->container_root);
		r->storage_containers = json_load_file(path, 0, NULL);
	}
	json_array_foreach(r->storage_containers, i, c) {
		const char *cid = json_string_value(json_object_get(c, "id"));
		json_t *names = json_object_get(c, "names");
		const char *name = json_string_value(json_array_get(names, 0));

		if (cid && name && *name && strncmp(cid, id, idlen) == 0)
			return strdup(name);
	}
	return NULL;
}

/* The name of container id into out: the runtime's, else the 12-hex short id. Names
 * are kept per id (a failed allocation only costs a second look). */
void owner_resolver__container_name(struct owner_resolver *r, const char *id, char *out,
				    size_t size)
{
	struct container_name *e;
	char *name;

	for (size_t i = 0; i < r->nnames; i++) {
		if (strcmp(r->names[i].id, id) == 0) {
			snprintf(out, size, "%s", r->names[i].name);
			return;
		}
	}
	name = docker_name(r, id);
	if (!name)
		name = kubelet_name(r, id);
	if (!name)
		name = storage_name(r, id);
	if (!name)
		name = strndup(id, SHORT_ID_LEN);
	copy_part(out, size, name ? name : id, name ? strlen(name) : SHORT_ID_LEN);
	if (!name)
		return;
	if (r->nnames == r->names_cap) {
		size_t cap = r->names_cap ? 2 * r->names_cap : 16;

		e = realloc(r->names, cap * sizeof(*e));
		if (!e) {
			free(name);
			return;
		}
		r->names = e;
		r->names_cap = cap;
	}
	e = &r->names[r->nnames++];
	snprintf(e->id, sizeof(e->id), "%s", id);
	e->name = name;
}
