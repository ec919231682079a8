// SPDX-License-Identifier: MIT
/*
 * Unwind tables on disk, one file per build id in a directory the caller names (the
 * profiler's own, e.g. DATA/profiler/unwind/BUILD_ID). A table is built once per build
 * and read back on every later capture, so reading must be cheap and must never trust
 * the file: a file that fails any check is rebuilt from the binary, as if absent.
 *
 * Layout (little-endian, 48-byte header, then nrows 8-byte rows as in memory):
 *   magic "SOUW", version, nrows, flags, base, nfdes, nskipped, hash of the build id,
 *   checksum of the rows.
 */
#include "unwind/unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/hash.h"

#define CACHE_MAGIC 0x57554f53u /* "SOUW" */
#define CACHE_VERSION 1u
#define FLAG_DEBUG_FRAME 1u

struct cache_header {
	uint32_t magic, version, nrows, flags;
	uint64_t base;
	uint32_t nfdes, nskipped;
	uint64_t build_id_hash;
	uint64_t checksum;
};

_Static_assert(sizeof(struct cache_header) == 48, "the header is 48 bytes on disk");

static uint64_t rows_checksum(const struct unwind_row *rows, uint32_t n)
{
	return hash_bytes(rows, (size_t)n * sizeof(*rows), CACHE_MAGIC);
}

static bool build_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (n < 2 || n > 128)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

int unwind_table__serialize(const struct unwind_table *t, const char *build_id, void **blob,
			    size_t *len)
{
	struct cache_header h = {
		.magic = CACHE_MAGIC,
		.version = CACHE_VERSION,
		.nrows = t->nrows,
		.flags = t->from_debug_frame ? FLAG_DEBUG_FRAME : 0,
		.base = t->base,
		.nfdes = t->nfdes,
		.nskipped = t->nskipped,
		.build_id_hash = hash_bytes(build_id, strlen(build_id), 0),
		.checksum = rows_checksum(t->rows, t->nrows),
	};
	size_t rows = (size_t)t->nrows * sizeof(*t->rows);
	char *p = malloc(sizeof(h) + rows);

	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), t->rows, rows);
	*blob = p;
	*len = sizeof(h) + rows;
	return 0;
}

struct unwind_table *unwind_table__deserialize(const void *blob, size_t len,
					       const char *build_id)
{
	struct unwind_table *t = NULL;
	struct cache_header h;

	if (len < sizeof(h))
		goto bad;
	memcpy(&h, blob, sizeof(h));
	if (h.magic != CACHE_MAGIC || h.version != CACHE_VERSION || h.flags & ~FLAG_DEBUG_FRAME ||
	    h.nrows == 0 || (len - sizeof(h)) / sizeof(struct unwind_row) != h.nrows ||
	    (len - sizeof(h)) % sizeof(struct unwind_row) != 0 ||
	    h.build_id_hash != hash_bytes(build_id, strlen(build_id), 0))
		goto bad;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->rows = malloc((size_t)h.nrows * sizeof(*t->rows));
	if (!t->rows) {
		free(t);
		return NULL;
	}
	memcpy(t->rows, (const char *)blob + sizeof(h), (size_t)h.nrows * sizeof(*t->rows));
	t->nrows = h.nrows;
	t->base = h.base;
	t->nfdes = h.nfdes;
	t->nskipped = h.nskipped;
	t->from_debug_frame = h.flags & FLAG_DEBUG_FRAME;
	if (rows_checksum(t->rows, t->nrows) != h.checksum || !unwind_table__valid(t))
		goto bad;
	return t;
bad:
	unwind_table__free(t);
	errno = EBADMSG;
	return NULL;
}

