// SPDX-License-Identifier: MIT
/*
 * The binaries of a capture. A server maps a few hundred distinct files; each is opened
 * once, then looked up by (dev, ino) for every process that maps it. Their contents are
 * read only at the end, only for binaries that have frames, each within the caps of a
 * budget (binaries_read.c); symbol tables only when the caller does not keep that build's
 * table already.
 */
#include "capture/binaries.h"
#include "capture/binaries_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/guarded_read.h"
#include "elf/elf_reader.h"
#include "proc/packages.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/messages.h"

struct binary_key {
	dev_t dev;
	uint64_t ino;
};

static uint64_t key__hash(dev_t dev, uint64_t ino)
{
	return hash_u64(hash_u64(7, (uint64_t)dev), ino);
}

static bool key__equal(const void *key, uint32_t id, void *ctx)
{
	const struct binary_key *k = key;
	const struct binary *bin = ((struct binaries *)ctx)->items[id];

	return bin->dev == k->dev && bin->ino == k->ino;
}

struct binaries *binaries__new(void)
{
	struct binaries *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->index = hashmap__new();
	if (!b->index) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	return b;
}

static void binary__free(struct binary *bin)
{
	if (!bin)
		return;
	if (bin->fd >= 0 && !bin->fd_borrowed)
		close(bin->fd);
	guarded_file__close(bin->guarded);
	free(bin->mount);
	free(bin->path);
	free(bin);
}

void binaries__free(struct binaries *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->n; i++)
		binary__free(b->items[i]);
	binary__free(b->vdso);
	mounts__clear(&b->mounts);
	free(b->unlisted);
	free(b->items);
	hashmap__free(b->index);
	free(b);
}

struct binary *binaries__find(struct binaries *b, dev_t dev, uint64_t ino)
{
	struct binary_key k = { dev, ino };
	uint32_t id = hashmap__find(b->index, key__hash(dev, ino), &k, key__equal, b);

	return id == HASHMAP_NONE ? NULL : b->items[id];
}

static struct binary *binary__new(dev_t dev, uint64_t ino, const char *path, bool is_exe)
{
	struct binary *bin = calloc(1, sizeof(*bin));

	if (!bin)
		return NULL;
	bin->path = strdup(path);
	if (!bin->path) {
		free(bin);
		return NULL;
	}
	bin->dev = dev;
	bin->ino = ino;
	bin->fd = -1;
	bin->kind = is_exe ? MAPPING_EXE : MAPPING_LIB;
	bin->mapping = UINT32_MAX;
	return bin;
}

static int binaries__insert(struct binaries *b, struct binary *bin)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		struct binary **items = realloc(b->items, cap * sizeof(*items));

		if (!items)
			return -ENOMEM;
		b->items = items;
		b->cap = cap;
	}
	if (hashmap__insert(b->index, key__hash(bin->dev, bin->ino), b->n))
		return -ENOMEM;
	b->items[b->n++] = bin;
	return 0;
}

/* Opens path, keeping the descriptor only when it is the file (dev, ino). */
static int open_checked(const char *path, dev_t dev, uint64_t ino)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The device of the kernel's internal shared-memory mount, which no mount table lists:
 * every memfd is a file there (runc's copy of itself, sandboxes' sealed executables), as
 * are shared anonymous mappings. Its reads are memory's, never a server's. Found once,
 * from a memfd of our own; 0 when none could be made.
 */
static pthread_once_t memfd_once = PTHREAD_ONCE_INIT;
static dev_t memfd_dev;

static void memfd_device__find(void)
{
	struct stat st;
	int fd = memfd_create("slideops-device", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0)
		memfd_dev = st.st_dev;
	close(fd);
}

static dev_t memfd_device(void)
{
	pthread_once(&memfd_once, memfd_device__find);
	return memfd_dev;
}

/*
 * Whether files of dev may leave a read waiting without end, from the mount tables alone
 * (nothing of the mount is touched): ours, else that of pid's mount namespace (a
 * container's). A device no table lists is taken to be one when it is an anonymous
 * device (major 0: network and FUSE file systems have those), not when it is a disk's.
 * *e: its mount, NULL when unlisted. Out of memory: taken to be one.
 */
static bool binaries__may_hang(struct binaries *b, int pid, dev_t dev,
			       const struct mount_entry **e)
{
	char path[64];

	if (!b->mounts_read) {
		b->mounts_read = true;
		mounts__read(&b->mounts, "/proc/self/mountinfo");
	}
	*e = mounts__find(&b->mounts, dev);
	if (*e)
		return (*e)->may_hang;
	if (dev != 0 && dev == memfd_device())
		return false;
	for (uint32_t i = 0; i < b->nunlisted; i++)
		if (b->unlisted[i] == dev)
			return major(dev) == 0;
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
		if (mounts__read(&b->mounts, path) == -ENOMEM)
			return true;
		*e = mounts__find(&b->mounts, dev);
		if (*e)
			return (*e)->may_hang;
	}
	if (b->nunlisted == b->cap_unlisted) {
		uint32_t cap = b->cap_unlisted ? b->cap_unlisted * 2 : 8;
		dev_t *grown = realloc(b->unlisted, cap * sizeof(*grown));

		if (!grown)
			return true;
		b->unlisted = grown;
		b->cap_unlisted = cap;
	}
	b->unlisted[b->nunlisted++] = dev;
	return major(dev) == 0;
}

