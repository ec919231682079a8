// SPDX-License-Identifier: MIT
/*
 * The resident profiler: each question's BPF object loaded once and kept, reset for
 * each capture, attached only while one runs (session.c closes every link). See
 * profiler.h.
 *
 * Reset: a kept object's maps hold what the last capture left. The ring buffer is
 * drained by the session before it attaches; here, every hash map is emptied (processes
 * seen, interpreters, threads and waits under way: the programs were detached, so none
 * of it is current) and every array of counters or state zeroed (counters, .bss
 * globals such as the wall window), except the unwind tables (kept: they are by build
 * id, true whatever ran since) and read-only data (the object's configuration). The
 * processes' unwind mappings are forgotten (a pid may be another process now); each
 * process is loaded again, from the tables already in, when it is first sampled.
 */
#include "capture/profiler.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "proc/packages.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "unwind/unwind.h"
#include "util/clock.h"

/* Arrays larger than this are not state to zero (the unwind rows are skipped by name). */
#define RESET_ARRAY_MAX 4096
/* Entries taken per batch when emptying a hash map. */
#define RESET_BATCH 256
/* Addresses whose lines are remembered, of every build (8 bytes each): past it, all are
 * forgotten and remembered again from the next capture on. */
#define MEMO_ADDRS_MAX (1u << 20)
/* DWARF kept open: files whose opening cost DWARF_KEPT_OPEN_NS of CPU or more (a
 * debug file's compressed sections: Debian's libc takes ~20 ms; a file with plain
 * sections is only mapped), this many, at most DWARF_KEPT_BYTES of them together (open,
 * a compressed file takes a few times its size), none larger than DWARF_KEPT_FILE_MAX. */
#define DWARF_KEPT 8
#define DWARF_KEPT_OPEN_NS 2000000
#define DWARF_KEPT_BYTES (24ull << 20)
#define DWARF_KEPT_FILE_MAX (16ull << 20)

struct resident {
	bool loaded;
	struct bpf_loaded bpf;
	size_t ringbuf_size;
	struct unwind_maps_plan plan;
	struct unwind_maps *maps;      /* NULL: the object has no unwind maps */
	struct bpf_map_info *info;     /* per map of bpf, as the kernel has it */
};

/* What was read of one build and kept (profiler__note_*). */
struct build_memo {
	char build_id[BUILD_ID_HEX_MAX + 1];
	bool symbols_kept;             /* its .dynsym, with no debug file installed */
	uint64_t *addrs;               /* lines looked up, sorted */
	size_t naddrs, cap_addrs;
};

struct profiler {
	char *dir, *unwind_dir, *captures_dir;
	pthread_mutex_t lock;
	/* By build id, sorted; under memo_lock (a capture's reading, Remove). */
	pthread_mutex_t memo_lock;
	struct build_memo *memos;
	size_t nmemos, cap_memos;
	size_t memo_addrs;             /* of every build: at most MEMO_ADDRS_MAX */
	bool busy;                     /* a capture holds it */
	struct resident q[QUESTION__COUNT];
	struct ksym_bpf *ksym;
	bool ksym_failed;              /* the program cannot run here: not tried again */
	struct packages *packages;     /* under memo_lock */
	struct dwarf_kept {
		char build_id[BUILD_ID_HEX_MAX + 1];
		bool debug_file;
		struct lines_dwarf *d;
		uint64_t last_used;
	} dwarf[DWARF_KEPT];           /* under memo_lock */
	uint64_t dwarf_clock;
	struct timespec packages_seen[3]; /* when dpkg's and apt's lists last changed */
};

struct profiler *profiler__new(const char *dir)
{
	struct profiler *p = calloc(1, sizeof(*p));
	char parent[PATH_MAX];