static int table_path(const char *dir, const char *build_id, char *path, size_t size)
{
	if (!build_id_ok(build_id))
		return -EINVAL;
	if ((size_t)snprintf(path, size, "%s/%s", dir, build_id) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* mkdir -p for the cache directory (the profiler's directory may be new). */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int unwind_table__save(const struct unwind_table *t, const char *dir, const char *build_id)
{
	char path[PATH_MAX];
	void *blob;
	size_t len;
	int err;

	err = table_path(dir, build_id, path, sizeof(path));
	if (err)
		return err;
	err = make_dirs(dir);
	if (err)
		return err;
	err = unwind_table__serialize(t, build_id, &blob, &len);
	if (err)
		return err;
	err = file__write_atomic(path, blob, len, 0600);
	free(blob);
	return err;
}

/* Tables are at most max_rows rows: a file larger than any table is not one. */
#define CACHE_MAX_FILE (sizeof(struct cache_header) + ((size_t)64 << 20))

int unwind_table__load(const char *dir, const char *build_id, struct unwind_table **out)
{
	char path[PATH_MAX];
	struct stat st;
	char *blob = NULL;
	int fd, err;

	*out = NULL;
	err = table_path(dir, build_id, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct cache_header) ||
	    (size_t)st.st_size > CACHE_MAX_FILE) {
		err = -EBADMSG;
		goto out_close;
	}
	blob = malloc((size_t)st.st_size);
	if (!blob) {
		err = -ENOMEM;
		goto out_close;
	}
	for (size_t done = 0; done < (size_t)st.st_size;) {
		ssize_t n = pread(fd, blob + done, (size_t)st.st_size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EBADMSG;
			goto out_free;
		}
		done += (size_t)n;
	}
	*out = unwind_table__deserialize(blob, (size_t)st.st_size, build_id);
	err = *out ? 0 : (errno == ENOMEM ? -ENOMEM : -EBADMSG);
out_free:
	free(blob);
out_close:
	close(fd);
	return err;
}

/*
 * A binary without a table is remembered too (dir/BUILD_ID.none: the reason and the caps
 * it was refused under), so that a 700 MB binary with no frame information, or one over
 * a cap, is not read again by every capture. Only refusals that the same file and caps
 * always give are kept: not time, memory or I/O.
 */
static bool lasting(enum unwind_not_read why)
{
	return why == UNWIND_NOT_ELF || why == UNWIND_NOT_X86_64 || why == UNWIND_NO_FRAME_INFO ||
	       why == UNWIND_TOO_BIG || why == UNWIND_TOO_MANY_FDES ||
	       why == UNWIND_TOO_MANY_ROWS || why == UNWIND_MALFORMED ||
	       why == UNWIND_TEXT_TOO_LARGE;
}

static int refusal_line(char *buf, size_t size, enum unwind_not_read why,
			const struct unwind_caps *c)
{
	return snprintf(buf, size, "slideops-unwind-refusal 1 %d %llu %u %u\n", (int)why,
			(unsigned long long)c->max_bytes, c->max_fdes, c->max_rows);
}

/* The remembered refusal of build_id under caps, or UNWIND_READ. */
static enum unwind_not_read remembered(const char *path, const struct unwind_caps *caps)
{
	char want[128], got[128] = "";
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return UNWIND_READ;
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	for (int why = UNWIND_NOT_ELF; why < UNWIND_NOT_READ_COUNT && n > 0; why++) {
		refusal_line(want, sizeof(want), (enum unwind_not_read)why, caps);
		if (lasting((enum unwind_not_read)why) && strcmp(got, want) == 0)
			return (enum unwind_not_read)why;
	}
	return UNWIND_READ;
}

static int refusal_err(enum unwind_not_read why)
{
	switch (why) {
	case UNWIND_NO_FRAME_INFO: return -ENOENT;
	case UNWIND_TOO_BIG:
	case UNWIND_TOO_MANY_FDES:
	case UNWIND_TOO_MANY_ROWS: return -E2BIG;
	default: return -ENOEXEC;
	}
}

int unwind_table__get(const char *dir, const char *build_id, int fd,
		      const struct unwind_caps *caps, struct unwind_table **out,
		      enum unwind_not_read *why)
{
	struct unwind_caps defaults;
	char none[PATH_MAX], line[128];
	enum unwind_not_read known;
	int err;

	if (!build_id_ok(build_id)) {
		*out = NULL;
		*why = UNWIND_IO_ERROR;
		return -EINVAL;
	}
	err = unwind_table__load(dir, build_id, out);
	if (err == 0) {
		*why = UNWIND_READ;
		return 0;
	}
	if (err == -ENOMEM) {
		*why = UNWIND_NO_MEMORY;
		return err;
	}
	if (!caps) {
		unwind_caps__default(&defaults);
		caps = &defaults;
	}
	if ((size_t)snprintf(none, sizeof(none), "%s/%s.none", dir, build_id) >= sizeof(none))
		return *why = UNWIND_IO_ERROR, -ENAMETOOLONG;
	known = remembered(none, caps);
	if (known != UNWIND_READ) {
		*why = known;
		return refusal_err(known);
	}
	/* Absent or damaged: build it, and replace what was there. */
	err = unwind_table__build(fd, caps, out, why);
	if (err) {
		if (lasting(*why) && make_dirs(dir) == 0) {
			int len = refusal_line(line, sizeof(line), *why, caps);

			(void)file__write_atomic(none, line, (size_t)len, 0600);
		}
		return err;
	}
	(void)unwind_table__save(*out, dir, build_id);
	return 0;
}
