// SPDX-License-Identifier: MIT
/*
 * dpkg's view of this server's files, read once per capture and only when asked.
 *
 * Who owns a file: /var/lib/dpkg/info/PKG[:ARCH].list, one path a line. All of them
 * hold ~160k lines (9 MB) on a small Debian server, nearly all under /usr/share,
 * /usr/lib and /etc; only the rest (~5k lines: bin, sbin, libexec, games) is kept,
 * since a file under /usr/lib is a system file by its path already. Paths are kept in
 * their /usr form: a merged-/usr system maps /bin/dash, as dash.list has it, at
 * /usr/bin/dash.
 *
 * From the archive or not: a package is the distribution's when an apt source lists a
 * package of that name (/var/lib/apt/lists/\*_Packages, plain, .gz or .lz4). The name,
 * not the version: the installed version drops out of the lists as soon as an update
 * is pending, which would make /usr/bin/dash "yours" on every server due an upgrade,
 * whereas a .deb of your own carries a name of your own. (A Debian package rebuilt
 * locally under its own name therefore counts as the distribution's.) The lists are
 * scanned once, for the names of the packages that own kept files only, and the scan
 * stops when all are found. A server without any readable list cannot tell: every
 * package then counts as the distribution's, since nearly all are.
 */
#include "proc/packages.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "proc/mounts.h"

#define PACKAGES_MAX_LIST_BYTES (256ull << 20) /* dpkg's file lists, all together */
#define PACKAGES_MAX_FILES (1u << 20)          /* kept paths */
#define PACKAGES_MAX_SOURCE_BYTES (1ull << 30) /* apt's lists, decompressed; bookworm: 70 MB */
#define LINE_MAX_LEN 4096
#define CHUNK (64u << 10)

struct owned {
	char *path;    /* /usr form */
	uint32_t pkg;
};

struct package {
	char *name;
	bool archive;
};

struct packages {
	char *root;
	bool loaded, sources_read;
	struct owned *files;
	size_t nfiles, files_cap;
	struct package *pkgs;
	size_t npkgs, pkgs_cap;
	uint64_t list_bytes;
};

struct packages *packages__new(const char *root)
{
	struct packages *pk = calloc(1, sizeof(*pk));

	if (!pk)
		return NULL;
	pk->root = strdup(root && *root ? root : "/");
	if (!pk->root) {
		free(pk);
		errno = ENOMEM;
		return NULL;
	}
	/* "/" + "/usr/bin/x" would read "//usr/bin/x": keep the root without its slash. */
	if (strcmp(pk->root, "/") == 0)
		pk->root[0] = '\0';
	return pk;
}

void packages__free(struct packages *pk)
{
	if (!pk)
		return;
	for (size_t i = 0; i < pk->nfiles; i++)
		free(pk->files[i].path);
	for (size_t i = 0; i < pk->npkgs; i++)
		free(pk->pkgs[i].name);
	free(pk->files);
	free(pk->pkgs);
	free(pk->root);
	free(pk);
}

/* The /usr form of path into out: /bin/x, /sbin/x, /lib*\/x as /usr/... on merged /usr. */
static void usr_form(const char *path, char *out, size_t size)
{
	bool merged = strncmp(path, "/bin/", 5) == 0 || strncmp(path, "/sbin/", 6) == 0 ||
		      strncmp(path, "/lib", 4) == 0;

	snprintf(out, size, "%s%s", merged ? "/usr" : "", path);
}

/* Files worth keeping: not the bulk a path already calls system, or never executes. */
static bool worth_keeping(const char *p)
{
	static const char *const skip[] = { "/usr/share/", "/usr/lib", "/usr/include/", "/etc/",
					    "/usr/src/", "/var/", "/boot/" };

	if (p[0] != '/')
		return false;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		if (strncmp(p, skip[i], strlen(skip[i])) == 0)
			return false;
	}
	return true;
}