	if (!p)
		return NULL;
	snprintf(parent, sizeof(parent), "%s", dir);
	if (asprintf(&p->unwind_dir, "%s/unwind", dir) < 0) {
		p->unwind_dir = NULL;
		goto out_nomem;
	}
	if (asprintf(&p->captures_dir, "%s/captures", dirname(parent)) < 0) {
		p->captures_dir = NULL;
		goto out_nomem;
	}
	p->dir = strdup(dir);
	if (!p->dir)
		goto out_nomem;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->memo_lock, NULL);
	for (int i = 0; i < QUESTION__COUNT; i++)
		bpf_loaded__close(&p->q[i].bpf); /* its empty state: no descriptors */
	return p;

out_nomem:
	free(p->unwind_dir);
	free(p->captures_dir);
	free(p);
	errno = ENOMEM;
	return NULL;
}

const char *profiler__dir(const struct profiler *p)
{
	return p->dir;
}

const char *profiler__unwind_dir(const struct profiler *p)
{
	return p->unwind_dir;
}

static void resident__unload(struct resident *r)
{
	unwind_maps__free(r->maps);
	free(r->info);
	bpf_loaded__close(&r->bpf);
	r->maps = NULL;
	r->info = NULL;
	r->loaded = false;
	r->ringbuf_size = 0;
}

static void profiler__forget_builds(struct profiler *p)
{
	pthread_mutex_lock(&p->memo_lock);
	for (size_t i = 0; i < p->nmemos; i++)
		free(p->memos[i].addrs);
	free(p->memos);
	p->memos = NULL;
	p->nmemos = p->cap_memos = p->memo_addrs = 0;
	packages__free(p->packages);
	p->packages = NULL;
	for (int i = 0; i < DWARF_KEPT; i++) {
		lines_dwarf__close(p->dwarf[i].d);
		memset(&p->dwarf[i], 0, sizeof(p->dwarf[i]));
	}
	pthread_mutex_unlock(&p->memo_lock);
}

static void profiler__unload_locked(struct profiler *p)
{
	profiler__forget_builds(p);
	for (int i = 0; i < QUESTION__COUNT; i++)
		resident__unload(&p->q[i]);
	capture__ksyms_free(p->ksym);
	p->ksym = NULL;
	p->ksym_failed = false;
}

bool profiler__installed(struct profiler *p)
{
	bool any = false;

	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < QUESTION__COUNT; i++)
		any = any || p->q[i].loaded;
	pthread_mutex_unlock(&p->lock);
	return any;
}

bool profiler__will_install(struct profiler *p, enum question q)
{
	bool loaded;

	if ((unsigned)q >= QUESTION__COUNT)
		return false;
	pthread_mutex_lock(&p->lock);
	loaded = p->q[q].loaded;
	pthread_mutex_unlock(&p->lock);
	return !loaded;
}

static int resident__load(struct resident *r, const struct capture_question *q,
			  size_t ringbuf_size, const struct unwind_maps_plan *plan)
{
	int err = bpf_loaded__load(&r->bpf, q, ringbuf_size, plan);
	int rows, tables, procs;

	if (err)
		return err;
	r->info = calloc(r->bpf.nmaps ? r->bpf.nmaps : 1, sizeof(*r->info));
	if (!r->info)
		goto out_nomem;
	for (int i = 0; i < r->bpf.nmaps; i++) {
		__u32 len = sizeof(r->info[i]);

		if (r->bpf.map_fds[i] < 0 ||
		    bpf_obj_get_info_by_fd(r->bpf.map_fds[i], &r->info[i], &len))
			r->info[i].type = BPF_MAP_TYPE_UNSPEC; /* left alone */
	}
	rows = bpf_loaded__map(&r->bpf, "unwind_rows");
	tables = bpf_loaded__map(&r->bpf, "unwind_tables");
	procs = bpf_loaded__map(&r->bpf, "unwind_procs");
	if (rows >= 0 && tables >= 0 && procs >= 0) {
		r->maps = unwind_maps__new(plan, rows, tables, procs);
		if (!r->maps)
			goto out_nomem;
	}
	r->ringbuf_size = ringbuf_size;
	r->plan = *plan;
	r->loaded = true;
	return 0;

out_nomem:
	resident__unload(r);
	return -ENOMEM;
}