/* Starts bin's guarded read at paths (binaries.h): nothing of the file is touched here. */
static int binary__guard(struct binary *bin, const struct mount_entry *e,
			 const char *const *paths, size_t npaths)
{
	char words[PATH_MAX + 128];

	if (e)
		msg_format(words, sizeof(words), MSG_MOUNT_WORDS, e->fstype, e->point);
	else
		msg_format(words, sizeof(words), MSG_MOUNT_UNLISTED, major(bin->dev),
			   minor(bin->dev));
	bin->mount = strdup(words);
	if (!bin->mount)
		return -ENOMEM;
	bin->guarded = guarded_file__start(bin->dev, bin->ino, paths, npaths);
	return bin->guarded ? 0 : -ENOMEM;
}

struct binary *binaries__get(struct binaries *b, int pid, uint64_t start, uint64_t end,
			     dev_t dev, uint64_t ino, const char *path, bool is_exe)
{
	struct binary *bin = binaries__find(b, dev, ino);
	const struct mount_entry *e;
	char at[PATH_MAX + 64], root[PATH_MAX + 64];

	if (bin)
		return bin;
	bin = binary__new(dev, ino, path, is_exe);
	if (!bin)
		return NULL;
	/*
	 * map_files is the mapped file itself, even deleted or replaced since, and names it
	 * whatever mount namespace the process is in; it needs CAP_SYS_ADMIN. The path under
	 * the process's root is the fallback, checked to be the same file.
	 */
	snprintf(at, sizeof(at), "/proc/%d/map_files/%llx-%llx", pid, (unsigned long long)start,
		 (unsigned long long)end);
	snprintf(root, sizeof(root), "/proc/%d/root%s", pid, path);
	if (binaries__may_hang(b, pid, dev, &e)) {
		const char *paths[] = { at, root };

		if (binary__guard(bin, e, paths, 2)) {
			binary__free(bin);
			return NULL;
		}
	} else {
		bin->fd = open_checked(at, dev, ino);
		if (bin->fd < 0)
			bin->fd = open_checked(root, dev, ino);
	}
	if (binaries__insert(b, bin)) {
		binary__free(bin);
		return NULL;
	}
	return bin;
}

struct binary *binaries__get_by_path(struct binaries *b, dev_t dev, uint64_t ino,
				     const char *path, bool is_exe)
{
	struct binary *bin = binaries__find(b, dev, ino);
	const struct mount_entry *e;
	int fd = -1;

	if (bin)
		return bin;
	if (!binaries__may_hang(b, 0, dev, &e)) {
		fd = open_checked(path, dev, ino);
		if (fd < 0)
			return NULL;
	}
	bin = binary__new(dev, ino, path, is_exe);
	if (!bin) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	bin->fd = fd;
	if (fd < 0 && binary__guard(bin, e, &path, 1)) {
		binary__free(bin);
		return NULL;
	}
	if (binaries__insert(b, bin)) {
		binary__free(bin);
		return NULL;
	}
	return bin;
}

int binary__fd(struct binary *bin, const atomic_bool *cancel, int64_t deadline_ns, int *err)
{
	int e;

	*err = 0;
	if (bin->fd >= 0)
		return bin->fd;
	if (!bin->guarded) {
		*err = -EBADF;
		return -1;
	}
	e = guarded_file__wait(bin->guarded, cancel, deadline_ns);
	if (e) {
		*err = e;
		return -1;
	}
	bin->fd = guarded_file__fd(bin->guarded);
	bin->fd_borrowed = true;
	return bin->fd;
}

/* The size of our own [vdso] mapping, from /proc/self/maps. */
static size_t vdso_size(void)
{
	char line[512];
	size_t size = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;

		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2) {
			size = end - start;
			break;
		}
	}
	fclose(f);
	return size;
}

/*
 * Every process's [vdso] is the one image of the running kernel. Ours is copied into a
 * memory file so it reads like any other binary: build id, segments, symbols.
 */
struct binary *binaries__vdso(struct binaries *b)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	int fd;

	if (b->vdso_tried)
		return b->vdso;
	b->vdso_tried = true;
	b->vdso = binary__new(0, 0, "[vdso]", false);
	if (!b->vdso)
		return NULL;
	b->vdso->kind = MAPPING_VDSO;
	size = vdso_size();
	if (!image || !size)
		return b->vdso;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return b->vdso;
	if (write(fd, image, size) != (ssize_t)size) {
		close(fd);
		return b->vdso;
	}
	b->vdso->fd = fd;
	return b->vdso;
}

uint32_t binary__mapping(struct binary *bin, struct profile *p, uint64_t start, uint64_t limit,
			 uint64_t offset)
{
	struct prof_mapping m = { 0 };

	if (bin->mapping != UINT32_MAX)
		return bin->mapping;
	m.path = profile__intern(p, bin->path);
	if (m.path == UINT32_MAX)
		return UINT32_MAX;
	m.kind = bin->kind;
	m.language = LANGUAGE_OTHER;
	m.build_id_recorded = true;
	/* Two files at one path (one replaced the other) are two mappings until read. */
	m.identity = hash_u64(hash_u64(11, (uint64_t)bin->dev), bin->ino) | 1;
	m.start = start;
	m.limit = limit;
	m.offset = offset;
	bin->mapping = profile__add_mapping(p, &m);
	return bin->mapping;
}
