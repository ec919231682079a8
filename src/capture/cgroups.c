// SPDX-License-Identifier: MIT
/*
 * Cgroup ids to paths by walking the cgroup2 mount: a server has tens to a few thousand
 * cgroups, and the walk happens only when an id is missed (at most once a second).
 */
#include "capture/cgroups.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/hashmap.h"
#include "util/clock.h"

#define CGROUPS_MAX_DEPTH 32
#define RESCAN_INTERVAL_NS 1000000000LL

struct cgroup_entry {
	uint64_t id;
	char *path;
};

struct cgroups {
	char mount[PATH_MAX];
	struct cgroup_entry *entries;
	uint32_t n, cap;
	struct hashmap *index;
	int64_t scanned_at_ns; /* 0: never */
};

/* The first cgroup2 mount in /proc/self/mountinfo ("... - cgroup2 ..."). */
static int find_mount(char *out, size_t size)
{
	char line[4096], mnt[PATH_MAX];
	int err = -ENOENT;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && strlen(mnt) < size) {
			strcpy(out, mnt);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

struct cgroups *cgroups__new(const char *mount)
{
	struct cgroups *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->index = hashmap__new();
	if (!c->index) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	if (mount)
		snprintf(c->mount, sizeof(c->mount), "%s", mount);
	else if (find_mount(c->mount, sizeof(c->mount)))
		c->mount[0] = '\0'; /* no cgroup2: every id is unknown */
	return c;
}

void cgroups__free(struct cgroups *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		free(c->entries[i].path);
	free(c->entries);
	hashmap__free(c->index);
	free(c);
}

static bool entry__equal(const void *key, uint32_t id, void *ctx)
{
	return ((struct cgroups *)ctx)->entries[id].id == *(const uint64_t *)key;
}

static const struct cgroup_entry *cgroups__find(struct cgroups *c, uint64_t id)
{
	uint32_t at = hashmap__find(c->index, hash_u64(0, id), &id, entry__equal, c);

	return at == HASHMAP_NONE ? NULL : &c->entries[at];
}

static int cgroups__add(struct cgroups *c, uint64_t id, const char *path)
{
	if (cgroups__find(c, id))
		return 0;
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 64;
		struct cgroup_entry *e = realloc(c->entries, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		c->entries = e;
		c->cap = cap;
	}
	c->entries[c->n].id = id;
	c->entries[c->n].path = strdup(path);
	if (!c->entries[c->n].path)
		return -ENOMEM;
	if (hashmap__insert(c->index, hash_u64(0, id), c->n)) {
		free(c->entries[c->n].path);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* Adds every cgroup under fd_dir (the cgroup at path, relative to the mount). */
static int cgroups__walk(struct cgroups *c, int fd_dir, char *path, size_t len, int depth)
{
	struct dirent *de;
	int err = 0;
	DIR *dir;

	dir = fdopendir(fd_dir);
	if (!dir) {
		close(fd_dir);
		return 0;
	}
	while ((de = readdir(dir)) && !err) {
		struct stat st;
		size_t n;
		int fd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		n = strlen(de->d_name);
		if (len + 1 + n >= PATH_MAX)
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* removed meanwhile */
		if (fstat(fd, &st)) {
			close(fd);
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		err = cgroups__add(c, st.st_ino, path);
		if (!err && depth < CGROUPS_MAX_DEPTH)
			err = cgroups__walk(c, fd, path, len + 1 + n, depth + 1);
		else
			close(fd);
		path[len] = '\0';
	}
	closedir(dir);
	return err;
}

static int cgroups__scan(struct cgroups *c)
{
	char path[PATH_MAX] = "";
	struct stat st;
	int fd;

	c->scanned_at_ns = clock__monotonic_ns();
	if (!c->mount[0])
		return 0;
	fd = open(c->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || cgroups__add(c, st.st_ino, "/")) {
		close(fd);
		return -ENOMEM;
	}
	return cgroups__walk(c, fd, path, 0, 0);
}

int cgroups__path(struct cgroups *c, uint64_t id, char *buf, size_t size)
{
	const struct cgroup_entry *e = cgroups__find(c, id);

	if (!e && (!c->scanned_at_ns || clock__monotonic_ns() - c->scanned_at_ns >= RESCAN_INTERVAL_NS)) {
		if (cgroups__scan(c) == -ENOMEM)
			return -ENOMEM;
		e = cgroups__find(c, id);
	}
	if (!e)
		return -ENOENT;
	snprintf(buf, size, "%s", e->path);
	return 0;
}
