// SPDX-License-Identifier: MIT
/*
 * The agent's data directory and credential (credential.h), and the facts of this
 * machine it enrols with.
 */
#include "agent/credential.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CREDENTIAL_FILE "credential"
#define CREDENTIAL_TMP "credential.tmp"

int agent_data__prepare(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int copy_field(json_t *doc, const char *key, char *out, size_t size, bool required)
{
	const char *v = json_string_value(json_object_get(doc, key));

	if (!v || strlen(v) >= size || (required && !*v))
		return -EBADMSG;
	snprintf(out, size, "%s", v);
	return 0;
}

int credential__load(const char *dir, struct agent_credential *out)
{
	char text[4096];
	struct stat st;
	json_t *doc;
	ssize_t n;
	int dfd = open_dir(dir), fd, err;

	memset(out, 0, sizeof(*out));
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, CREDENTIAL_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	close(dfd);
	if (err)
		return err;
	if (fstat(fd, &st)) {
		err = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		err = -EBADMSG;
	} else if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		err = -EPERM;
	} else {
		n = read(fd, text, sizeof(text) - 1);
		if (n < 0)
			err = -errno;
		else
			text[n] = '\0';
	}
	close(fd);
	if (err)
		return err;
	doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	if (!doc)
		return -EBADMSG;
	err = copy_field(doc, "server_id", out->server_id, sizeof(out->server_id), true);
	if (!err)
		err = copy_field(doc, "credential", out->credential, sizeof(out->credential), true);
	if (!err)
		err = copy_field(doc, "name", out->name, sizeof(out->name), false);
	json_decref(doc);
	return err;
}

int credential__save(const char *dir, const struct agent_credential *c)
{
	json_t *doc = json_pack("{s:s, s:s, s:s}", "server_id", c->server_id, "credential",
				c->credential, "name", c->name);
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	int dfd, fd, err = 0;
	size_t len;

	json_decref(doc);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	dfd = open_dir(dir);
	if (dfd < 0) {
		free(text);
		return dfd;
	}
	unlinkat(dfd, CREDENTIAL_TMP, 0);
	fd = openat(dfd, CREDENTIAL_TMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		err = -errno;
	} else {
		errno = 0;
		if (fchmod(fd, 0600) || write(fd, text, len) != (ssize_t)len || fsync(fd))
			err = errno ? -errno : -EIO;
		if (close(fd) && !err)
			err = -errno;
		if (!err && renameat(dfd, CREDENTIAL_TMP, dfd, CREDENTIAL_FILE))
			err = -errno;
		if (err)
			unlinkat(dfd, CREDENTIAL_TMP, 0);
		else if (fsync(dfd))
			err = -errno;
	}
	/* The credential is a secret: its text goes nowhere else. */
	explicit_bzero(text, len);
	free(text);
	close(dfd);
	return err;
}

int credential__delete(const char *dir)
{
	int dfd = open_dir(dir), err = 0;

	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	if (unlinkat(dfd, CREDENTIAL_FILE, 0) && errno != ENOENT)
		err = -errno;
	close(dfd);
	return err;
}

/* The first line of path, trimmed, into out; "" when it cannot be read. */
static int read_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	out[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(out, (int)size, f))
		err = -EIO;
	fclose(f);
	out[strcspn(out, "\r\n")] = '\0';
	return err;
}

int agent_identity__read(struct agent_identity *out)
{
	struct utsname u;
	long n;

	memset(out, 0, sizeof(*out));
	if (gethostname(out->hostname, sizeof(out->hostname) - 1))
		snprintf(out->hostname, sizeof(out->hostname), "localhost");
	read_line("/etc/machine-id", out->machine_id, sizeof(out->machine_id));
	if (uname(&u) == 0)
		snprintf(out->kernel, sizeof(out->kernel), "%s", u.release);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	out->cpus = n > 0 ? (unsigned)n : 1;
	return read_line("/proc/sys/kernel/random/boot_id", out->boot_id, sizeof(out->boot_id));
}
