// SPDX-License-Identifier: MIT
/*
 * The agent's spool (spool.h): one file a batch, "batch-BOOTID-SEQUENCE.pb", and a state
 * file "state" holding "BOOTID NEXT_SEQUENCE DROPPED". Oldest is by modification time
 * (a file keeps its temporary's on rename), then by name.
 */
#include "agent/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BOOT_ID_MAX 64
#define STATE_FILE "state"
#define TMP_SUFFIX ".tmp"

struct spool {
	pthread_mutex_t lock;
	int dirfd;
	struct spool_limits limits;
	char boot_id[BOOT_ID_MAX + 1];
	uint64_t next_sequence;  /* the next number to hand out */
	uint64_t dropped;        /* not yet reported */
};

struct entry {
	char name[SPOOL_NAME_MAX];
	struct timespec mtime;
	uint64_t bytes;
};

/* Writes data to name in dirfd whole: a temporary, fsync, rename, fsync of the dir. */
static int write_whole(int dirfd, const char *name, const void *data, size_t len)
{
	char tmp[SPOOL_NAME_MAX + 8];
	const char *p = data;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s" TMP_SUFFIX, name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err) {
		unlinkat(dirfd, tmp, 0);
		return err;
	}
	return fsync(dirfd) ? -errno : 0;
}

static int save_state(struct spool *sp)
{
	char text[BOOT_ID_MAX + 64];
	int n = snprintf(text, sizeof(text), "%s %" PRIu64 " %" PRIu64 "\n", sp->boot_id,
			 sp->next_sequence, sp->dropped);

	return write_whole(sp->dirfd, STATE_FILE, text, (size_t)n);
}

