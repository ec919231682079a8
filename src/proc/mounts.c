// SPDX-License-Identifier: MIT
/*
 * Mounts by device, from mountinfo (proc(5)): "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1
 * - ext3 /dev/root rw". A machine has tens of mounts; a container's own namespace adds
 * its few. Looked up once per new device a capture meets, so a list is enough.
 */
#include "proc/mounts.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "util/clock.h"

/* Types whose reads go to another machine or to a process of user space. */
static const char *const hanging_types[] = {
	"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "lustre", "gpfs",
	"afs", "ocfs2", "gfs2", "virtiofs", "orangefs", "pvfs2", "beegfs", "coda", "ncpfs",
	"fuse", "fuseblk", "davfs", "sshfs",
};

/*
 * Whether fstype is in SLIDEOPS_TRUSTED_MOUNTS, a comma-separated list of file system
 * types the operator trusts to answer (an NFS that never goes away; the kernel matrix's
 * guests, whose root is 9p): their binaries are read in the profiler's own process, at
 * local speed, and a read that does not return stalls the capture.
 */
static bool mounts__trusted(const char *fstype)
{
	const char *list = getenv("SLIDEOPS_TRUSTED_MOUNTS");
	size_t len = strlen(fstype);

	while (list && *list) {
		size_t n = strcspn(list, ",");

		if (n == len && strncmp(list, fstype, n) == 0)
			return true;
		list += n;
		if (*list == ',')
			list++;
	}
	return false;
}

bool mounts__may_hang(const char *fstype)
{
	if (!fstype || mounts__trusted(fstype))
		return false;
	/* Every FUSE daemon's: "fuse.sshfs", "fuse.gcsfuse", "fuse.s3fs". */
	if (strncmp(fstype, "fuse.", 5) == 0)
		return true;
	for (size_t i = 0; i < sizeof(hanging_types) / sizeof(hanging_types[0]); i++)
		if (strcmp(fstype, hanging_types[i]) == 0)
			return true;
	return false;
}

const struct mount_entry *mounts__find(const struct mounts *m, dev_t dev)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->items[i].dev == dev)
			return &m->items[i];
	return NULL;
}

const struct mount_entry *mounts__of_path(const struct mounts *m, const char *path)
{
	const struct mount_entry *best = NULL;
	size_t best_len = 0;

	if (!path || path[0] != '/')
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const char *point = m->items[i].point;
		size_t len = strlen(point);

		if (strcmp(point, "/") == 0)
			len = 0;
		else if (strncmp(path, point, len) != 0 || (path[len] != '/' && path[len] != '\0'))
			continue;
		if (!best || len >= best_len) {
			best = &m->items[i];
			best_len = len;
		}
	}
	return best;
}

const struct mount_entry *mounts__hang_on_path(const struct mounts *m, const char *path)
{
	if (!path || path[0] != '/')
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const char *point = m->items[i].point;
		size_t len = strcmp(point, "/") == 0 ? 0 : strlen(point);

		if (m->items[i].may_hang && strncmp(path, point, len) == 0 &&
		    (path[len] == '/' || path[len] == '\0'))
			return &m->items[i];
	}
	return NULL;
}

void mounts__own_hang_on_path(const char *path, char *fstype, size_t len)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct mounts own;
	static int64_t read_ns;
	int64_t now = clock__monotonic_ns();
	const struct mount_entry *e;

	pthread_mutex_lock(&lock);
	if (!read_ns || now - read_ns > 1000000000LL) {
		mounts__clear(&own);
		mounts__read(&own, "/proc/self/mountinfo");
		read_ns = now;
	}
	e = mounts__hang_on_path(&own, path);
	snprintf(fstype, len, "%s", e ? e->fstype : "");
	pthread_mutex_unlock(&lock);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static int mounts__add(struct mounts *m, dev_t dev, const char *fstype, const char *point)
{
	struct mount_entry *e;
	char *where = strdup(point);

	if (!where)
		return -ENOMEM;
	unescape(where);
	/* A device mounted at another point too (a bind mount) is listed there too: a path
	 * under either is looked up through it. mounts__find gives its first entry. */
	for (size_t i = 0; i < m->n; i++)
		if (m->items[i].dev == dev && strcmp(m->items[i].point, where) == 0)
			goto out_free;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 32;
		struct mount_entry *grown = realloc(m->items, cap * sizeof(*grown));

		if (!grown) {
			free(where);
			return -ENOMEM;
		}
		m->items = grown;
		m->cap = cap;
	}
	e = &m->items[m->n];
	e->dev = dev;
	e->fstype = strdup(fstype);
	if (!e->fstype) {
		free(where);
		return -ENOMEM;
	}
	e->point = where;
	e->may_hang = mounts__may_hang(fstype);
	m->n++;
	return 0;
out_free:
	free(where);
	return 0;
}

/* One line: the fields before " - " are ID PARENT MAJOR:MINOR ROOT POINT OPTIONS
 * [OPTIONAL...]; after it TYPE SOURCE SUPER-OPTIONS. A line not of that form is skipped. */
static int mounts__parse_line(struct mounts *m, char *line)
{
	char *sep = strstr(line, " - "), *save = NULL, *field, *point = NULL, *fstype;
	unsigned int major, minor;
	int i = 0;
	bool dev_ok = false;

	if (!sep)
		return 0;
	*sep = '\0';
	for (field = strtok_r(line, " ", &save); field && i < 5;
	     field = strtok_r(NULL, " ", &save), i++) {
		if (i == 2)
			dev_ok = sscanf(field, "%u:%u", &major, &minor) == 2;
		else if (i == 4)
			point = field;
	}
	fstype = strtok_r(sep + 3, " \n", &save);
	if (!dev_ok || !point || !fstype)
		return 0;
	return mounts__add(m, makedev(major, minor), fstype, point);
}

int mounts__parse(struct mounts *m, const char *text)
{
	while (text && *text) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		char *line = strndup(text, len);
		int err;

		if (!line)
			return -ENOMEM;
		err = mounts__parse_line(m, line);
		free(line);
		if (err)
			return err;
		text += len + (end ? 1 : 0);
	}
	return 0;
}

int mounts__read(struct mounts *m, const char *mountinfo_path)
{
	FILE *f = fopen(mountinfo_path, "re");
	char *line = NULL;
	size_t size = 0;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && getline(&line, &size, f) > 0)
		err = mounts__parse_line(m, line);
	free(line);
	fclose(f);
	return err;
}

void mounts__clear(struct mounts *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->items[i].fstype);
		free(m->items[i].point);
	}
	free(m->items);
	memset(m, 0, sizeof(*m));
}
