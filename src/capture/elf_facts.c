// SPDX-License-Identifier: MIT
/* The ELF facts of files read before, by file identity and change times. See elf_facts.h. */
#include "capture/elf_facts.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/hash.h"
#include "util/hashmap.h"

struct file_key {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

struct file_facts {
	struct file_key key;
	int err;               /* the outcome: 0, or one the file alone decides */
	bool scanned;          /* by elf_info__read_limited; false: elf_info__read_identity */
	struct elf_info info;  /* when err is 0 */
};

struct elf_facts {
	pthread_mutex_t lock;
	struct hashmap *index; /* file_key -> items */
	struct file_facts *items;
	uint32_t n, cap;
	struct elf_facts_stats stats;
};

struct elf_facts *elf_facts__new(void)
{
	struct elf_facts *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->index = hashmap__new();
	if (!f->index) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

void elf_facts__free(struct elf_facts *f)
{
	if (!f)
		return;
	hashmap__free(f->index);
	free(f->items);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static bool file_key__equal(const void *key, uint32_t id, void *ctx)
{
	const struct elf_facts *f = ctx;

	return memcmp(&f->items[id].key, key, sizeof(struct file_key)) == 0;
}

static uint64_t file_key__hash(const struct file_key *k)
{
	return hash_bytes(k, sizeof(*k), 0);
}

/* Outcomes decided by the file's bytes and the caps alone (elf_reader.h). */
static bool outcome_kept(int err)
{
	return err == 0 || err == -ENOEXEC || err == -E2BIG || err == -EOVERFLOW ||
	       err == -EFBIG;
}

/* Forgets every file: the bound is reached. Under lock. */
static void elf_facts__forget(struct elf_facts *f)
{
	struct hashmap *index = hashmap__new();

	if (!index)
		return; /* the old index stays; nothing more is added */
	hashmap__free(f->index);
	f->index = index;
	f->n = 0;
}

static void elf_facts__keep(struct elf_facts *f, const struct file_key *key, uint64_t hash,
			    int err, bool scanned, const struct elf_info *info)
{
	uint32_t id = hashmap__find(f->index, hash, key, file_key__equal, f);

	if (id != HASHMAP_NONE) {
		/* Known without its tables looked into: now with them. */
		if (scanned && !f->items[id].scanned) {
			f->items[id].err = err;
			f->items[id].scanned = true;
			f->items[id].info = *info;
		}
		return;
	}
	if (f->n >= ELF_FACTS_MAX) {
		elf_facts__forget(f);
		if (f->n)
			return;
	}
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 64;
		struct file_facts *grown;

		if (cap > ELF_FACTS_MAX)
			cap = ELF_FACTS_MAX;
		grown = realloc(f->items, cap * sizeof(*grown));
		if (!grown)
			return;
		f->items = grown;
		f->cap = cap;
	}
	f->items[f->n].key = *key;
	f->items[f->n].err = err;
	f->items[f->n].scanned = scanned;
	f->items[f->n].info = *info;
	if (hashmap__insert(f->index, hash, f->n) == 0)
		f->n++;
}

static int read_file(int fd, struct elf_limits *limits, struct elf_info *info, bool scan)
{
	return scan ? elf_info__read_limited(fd, limits, info) :
		      elf_info__read_identity(fd, limits, info);
}

static int elf_facts__get(struct elf_facts *f, int fd, struct elf_limits *limits,
			  struct elf_info *info, bool scan)
{
	struct file_key key;
	struct stat st;
	uint64_t hash;
	uint32_t id;
	int err;

	if (!f || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return read_file(fd, limits, info, scan);
	memset(&key, 0, sizeof(key));
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	key.size = (uint64_t)st.st_size;
	key.mtime_s = st.st_mtim.tv_sec;
	key.mtime_ns = st.st_mtim.tv_nsec;
	key.ctime_s = st.st_ctim.tv_sec;
	key.ctime_ns = st.st_ctim.tv_nsec;
	hash = file_key__hash(&key);

	pthread_mutex_lock(&f->lock);
	id = hashmap__find(f->index, hash, &key, file_key__equal, f);
	if (id != HASHMAP_NONE && (f->items[id].scanned || !scan)) {
		err = f->items[id].err;
		if (err)
			memset(info, 0, sizeof(*info));
		else
			*info = f->items[id].info;
		f->stats.remembered++;
		pthread_mutex_unlock(&f->lock);
		return err;
	}
	f->stats.read++;
	pthread_mutex_unlock(&f->lock);

	/* Read without the lock: a large file takes up to its time cap. */
	err = read_file(fd, limits, info, scan);
	/* Kept only when the file did not change while it was read. */
	if (outcome_kept(err) && fstat(fd, &st) == 0 && (uint64_t)st.st_size == key.size &&
	    st.st_mtim.tv_sec == key.mtime_s && st.st_mtim.tv_nsec == key.mtime_ns &&
	    st.st_ctim.tv_sec == key.ctime_s && st.st_ctim.tv_nsec == key.ctime_ns) {
		pthread_mutex_lock(&f->lock);
		elf_facts__keep(f, &key, hash, err, scan, info);
		pthread_mutex_unlock(&f->lock);
	}
	return err;
}

int elf_facts__read(struct elf_facts *f, int fd, struct elf_limits *limits,
		    struct elf_info *info)
{
	return elf_facts__get(f, fd, limits, info, true);
}

int elf_facts__read_identity(struct elf_facts *f, int fd, struct elf_limits *limits,
			     struct elf_info *info)
{
	return elf_facts__get(f, fd, limits, info, false);
}

void elf_facts__stats(struct elf_facts *f, struct elf_facts_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	*out = f->stats;
	out->kept = f->n;
	pthread_mutex_unlock(&f->lock);
}