/* The state as kept; a missing or unreadable state starts this boot at 1. */
static void load_state(struct spool *sp)
{
	char text[BOOT_ID_MAX + 64] = "", boot[BOOT_ID_MAX + 1];
	uint64_t next, dropped;
	ssize_t n = -1;
	int fd;

	sp->next_sequence = 1;
	sp->dropped = 0;
	fd = openat(sp->dirfd, STATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	text[n] = '\0';
	if (sscanf(text, "%64s %" SCNu64 " %" SCNu64, boot, &next, &dropped) != 3)
		return;
	sp->dropped = dropped;
	if (strcmp(boot, sp->boot_id) == 0 && next > 0)
		sp->next_sequence = next;
}

static bool is_batch(const char *name)
{
	size_t len = strlen(name);

	return strncmp(name, "batch-", 6) == 0 && len > 3 + 6 &&
	       strcmp(name + len - 3, ".pb") == 0;
}

static bool older(const struct entry *a, const struct entry *b)
{
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec;
	return strcmp(a->name, b->name) < 0;
}

/* Every batch file, oldest first. Leftover temporaries are not batches. */
static int list(struct spool *sp, struct entry **out, size_t *n)
{
	struct entry *v = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	int fd = dup(sp->dirfd);
	DIR *dir;

	*out = NULL;
	*n = 0;
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		struct stat st;

		if (!is_batch(de->d_name) || strlen(de->d_name) >= SPOOL_NAME_MAX)
			continue;
		if (fstatat(sp->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (len == cap) {
			struct entry *grown;

			cap = cap ? cap * 2 : 16;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				free(v);
				closedir(dir);
				return -ENOMEM;
			}
			v = grown;
		}
		snprintf(v[len].name, sizeof(v[len].name), "%s", de->d_name);
		v[len].mtime = st.st_mtim;
		v[len].bytes = (uint64_t)st.st_size;
		len++;
	}
	closedir(dir);
	/* Insertion sort: a spool holds tens of batches, not thousands. */
	for (size_t i = 1; i < len; i++) {
		struct entry e = v[i];
		size_t j = i;

		for (; j > 0 && older(&e, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
	*out = v;
	*n = len;
	return 0;
}

static int read_file(int dirfd, const char *name, void **data, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*data = buf;
	*len = got;
	return 0;
}

/* The drops name reports, which go unreported when it is dropped. */
static uint64_t carried(struct spool *sp, const char *name)
{
	uint64_t n = 0;
	void *data;
	size_t len;

	if (sp->limits.carried && read_file(sp->dirfd, name, &data, &len) == 0) {
		n = sp->limits.carried(sp->limits.ctx, data, len);
		free(data);
	}
	return n;
}

/* Drops name, counted with the drops it reported, and says so. */
static void drop(struct spool *sp, const char *name, const char *why)
{
	uint64_t gone = carried(sp, name); /* then this batch itself */

	if (unlinkat(sp->dirfd, name, 0) && errno != ENOENT)
		return;
	/* Saturating: the count is only ever reported. */
	gone = gone < UINT64_MAX ? gone + 1 : gone;
	sp->dropped = sp->dropped < UINT64_MAX - gone ? sp->dropped + gone : UINT64_MAX;
	save_state(sp);
	if (sp->limits.dropped)
		sp->limits.dropped(sp->limits.ctx, name, why);
}

static void remove_temporaries(int dirfd)
{
	struct dirent *de;
	int fd = dup(dirfd);
	DIR *dir;

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (len > strlen(TMP_SUFFIX) &&
		    strcmp(de->d_name + len - strlen(TMP_SUFFIX), TMP_SUFFIX) == 0)
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(dir);
}

static bool boot_id_ok(const char *id)
{
	size_t len = strlen(id);

	if (len == 0 || len > BOOT_ID_MAX)
		return false;
	for (const char *c = id; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') ||
		      (*c >= 'A' && *c <= 'F') || *c == '-'))
			return false;
	return true;
}

struct spool *spool__open(const char *dir, const struct spool_limits *limits,
			  const char *boot_id)
{
	struct spool *sp;
	struct stat st;

	if (!boot_id_ok(boot_id)) {
		errno = EINVAL;
		return NULL;
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return NULL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sp->dirfd < 0 || fstat(sp->dirfd, &st)) {
		int err = errno;

		if (sp->dirfd >= 0)
			close(sp->dirfd);
		free(sp);
		errno = err;
		return NULL;
	}
	pthread_mutex_init(&sp->lock, NULL);
	if (limits)
		sp->limits = *limits;
	if (!sp->limits.max_bytes)
		sp->limits.max_bytes = SPOOL_DEFAULT_MAX_BYTES;
	if (!sp->limits.max_age_s)
		sp->limits.max_age_s = SPOOL_DEFAULT_MAX_AGE_S;
	snprintf(sp->boot_id, sizeof(sp->boot_id), "%s", boot_id);
	remove_temporaries(sp->dirfd);
	load_state(sp);
	return sp;
}

void spool__close(struct spool *sp)
{
	if (!sp)
		return;
	close(sp->dirfd);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}

int spool__reserve(struct spool *sp, uint64_t *sequence, uint64_t *dropped)
{
	int err;

	pthread_mutex_lock(&sp->lock);
	*sequence = sp->next_sequence++;
	*dropped = sp->dropped;
	err = save_state(sp);
	if (err)
		sp->next_sequence--;
	pthread_mutex_unlock(&sp->lock);
	return err;
}

/* Past the byte cap, the oldest batches but keep go. */
static int enforce_bytes(struct spool *sp, const char *keep)
{
	struct entry *v;
	uint64_t total = 0;
	size_t n;
	int err = list(sp, &v, &n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		total += v[i].bytes;
	for (size_t i = 0; i < n && total > sp->limits.max_bytes; i++) {
		if (strcmp(v[i].name, keep) == 0)
			continue;
		drop(sp, v[i].name, "bytes");
		total -= v[i].bytes;
	}
	free(v);
	return 0;
}

int spool__put(struct spool *sp, uint64_t sequence, const void *data, size_t len,
	       uint64_t reported)
{
	char name[SPOOL_NAME_MAX];
	int err;

	snprintf(name, sizeof(name), "batch-%s-%020" PRIu64 ".pb", sp->boot_id, sequence);
	pthread_mutex_lock(&sp->lock);
	err = write_whole(sp->dirfd, name, data, len);
	if (!err) {
		sp->dropped = sp->dropped > reported ? sp->dropped - reported : 0;
		save_state(sp);
		enforce_bytes(sp, name);
	}
	pthread_mutex_unlock(&sp->lock);
	return err;
}

int spool__oldest(struct spool *sp, char name[SPOOL_NAME_MAX], void **data, size_t *len)
{
	struct timespec now;
	struct entry *v;
	size_t n, i;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&sp->lock);
	err = list(sp, &v, &n);
	for (i = 0; !err && i < n; i++) {
		if (now.tv_sec - v[i].mtime.tv_sec > (time_t)sp->limits.max_age_s) {
			drop(sp, v[i].name, "age");
			continue;
		}
		err = read_file(sp->dirfd, v[i].name, data, len);
		if (err == -ENOENT) {
			err = 0;
			continue;
		}
		if (!err)
			snprintf(name, SPOOL_NAME_MAX, "%s", v[i].name);
		break;
	}
	if (!err && i >= n)
		err = -ENOENT;
	free(v);
	pthread_mutex_unlock(&sp->lock);
	return err;
}

int spool__remove(struct spool *sp, const char *name)
{
	int err = 0;

	if (!is_batch(name) || strchr(name, '/'))
		return -EINVAL;
	pthread_mutex_lock(&sp->lock);
	if (unlinkat(sp->dirfd, name, 0) && errno != ENOENT)
		err = -errno;
	else if (fsync(sp->dirfd))
		err = -errno;
	pthread_mutex_unlock(&sp->lock);
	return err;
}

int spool__drop(struct spool *sp, const char *name)
{
	if (!is_batch(name) || strchr(name, '/'))
		return -EINVAL;
	pthread_mutex_lock(&sp->lock);
	drop(sp, name, "refused");
	pthread_mutex_unlock(&sp->lock);
	return 0;
}

void spool__stats(struct spool *sp, size_t *batches, uint64_t *bytes, uint64_t *dropped)
{
	struct entry *v;
	size_t n;

	*batches = 0;
	*bytes = 0;
	pthread_mutex_lock(&sp->lock);
	if (list(sp, &v, &n) == 0) {
		*batches = n;
		for (size_t i = 0; i < n; i++)
			*bytes += v[i].bytes;
		free(v);
	}
	*dropped = sp->dropped;
	pthread_mutex_unlock(&sp->lock);
}

int spool__destroy(struct spool *sp)
{
	struct entry *v = NULL;
	size_t n = 0;
	int err;

	pthread_mutex_lock(&sp->lock);
	err = list(sp, &v, &n);
	for (size_t i = 0; !err && i < n; i++)
		if (unlinkat(sp->dirfd, v[i].name, 0) && errno != ENOENT)
			err = -errno;
	free(v);
	if (!err && unlinkat(sp->dirfd, STATE_FILE, 0) && errno != ENOENT)
		err = -errno;
	pthread_mutex_unlock(&sp->lock);
	return err;
}