/* Kept as they are: the ring buffer (the session drains it), the unwind maps (their
 * bookkeeping, unwind_maps, resets what must be), and read-only data. */
static bool map_kept(const char *name, const struct bpf_map_info *info)
{
	static const char *const kept[] = { "records", "unwind_rows", "unwind_tables",
					    "unwind_procs" };

	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
		if (strcmp(name, kept[i]) == 0)
			return true;
	return (info->map_flags & BPF_F_RDONLY_PROG) || strstr(name, ".rodata") ||
	       strstr(name, ".kconfig") || strstr(name, ".data");
}

static bool map_is_hash(__u32 type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_LRU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static bool map_is_percpu(__u32 type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* The bytes of one value as user space reads and writes it. */
static size_t value_bytes(const struct bpf_map_info *info)
{
	int ncpus = libbpf_num_possible_cpus();

	if (!map_is_percpu(info->type))
		return info->value_size;
	return ((info->value_size + 7) & ~7u) * (size_t)(ncpus > 0 ? ncpus : 1);
}

/* Every entry deleted: by batches where the kernel has them, else one by one. */
static int empty_hash(int fd, const struct bpf_map_info *info)
{
	size_t vbytes = value_bytes(info);
	void *keys = calloc(RESET_BATCH, info->key_size ? info->key_size : 1);
	void *values = calloc(RESET_BATCH, vbytes ? vbytes : 1);
	__u64 token = 0;
	void *in = NULL;
	int err = 0;

	if (!keys || !values) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		__u32 count = RESET_BATCH;

		if (bpf_map_lookup_and_delete_batch(fd, in, &token, keys, values, &count, NULL)) {
			if (errno == ENOENT)
				goto out; /* the last batch was taken */
			break;    /* no batches here: one by one */
		}
		in = &token;
	}
	/* keys is at least one key long. */
	while (bpf_map_get_next_key(fd, NULL, keys) == 0)
		if (bpf_map_delete_elem(fd, keys) && errno != ENOENT) {
			err = -errno;
			break;
		}
out:
	free(keys);
	free(values);
	return err;
}

static int zero_array(int fd, const struct bpf_map_info *info)
{
	void *zero = calloc(1, value_bytes(info) ? value_bytes(info) : 1);
	int err = 0;

	if (!zero)
		return -ENOMEM;
	for (__u32 k = 0; k < info->max_entries && !err; k++)
		if (bpf_map_update_elem(fd, &k, zero, BPF_ANY))
			err = -errno;
	free(zero);
	return err;
}

/* What a capture must start without, gone (see the top of this file). */
static int resident__reset(struct resident *r)
{
	int err = 0;

	for (int i = 0; i < r->bpf.nmaps && !err; i++) {
		const struct bpf_map_info *info = &r->info[i];
		int fd = r->bpf.map_fds[i];

		if (fd < 0 || map_kept(r->bpf.map_names[i], info))
			continue;
		if (map_is_hash(info->type))
			err = empty_hash(fd, info);
		else if ((info->type == BPF_MAP_TYPE_ARRAY ||
			  info->type == BPF_MAP_TYPE_PERCPU_ARRAY) &&
			 info->max_entries <= RESET_ARRAY_MAX)
			err = zero_array(fd, info);
	}
	if (!err && r->maps)
		err = unwind_maps__forget_processes(r->maps);
	return err;
}

static bool same_plan(const struct unwind_maps_plan *a, const struct unwind_maps_plan *b)
{
	return a->budget == b->budget && a->rows == b->rows && a->procs == b->procs;
}

int profiler__take(struct profiler *p, const struct capture_question *q, size_t ringbuf_size,
		   const struct unwind_maps_plan *plan, struct bpf_loaded **bpf,
		   struct unwind_maps **maps, bool *installed)
{
	struct resident *r = &p->q[q->id];
	int err;

	*installed = false;
	pthread_mutex_lock(&p->lock);
	if (p->busy) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	p->busy = true;
	pthread_mutex_unlock(&p->lock);

	/* The capture holds it now; the lock is for those who ask what is loaded. */
	pthread_mutex_lock(&p->lock);
	/* A larger ring buffer (a higher rate) or another memory plan: loaded again. */
	if (r->loaded && (r->ringbuf_size < ringbuf_size || !same_plan(&r->plan, plan)))
		resident__unload(r);
	pthread_mutex_unlock(&p->lock);
	if (r->loaded && resident__reset(r)) {
		/* A state we cannot vouch for: loaded afresh. */
		pthread_mutex_lock(&p->lock);
		resident__unload(r);
		pthread_mutex_unlock(&p->lock);
	}
	if (!r->loaded) {
		pthread_mutex_lock(&p->lock);
		/* One question's programs stay loaded at a time: each holds unwind maps of a
		 * whole memory plan (64 MB by default), so keeping all five would hold five
		 * times what one capture needs. The tables stay on disk; a capture of the same
		 * question again starts at once, another question loads its own first. */
		for (int i = 0; i < QUESTION__COUNT; i++)
			if (i != (int)q->id && p->q[i].loaded)
				resident__unload(&p->q[i]);
		err = resident__load(r, q, ringbuf_size, plan);
		pthread_mutex_unlock(&p->lock);
		if (err)
			goto out_release;
		*installed = true;
	}
	*bpf = &r->bpf;
	*maps = r->maps;
	return 0;

out_release:
	pthread_mutex_lock(&p->lock);
	p->busy = false;
	pthread_mutex_unlock(&p->lock);
	return err;
}

void profiler__give_back(struct profiler *p, const struct capture_question *q, bool keep)
{
	pthread_mutex_lock(&p->lock);
	if (!keep)
		resident__unload(&p->q[q->id]);
	p->busy = false;
	pthread_mutex_unlock(&p->lock);
}

int profiler__name_kernel_frames(struct profiler *p, struct profile *prof,
				 uint32_t kernel_mapping)
{
	/* Only a capture that holds the profiler calls this: no lock needed for ksym. */
	if (!p->ksym && !p->ksym_failed) {
		p->ksym = capture__ksyms_load();
		p->ksym_failed = !p->ksym;
	}
	if (!p->ksym)
		return -EOPNOTSUPP;
	return capture__name_kernel_frames_with(p->ksym, prof, kernel_mapping);
}

int profiler__unload(struct profiler *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->busy) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	profiler__unload_locked(p);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int profiler__remove(struct profiler *p, struct remove_report *rep)
{
	int err, e;

	pthread_mutex_lock(&p->lock);
	if (p->busy) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	err = remove_report__init(rep);
	if (!err) {
		profiler__unload_locked(p);
		err = remove_report__path(rep, p->dir);
		e = remove_report__path(rep, p->captures_dir);
		err = err ? err : e;
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

void profiler__free(struct profiler *p)
{
	if (!p)
		return;
	profiler__unload_locked(p);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->memo_lock);
	free(p->dir);
	free(p->unwind_dir);
	free(p->captures_dir);
	free(p);
}

/* ---- what was read of each build and kept ---- */

/* build_id's memo (added when add; NULL when not there, or out of memory). Under
 * memo_lock. */
static struct build_memo *memo_find(struct profiler *p, const char *build_id, bool add)
{
	size_t lo = 0, hi = p->nmemos;

	if (!build_id || !build_id[0] || strlen(build_id) > BUILD_ID_HEX_MAX)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->memos[mid].build_id, build_id);

		if (c == 0)
			return &p->memos[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!add)
		return NULL;
	if (p->nmemos == p->cap_memos) {
		size_t cap = p->cap_memos ? p->cap_memos * 2 : 64;
		struct build_memo *grown = realloc(p->memos, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		p->memos = grown;
		p->cap_memos = cap;
	}
	memmove(&p->memos[lo + 1], &p->memos[lo], (p->nmemos - lo) * sizeof(*p->memos));
	p->nmemos++;
	memset(&p->memos[lo], 0, sizeof(p->memos[lo]));
	snprintf(p->memos[lo].build_id, sizeof(p->memos[lo].build_id), "%s", build_id);
	return &p->memos[lo];
}

/* A debug file is installed for build_id: it names the build better than its .dynsym. */
static bool debug_file_installed(const char *build_id)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", DEBUG_FILES_ROOT, build_id,
		 build_id + 2);
	return stat(path, &st) == 0;
}

