// SPDX-License-Identifier: MIT
/*
 * What the resident profiler keeps of what its captures read, so that the next capture
 * reads only what is new: builds whose .dynsym the workspace keeps, the addresses whose
 * lines were looked up, the DWARF of the few files costly to open, dpkg's file lists
 * until they change. See profiler.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/elf_facts.h"
#include "capture/profiler_internal.h"
#include "proc/mounts.h"
#include "proc/packages.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/clock.h"

void profiler__forget_builds(struct profiler *p)
{
	pthread_mutex_lock(&p->memo_lock);
	for (size_t i = 0; i < p->nmemos; i++)
		free(p->memos[i].addrs);
	free(p->memos);
	p->memos = NULL;
	p->nmemos = p->cap_memos = p->memo_addrs = 0;
	packages__free(p->packages);
	p->packages = NULL;
	/* No capture runs (unloading and Remove refuse while one does). */
	elf_facts__free(p->facts);
	p->facts = elf_facts__new();
	for (int i = 0; i < DWARF_KEPT; i++) {
		lines_dwarf__close(p->dwarf[i].d);
		memset(&p->dwarf[i], 0, sizeof(p->dwarf[i]));
	}
	pthread_mutex_unlock(&p->memo_lock);
}

struct elf_facts *profiler__facts(struct profiler *p)
{
	return p->facts;
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

/* A debug file is installed for build_id: it names the build better than its .dynsym.
 * Not looked for where a mount that may hang is on the way (a capture does not read it
 * then either). */
static bool debug_file_installed(const char *build_id)
{
	char path[PATH_MAX], hang[64];
	struct stat st;

	mounts__own_hang_on_path(DEBUG_FILES_ROOT, hang, sizeof(hang));
	if (hang[0])
		return false;
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