static int add_package(struct packages *pk, const char *file_name, uint32_t *id)
{
	const char *end = strstr(file_name, ".list");
	const char *colon = memchr(file_name, ':', (size_t)(end - file_name));
	size_t len = (size_t)((colon ? colon : end) - file_name);

	if (pk->npkgs == pk->pkgs_cap) {
		size_t cap = pk->pkgs_cap ? 2 * pk->pkgs_cap : 256;
		struct package *p = realloc(pk->pkgs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		pk->pkgs = p;
		pk->pkgs_cap = cap;
	}
	pk->pkgs[pk->npkgs].name = strndup(file_name, len);
	if (!pk->pkgs[pk->npkgs].name)
		return -ENOMEM;
	pk->pkgs[pk->npkgs].archive = false;
	*id = (uint32_t)pk->npkgs++;
	return 0;
}

static int add_file(struct packages *pk, const char *path, uint32_t pkg)
{
	char canon[LINE_MAX_LEN + 8];

	if (pk->nfiles >= PACKAGES_MAX_FILES)
		return 0;
	if (pk->nfiles == pk->files_cap) {
		size_t cap = pk->files_cap ? 2 * pk->files_cap : 1024;
		struct owned *f = realloc(pk->files, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		pk->files = f;
		pk->files_cap = cap;
	}
	usr_form(path, canon, sizeof(canon));
	pk->files[pk->nfiles].path = strdup(canon);
	if (!pk->files[pk->nfiles].path)
		return -ENOMEM;
	pk->files[pk->nfiles].pkg = pkg;
	pk->nfiles++;
	return 0;
}

/* One PKG.list: its kept paths. Lines longer than any path are skipped. */
static int read_list(struct packages *pk, int dir, const char *file_name)
{
	char line[LINE_MAX_LEN + 2];
	uint32_t id = 0;
	bool any = false;
	int fd, err = 0;
	FILE *f;

	fd = openat(dir, file_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	while (!err && pk->list_bytes < PACKAGES_MAX_LIST_BYTES && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		pk->list_bytes += len;
		if (len == 0 || line[len - 1] != '\n') {
			/* Too long: skip the rest of it. */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				pk->list_bytes++;
			continue;
		}
		line[len - 1] = '\0';
		if (!worth_keeping(line))
			continue;
		if (!any) {
			err = add_package(pk, file_name, &id);
			any = true;
		}
		if (!err)
			err = add_file(pk, line, id);
	}
	fclose(f);
	return err;
}

static int owned__cmp(const void *a, const void *b)
{
	return strcmp(((const struct owned *)a)->path, ((const struct owned *)b)->path);
}

/* A lookup of path could wait without end (a mount that may hang is on its way): it is
 * not made, in-process, by a capture. */
static bool may_hang(const char *path)
{
	char fstype[64];

	mounts__own_hang_on_path(path, fstype, sizeof(fstype));
	return fstype[0] != '\0';
}

static int load_lists(struct packages *pk)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int err = 0;

	pk->loaded = true;
	snprintf(path, sizeof(path), "%s/var/lib/dpkg/info", pk->root);
	d = may_hang(path) ? NULL : opendir(path);
	if (!d)
		return 0; /* not a dpkg system, or not one to read: nothing is owned */
	while (!err && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len > 5 && strcmp(de->d_name + len - 5, ".list") == 0)
			err = read_list(pk, dirfd(d), de->d_name);
	}
	closedir(d);
	if (!err)
		qsort(pk->files, pk->nfiles, sizeof(*pk->files), owned__cmp);
	return err;
}

/* ---- apt's lists ---- */

struct wanted {
	struct packages *pk;
	uint32_t *ids;   /* package ids sorted by name */
	size_t n, left; /* left: names not found yet */
	char line[LINE_MAX_LEN];
	size_t len;
	bool overflow;
	uint64_t budget;
};

static int id__cmp(const void *a, const void *b, void *ctx)
{
	const struct packages *pk = ctx;

	return strcmp(pk->pkgs[*(const uint32_t *)a].name, pk->pkgs[*(const uint32_t *)b].name);
}

/* Marks every package called name (one per architecture) as the archive's. */
static void wanted__found(struct wanted *w, const char *name)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(w->pk->pkgs[w->ids[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n && strcmp(w->pk->pkgs[w->ids[lo]].name, name) == 0; lo++) {
		struct package *p = &w->pk->pkgs[w->ids[lo]];

		if (!p->archive) {
			p->archive = true;
			w->left--;
		}
	}
}

static void wanted__line(struct wanted *w)
{
	if (w->len > 9 && memcmp(w->line, "Package: ", 9) == 0) {
		w->line[w->len] = '\0';
		wanted__found(w, w->line + 9);
	}
}

/* Feeds decompressed bytes; lines are cut at newlines, overlong ones ignored. */
static void wanted__feed(struct wanted *w, const char *buf, size_t n)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;

		if (!w->overflow && w->len + take < sizeof(w->line)) {
			memcpy(w->line + w->len, buf, take);
			w->len += take;
		} else {
			w->overflow = true;
		}
		if (!nl)
			return;
		if (!w->overflow)
			wanted__line(w);
		w->len = 0;
		w->overflow = false;
		buf = nl + 1;
		n -= take + 1;
	}
}

/* A plain or gzip'd list. false when it could not be read at all. */
static bool scan_gz(struct wanted *w, int fd)
{
	char *buf = malloc(CHUNK);
	gzFile gz;
	int n;

	if (!buf)
		return false;
	gz = gzdopen(fd, "rb");
	if (!gz) {
		free(buf);
		close(fd);
		return false;
	}
	while (w->left && w->budget && (n = gzread(gz, buf, CHUNK)) > 0) {
		w->budget -= (uint64_t)n < w->budget ? (uint64_t)n : w->budget;
		wanted__feed(w, buf, (size_t)n);
	}
	gzclose(gz);
	free(buf);
	return true;
}