void profiler__note_symbols_kept(struct profiler *p, const char *build_id)
{
	struct build_memo *m;

	if (!build_id || strlen(build_id) < 3 || debug_file_installed(build_id))
		return;
	pthread_mutex_lock(&p->memo_lock);
	m = memo_find(p, build_id, true);
	if (m)
		m->symbols_kept = true;
	pthread_mutex_unlock(&p->memo_lock);
}

int profiler__symbols_kept(void *profiler, const char *build_id)
{
	struct profiler *p = profiler;
	struct build_memo *m;
	bool kept;

	pthread_mutex_lock(&p->memo_lock);
	m = memo_find(p, build_id, false);
	kept = m && m->symbols_kept;
	pthread_mutex_unlock(&p->memo_lock);
	/* A debug file installed since: read again, for its names. */
	return kept && !debug_file_installed(build_id);
}

static bool sorted_has(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void profiler__note_lines_looked_up(void *profiler, const char *build_id,
				    const uint64_t *addrs, size_t n)
{
	struct profiler *p = profiler;
	struct build_memo *m;
	size_t w = 0;

	pthread_mutex_lock(&p->memo_lock);
	if (p->memo_addrs + n > MEMO_ADDRS_MAX) {
		for (size_t i = 0; i < p->nmemos; i++) {
			free(p->memos[i].addrs);
			p->memos[i].addrs = NULL;
			p->memos[i].naddrs = p->memos[i].cap_addrs = 0;
		}
		p->memo_addrs = 0;
	}
	m = memo_find(p, build_id, true);
	if (!m || n > MEMO_ADDRS_MAX)
		goto out;
	if (m->naddrs + n > m->cap_addrs) {
		size_t cap = (m->naddrs + n) * 2;
		uint64_t *grown = realloc(m->addrs, cap * sizeof(*grown));

		if (!grown)
			goto out;
		m->addrs = grown;
		m->cap_addrs = cap;
	}
	memcpy(m->addrs + m->naddrs, addrs, n * sizeof(*addrs));
	m->naddrs += n;
	qsort(m->addrs, m->naddrs, sizeof(*m->addrs), u64_cmp);
	for (size_t i = 0; i < m->naddrs; i++)
		if (!w || m->addrs[w - 1] != m->addrs[i])
			m->addrs[w++] = m->addrs[i];
	p->memo_addrs += w - (m->naddrs - n);
	m->naddrs = w;
out:
	pthread_mutex_unlock(&p->memo_lock);
}

void profiler__lines_known(void *profiler, const char *build_id, uint64_t *addrs, size_t *n)
{
	struct profiler *p = profiler;
	struct build_memo *m;
	size_t w = 0;

	pthread_mutex_lock(&p->memo_lock);
	m = memo_find(p, build_id, false);
	if (m) {
		for (size_t i = 0; i < *n; i++)
			if (!sorted_has(m->addrs, m->naddrs, addrs[i]))
				addrs[w++] = addrs[i];
		*n = w;
	}
	pthread_mutex_unlock(&p->memo_lock);
}

/* What packages.c reads: dpkg's file lists and status, apt's lists. */
static void packages_signature(struct timespec out[3])
{
	static const char *const paths[3] = { "/var/lib/dpkg/info", "/var/lib/dpkg/status",
					      "/var/lib/apt/lists" };
	struct stat st;

	for (int i = 0; i < 3; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		if (stat(paths[i], &st) == 0)
			out[i] = st.st_mtim;
	}
}

struct packages *profiler__packages(struct profiler *p)
{
	struct timespec now[3];
	struct packages *pk;

	packages_signature(now);
	pthread_mutex_lock(&p->memo_lock);
	if (p->packages && memcmp(now, p->packages_seen, sizeof(now)) != 0) {
		packages__free(p->packages);
		p->packages = NULL;
	}
	if (!p->packages) {
		p->packages = packages__new("/");
		memcpy(p->packages_seen, now, sizeof(now));
	}
	pk = p->packages;
	pthread_mutex_unlock(&p->memo_lock);
	return pk;
}

/* The kept DWARF of build_id's file, or NULL. Under memo_lock. */
static struct dwarf_kept *dwarf_find(struct profiler *p, const char *build_id, bool debug_file)
{
	for (int i = 0; i < DWARF_KEPT; i++)
		if (p->dwarf[i].d && p->dwarf[i].debug_file == debug_file &&
		    strcmp(p->dwarf[i].build_id, build_id) == 0)
			return &p->dwarf[i];
	return NULL;
}

/* Keeps d (or closes it when it is too large): the least recently used go first. */
static void dwarf_keep(struct profiler *p, const char *build_id, bool debug_file,
		       struct lines_dwarf *d)
{
	uint64_t bytes = lines_dwarf__bytes(d), total = bytes;
	struct dwarf_kept *slot = NULL;

	if (bytes > DWARF_KEPT_FILE_MAX || strlen(build_id) > BUILD_ID_HEX_MAX) {
		lines_dwarf__close(d);
		return;
	}
	for (int i = 0; i < DWARF_KEPT; i++)
		if (p->dwarf[i].d)
			total += lines_dwarf__bytes(p->dwarf[i].d);
	for (;;) {
		struct dwarf_kept *oldest = NULL;
		int free_slots = 0;

		for (int i = 0; i < DWARF_KEPT; i++) {
			if (!p->dwarf[i].d) {
				free_slots++;
				slot = &p->dwarf[i];
			} else if (!oldest || p->dwarf[i].last_used < oldest->last_used) {
				oldest = &p->dwarf[i];
			}
		}
		if (free_slots && total <= DWARF_KEPT_BYTES)
			break;
		total -= lines_dwarf__bytes(oldest->d);
		lines_dwarf__close(oldest->d);
		memset(oldest, 0, sizeof(*oldest));
	}
	snprintf(slot->build_id, sizeof(slot->build_id), "%s", build_id);
	slot->debug_file = debug_file;
	slot->d = d;
	slot->last_used = ++p->dwarf_clock;
}

int profiler__read_lines(void *profiler, const char *build_id, bool debug_file, int fd,
			 const uint64_t *addrs, size_t n, const struct lines_caps *caps,
			 struct line_table **out)
{
	struct profiler *p = profiler;
	struct dwarf_kept *k;
	struct lines_dwarf *d;
	int64_t opened_ns;
	int err;

	pthread_mutex_lock(&p->memo_lock);
	k = dwarf_find(p, build_id, debug_file);
	if (k) {
		k->last_used = ++p->dwarf_clock;
		err = lines_dwarf__read(k->d, addrs, n, caps, out);
		goto out;
	}
	opened_ns = clock__thread_cpu_ns();
	err = lines_dwarf__open(fd, caps, &d);
	opened_ns = clock__thread_cpu_ns() - opened_ns;
	if (err)
		goto out;
	err = lines_dwarf__read(d, addrs, n, caps, out);
	/* Kept when opening it costs: sections to decompress, not a file mapped. */
	if (opened_ns >= DWARF_KEPT_OPEN_NS)
		dwarf_keep(p, build_id, debug_file, d);
	else
		lines_dwarf__close(d);
out:
	pthread_mutex_unlock(&p->memo_lock);
	return err;
}