static bool scan_lz4(struct wanted *w, int fd)
{
	LZ4F_dctx *dctx = NULL;
	char *in = malloc(CHUNK), *out = malloc(CHUNK);
	bool ok = false;
	ssize_t got;

	if (!in || !out || LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		goto out_free;
	ok = true;
	while (w->left && w->budget && (got = read(fd, in, CHUNK)) > 0) {
		size_t pos = 0;

		while (pos < (size_t)got && w->budget) {
			size_t src = (size_t)got - pos, dst = CHUNK;
			size_t ret = LZ4F_decompress(dctx, out, &dst, in + pos, &src, NULL);

			if (LZ4F_isError(ret))
				goto out_free; /* a damaged list: what was read still counts */
			pos += src;
			w->budget -= dst < w->budget ? dst : w->budget;
			wanted__feed(w, out, dst);
			if (src == 0 && dst == 0)
				break;
		}
	}
out_free:
	LZ4F_freeDecompressionContext(dctx);
	free(in);
	free(out);
	close(fd);
	return ok;
}

/*
 * Marks the packages that own kept files and that an apt source lists. Without any
 * readable list, all of them (see the top of this file).
 */
static int read_sources(struct packages *pk)
{
	struct wanted w = { .pk = pk, .budget = PACKAGES_MAX_SOURCE_BYTES };
	char path[4096];
	struct dirent *de;
	bool any = false;
	DIR *d;

	pk->sources_read = true;
	if (pk->npkgs == 0)
		return 0;
	w.ids = malloc(pk->npkgs * sizeof(*w.ids));
	if (!w.ids)
		return -ENOMEM;
	for (size_t i = 0; i < pk->npkgs; i++)
		w.ids[i] = (uint32_t)i;
	w.n = w.left = pk->npkgs;
	qsort_r(w.ids, w.n, sizeof(*w.ids), id__cmp, pk);

	snprintf(path, sizeof(path), "%s/var/lib/apt/lists", pk->root);
	d = may_hang(path) ? NULL : opendir(path);
	while (d && w.left && (de = readdir(d)) != NULL) {
		const char *name = de->d_name, *p = strstr(name, "_Packages");
		int fd;

		if (!p || (p[9] && strcmp(p + 9, ".gz") != 0 && strcmp(p + 9, ".lz4") != 0))
			continue;
		fd = openat(dirfd(d), name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		w.len = 0;
		w.overflow = false;
		if (strcmp(p + 9, ".lz4") == 0)
			any |= scan_lz4(&w, fd);
		else
			any |= scan_gz(&w, fd);
	}
	if (d)
		closedir(d);
	if (!any) {
		for (size_t i = 0; i < pk->npkgs; i++)
			pk->pkgs[i].archive = true;
	}
	free(w.ids);
	return 0;
}

/*
 * Paths no package owns (Debian policy: /usr/local, /home, /srv, /tmp are the admin's
 * and users'), or that a path decides already: not worth loading dpkg's lists for.
 */
static bool never_packaged(const char *p)
{
	static const char *const prefixes[] = { "/usr/local/", "/home/", "/srv/", "/tmp/",
						"/root/", "/run/", "/dev/", "/proc/", "/var/tmp/" };
	char canon[LINE_MAX_LEN + 8];

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (strncmp(p, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	}
	usr_form(p, canon, sizeof(canon));
	return !worth_keeping(canon);
}

int packages__from_archive(struct packages *pk, const char *path, dev_t dev, uint64_t ino)
{
	char full[4096 + LINE_MAX_LEN], canon[LINE_MAX_LEN + 8];
	struct owned key = { .path = canon }, *hit;
	struct stat st;
	int err;

	if (!pk || !path || path[0] != '/' || strlen(path) >= LINE_MAX_LEN || never_packaged(path))
		return 0;
	/* Only the file dpkg put there: not another one a container maps at that path. */
	snprintf(full, sizeof(full), "%s%s", pk->root, path);
	if (may_hang(full) || stat(full, &st) < 0 || st.st_dev != dev || (uint64_t)st.st_ino != ino)
		return 0;
	if (!pk->loaded) {
		err = load_lists(pk);
		if (err)
			return err;
	}
	usr_form(path, canon, sizeof(canon));
	hit = bsearch(&key, pk->files, pk->nfiles, sizeof(*pk->files), owned__cmp);
	if (!hit)
		return 0;
	if (!pk->sources_read) {
		err = read_sources(pk);
		if (err)
			return err;
	}
	return pk->pkgs[hit->pkg].archive ? 1 : 0;
}
