// SPDX-License-Identifier: MIT
/*
 * Node processes in a capture (v8_procs.h). Workload: a node binary's .dynsym read once
 * per binary (~9,000 exported symbols, the v8dbg_ ones kept), /proc/PID/maps read once
 * per process, one map update; then one name per JSFunction a sample carries, read once
 * (the caller caches it) through the kernel's page reader.
 */
#include "capture/v8_procs.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "../../bpf/v8_records.h"
#include "capture/jvm_memory.h"
#include "capture/unwinding.h"
#include "profile/profile.h"
#include "unwind/v8.h"
#include "util/messages.h"

/* Lines of /proc/PID/maps looked at for code ranges: a node has a few thousand. */
#define V8_MAPS_LINES 65536
/* The largest code range taken: V8 reserves 128 MB to 512 MB for one isolate. */
#define V8_RANGE_MAX (4ull << 30)

enum v8_refusal {
	V8_OK,
	V8_NO_CONSTANTS,	/* the binary exports some v8dbg_ constants, not all */
	V8_COMPRESSED,		/* pointer compression: 4-byte tagged fields */
	V8_NO_CODE,		/* no code range in its mappings */
	V8_UNREADABLE,		/* no page reader (a kernel without sleepable iterators) */
};

struct v8_known {
	dev_t dev;
	uint64_t ino;
	int err; /* v8_layout__read's */
	enum v8_const missing;
	struct v8_layout layout;
};

struct v8_entry {
	int pid;
	bool live;
	enum v8_refusal refusal;
	enum v8_const missing;
	char path[256];
	struct v8_layout layout;
};

/* A script's line ends, read once (v8_script__line_ends): the first function of a script
 * met reads them, the others find them here. */
#define V8_SCRIPTS_KEPT 64

struct v8_script {
	int pid; /* 0: free */
	uint64_t script;
	int err; /* what reading its line ends gave: not read again */
	struct v8_line_ends ends;
};

struct v8_procs {
	int map_fd;
	jvm_memory_reader_fn reader;
	void *reader_ctx;
	bool reader_asked;
	struct jvm_memory *mem; /* set by the worker under lock, once */
	/* The worker's own. */
	struct v8_known *known;
	size_t nknown, cap_known;
	/* Shared with the sampling side, under lock. */
	pthread_mutex_t lock;
	struct v8_entry *procs;
	size_t nprocs, cap_procs;
	uint32_t added; /* records written so far (v8_procs__added) */
	/* Line ends: read and freed by the sampling side (the one thread naming
	 * functions); their pid under lock (a process's exit forgets them). */
	struct v8_script scripts[V8_SCRIPTS_KEPT];
	unsigned next_script; /* the next room taken when all are: round robin */
};

struct v8_procs *v8_procs__new(int map_fd, jvm_memory_reader_fn reader, void *ctx)
{
	struct v8_procs *vp = calloc(1, sizeof(*vp));

	if (!vp)
		return NULL;
	vp->map_fd = map_fd;
	vp->reader = reader;
	vp->reader_ctx = ctx;
	pthread_mutex_init(&vp->lock, NULL);
	return vp;
}

void v8_procs__free(struct v8_procs *vp)
{
	if (!vp)
		return;
	free(vp->known);
	free(vp->procs);
	for (unsigned i = 0; i < V8_SCRIPTS_KEPT; i++)
		v8_line_ends__free(&vp->scripts[i].ends);
	pthread_mutex_destroy(&vp->lock);
	free(vp);
}

/* Whether path is a binary V8 may be in: a node (nodejs) executable or a libnode. */
static bool v8_procs__is_candidate(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0 ||
	       strncmp(base, "libnode.so", 10) == 0;
}

static const struct v8_known *v8_procs__binary(struct v8_procs *vp,
					       const struct unwinding_mapping *m)
{
	struct v8_known *k;

	for (size_t i = 0; i < vp->nknown; i++)
		if (vp->known[i].dev == m->dev && vp->known[i].ino == m->ino)
			return &vp->known[i];
	if (vp->nknown == vp->cap_known) {
		size_t cap = vp->cap_known ? vp->cap_known * 2 : 4;
		struct v8_known *grown = realloc(vp->known, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		vp->known = grown;
		vp->cap_known = cap;
	}
	k = &vp->known[vp->nknown++];
	memset(k, 0, sizeof(*k));
	k->dev = m->dev;
	k->ino = m->ino;
	k->missing = V8_CONST_COUNT;
	k->err = v8_layout__read(m->fd, &k->layout, &k->missing);
	return k;
}

struct v8_vma {
	uint64_t start, end;
	bool exec, anon;
};

/*
 * pid's code ranges into p: each run of adjacent anonymous mappings (V8's reservation:
 * committed code, not yet committed ---p, its page headers) that holds executable
 * anonymous memory, with the binary's own mappings inside it (the builtins V8 remaps
 * there). 0 or -errno.
 */
static int v8_procs__ranges(int pid, struct v8_proc *p)
{
	struct v8_vma *v = NULL;
	size_t n = 0, cap = 0;
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (n < V8_MAPS_LINES && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, ino;
		char perms[8], file[2] = "";
		int at = 0;

		if (!strchr(line, '\n')) { /* a path past the buffer: the rest of its line */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &start, &end, perms, &ino, &at) < 4)
			continue;
		file[0] = line[at] && line[at] != '\n' ? line[at] : '\0';
		if (n == cap) {
			size_t c = cap ? cap * 2 : 256;
			struct v8_vma *g = realloc(v, c * sizeof(*g));

			if (!g) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = g;
			cap = c;
		}
		v[n++] = (struct v8_vma){ start, end, perms[2] == 'x', ino == 0 && !file[0] };
	}
	fclose(f);
	p->nranges = 0;
	for (size_t i = 0; i < n && p->nranges < V8_MAX_RANGES; i++) {
		size_t lo = i, hi = i;

		if (!v[i].anon || !v[i].exec)
			continue;
		if (p->nranges && v[i].start < p->ranges[p->nranges - 1].high)
			continue; /* inside the range taken */
		while (lo > 0 && v[lo - 1].anon && v[lo - 1].end == v[lo].start)
			lo--;
		while (hi + 1 < n && v[hi + 1].start == v[hi].end &&
		       (v[hi + 1].anon || v[hi + 1].exec))
			hi++;
		if (v[hi].end - v[lo].start > V8_RANGE_MAX)
			continue;
		p->ranges[p->nranges].low = v[lo].start;
		p->ranges[p->nranges].high = v[hi].end;
		p->nranges++;
	}
	free(v);
	return 0;
}

/* The builtins in the binary's text, where one of maps (of the binary k was read from)
 * holds them, as one more range of p. */
static void v8_procs__builtins(const struct v8_known *k, const struct unwinding_mapping *maps,
			       size_t n, struct v8_proc *p)
{
	uint64_t off = k->layout.builtins_offset, size = k->layout.builtins_size;

	for (size_t i = 0; i < n && size && p->nranges < V8_MAX_RANGES; i++) {
		const struct unwinding_mapping *m = &maps[i];

		if (m->dev != k->dev || m->ino != k->ino || off < m->offset ||
		    off + size > m->offset + (m->end - m->start))
			continue;
		p->ranges[p->nranges].low = m->start + (off - m->offset);
		p->ranges[p->nranges].high = p->ranges[p->nranges].low + size;
		p->nranges++;
		return;
	}
}

/* The entry of pid, or a new one (an exited node's room reused past V8_PROCS_MAX).
 * Under lock. NULL: no room. */
static struct v8_entry *v8_procs__slot(struct v8_procs *vp, int pid)
{
	for (size_t i = 0; i < vp->nprocs; i++)
		if (vp->procs[i].pid == pid)
			return &vp->procs[i];
	if (vp->nprocs == V8_PROCS_MAX) {
		for (size_t i = 0; i < vp->nprocs; i++)
			if (!vp->procs[i].live)
				return &vp->procs[i];
		return NULL;
	}
	if (vp->nprocs == vp->cap_procs) {
		size_t cap = vp->cap_procs ? vp->cap_procs * 2 : 8;
		struct v8_entry *grown = realloc(vp->procs, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		vp->procs = grown;
		vp->cap_procs = cap;
	}
	return &vp->procs[vp->nprocs++];
}

/* The reader, asked for when the first node is met (the worker's). */
static struct jvm_memory *v8_procs__reader(struct v8_procs *vp)
{
	struct jvm_memory *mem;

	if (vp->reader_asked)
		return vp->mem;
	vp->reader_asked = true;
	mem = vp->reader ? vp->reader(vp->reader_ctx) : NULL;
	pthread_mutex_lock(&vp->lock);
	vp->mem = mem;
	pthread_mutex_unlock(&vp->lock);
	return mem;
}

void v8_procs__add_process(struct v8_procs *vp, int pid, const struct unwinding_mapping *maps,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct unwinding_mapping *m = &maps[i];
		const struct v8_known *k;
		struct v8_entry e = { .pid = pid, .missing = V8_CONST_COUNT };
		struct v8_proc proc = { 0 };
		struct v8_entry *slot;
		uint32_t key = (uint32_t)pid;

		if (m->fd < 0 || !m->path || !v8_procs__is_candidate(m->path))
			continue;
		k = v8_procs__binary(vp, m);
		if (!k)
			return;
		if (k->err == -ENOENT || (k->err && k->err != -ENODATA))
			continue; /* not V8 (or not readable as ELF): another mapping may be */
		snprintf(e.path, sizeof(e.path), "%s", m->path);
		e.layout = k->layout;
		if (k->err == -ENODATA) {
			e.refusal = V8_NO_CONSTANTS;
			e.missing = k->missing;
		} else if (k->layout.c[V8_TAGGED_SIZE] != 8) {
			e.refusal = V8_COMPRESSED;
		} else {
			if (v8_procs__ranges(pid, &proc) == 0)
				v8_procs__builtins(k, maps, n, &proc);
			if (!proc.nranges)
				e.refusal = V8_NO_CODE;
			else if (!v8_procs__reader(vp))
				e.refusal = V8_UNREADABLE;
		}
		proc.off_fp_function = (__s16)k->layout.c[V8_OFF_FP_FUNCTION];
		proc.off_fp_context = (__s16)k->layout.c[V8_OFF_FP_CONTEXT];
		proc.smi_mask = (__u64)(uint32_t)k->layout.c[V8_SMI_TAG_MASK];
		proc.smi_tag = (__u64)(uint32_t)k->layout.c[V8_SMI_TAG];
		proc.heap_mask = (__u64)(uint32_t)k->layout.c[V8_HEAP_TAG_MASK];
		proc.heap_tag = (__u64)(uint32_t)k->layout.c[V8_HEAP_TAG];
		e.live = e.refusal == V8_OK;
		if (e.live && bpf_map_update_elem(vp->map_fd, &key, &proc, BPF_ANY))
			e.live = false;
		pthread_mutex_lock(&vp->lock);
		slot = v8_procs__slot(vp, pid);
		if (slot)
			*slot = e;
		if (e.live)
			vp->added++;
		pthread_mutex_unlock(&vp->lock);
		return;
	}
}

void v8_procs__remove_process(struct v8_procs *vp, int pid)
{
	uint32_t key = (uint32_t)pid;
	bool had = false;

	pthread_mutex_lock(&vp->lock);
	for (size_t i = 0; i < vp->nprocs; i++) {
		if (vp->procs[i].pid == pid) {
			had = vp->procs[i].live;
			vp->procs[i].live = false;
		}
	}
	for (unsigned i = 0; i < V8_SCRIPTS_KEPT; i++)
		if (vp->scripts[i].pid == pid)
			vp->scripts[i].pid = 0; /* a pid reused holds other scripts */
	pthread_mutex_unlock(&vp->lock);
	if (had)
		bpf_map_delete_elem(vp->map_fd, &key);
}

/* The line ends of pid's script, read the first time it is met (sampling side). */
static const struct v8_line_ends *v8_procs__script(struct v8_procs *vp, const struct v8_layout *l,
						   struct jvm_memory_process *mp, uint64_t script)
{
	struct v8_script *sc = NULL;
	struct v8_line_ends ends;
	int err;

	pthread_mutex_lock(&vp->lock);
	for (unsigned i = 0; i < V8_SCRIPTS_KEPT && !sc; i++)
		if (vp->scripts[i].pid == mp->pid && vp->scripts[i].script == script)
			sc = &vp->scripts[i];
	pthread_mutex_unlock(&vp->lock);
	if (sc)
		return sc->err ? NULL : &sc->ends;
	/* read outside the lock: a script's source is up to 256 pages */
	err = v8_script__line_ends(l, jvm_memory__read, mp, script, &ends);
	sc = &vp->scripts[vp->next_script++ % V8_SCRIPTS_KEPT];
	v8_line_ends__free(&sc->ends);
	pthread_mutex_lock(&vp->lock);
	sc->pid = mp->pid;
	sc->script = script;
	sc->err = err;
	sc->ends = ends;
	pthread_mutex_unlock(&vp->lock);
	return err ? NULL : &sc->ends;
}

/* pid's layout and a reader of its memory: 0, or -ENOENT when pid is not walked. */
static int v8_procs__layout(struct v8_procs *vp, int pid, struct v8_layout *l,
			    struct jvm_memory_process *mp)
{
	bool found = false;

	mp->pid = pid;
	pthread_mutex_lock(&vp->lock);
	mp->m = vp->mem;
	for (size_t i = 0; i < vp->nprocs; i++) {
		if (vp->procs[i].pid == pid && vp->procs[i].refusal == V8_OK) {
			*l = vp->procs[i].layout;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&vp->lock);
	return found && mp->m ? 0 : -ENOENT;
}

/* The line of position pos in the script at script, 0 when not known. */
static int32_t v8_procs__line(struct v8_procs *vp, const struct v8_layout *l,
			      struct jvm_memory_process *mp, uint64_t script, int32_t pos)
{
	const struct v8_line_ends *ends;

	if (pos < 0 || !script || !(ends = v8_procs__script(vp, l, mp, script)))
		return 0;
	return v8_line_ends__line(ends, pos);
}

int v8_procs__frames(struct v8_procs *vp, int pid, uint64_t fn, uint64_t pc, bool leaf,
		     struct v8_named *out, unsigned max)
{
	struct v8_position where[V8_MAX_INLINED];
	struct jvm_memory_process mp;
	struct v8_layout l;
	unsigned n = 0, k = 0;

	if (max > V8_MAX_INLINED)
		max = V8_MAX_INLINED;
	if (!max || v8_procs__layout(vp, pid, &l, &mp) ||
	    v8_code__positions(&l, jvm_memory__read, &mp, fn, pc, leaf, where, max, &n))
		return 0;
	/* each function of the place, fn's own last, named from its SharedFunctionInfo */
	for (unsigned i = 0; i < n; i++) {
		struct v8_named *o = &out[k];
		struct v8_function f;

		if (v8_shared__describe(&l, jvm_memory__read, &mp, where[i].shared, &f)) {
			if (i + 1 == n)
				return 0; /* fn itself not read here: its place is not either */
			continue;	  /* an inlined function not read: its caller's place */
		}
		snprintf(o->name, sizeof(o->name), "%s", f.name[0] ? f.name : "(anonymous)");
		snprintf(o->script, sizeof(o->script), "%s", f.script);
		o->first = v8_procs__line(vp, &l, &mp, f.script_at, f.start);
		o->line = v8_procs__line(vp, &l, &mp, f.script_at, where[i].offset);
		o->at_line = o->line > 0;
		if (!o->line)
			o->line = o->first;
		k++;
	}
	return (int)k;
}

int v8_procs__function_name(struct v8_procs *vp, int pid, uint64_t fn, char *buf,
			    char *script, int32_t *line)
{
	struct jvm_memory_process mp;
	const struct v8_line_ends *ends;
	struct v8_function f;
	struct v8_layout l;
	int err;

	buf[0] = '\0';
	if (script) {
		script[0] = '\0';
		*line = 0;
	}
	if (v8_procs__layout(vp, pid, &l, &mp))
		return -ENOENT;
	err = v8_function__describe(&l, jvm_memory__read, &mp, fn, &f);
	if (err == -EINVAL) {
		/* The heap moves and fills: pages kept from an earlier name may be stale. */
		jvm_memory__forget(mp.m, pid);
		err = v8_function__describe(&l, jvm_memory__read, &mp, fn, &f);
	}
	if (err)
		return err;
	snprintf(buf, V8_MAX_NAME, "%s", f.name[0] ? f.name : "(anonymous)");
	if (!script)
		return 0;
	snprintf(script, V8_MAX_SCRIPT, "%s", f.script);
	if (f.start >= 0 && (ends = v8_procs__script(vp, &l, &mp, f.script_at)))
		*line = v8_line_ends__line(ends, f.start);
	return 0;
}

uint32_t v8_procs__added(struct v8_procs *vp)
{
	uint32_t n;

	pthread_mutex_lock(&vp->lock);
	n = vp->added;
	pthread_mutex_unlock(&vp->lock);
	return n;
}

uint32_t v8_procs__count(struct v8_procs *vp, uint32_t *refused)
{
	uint32_t n = 0, r = 0;

	pthread_mutex_lock(&vp->lock);
	for (size_t i = 0; i < vp->nprocs; i++) {
		if (vp->procs[i].refusal == V8_OK)
			n++;
		else
			r++;
	}
	pthread_mutex_unlock(&vp->lock);
	if (refused)
		*refused = r;
	return n;
}

static void v8_refusal__say(const struct v8_entry *e, char *why, size_t size)
{
	switch (e->refusal) {
	case V8_NO_CONSTANTS:
		msg_format(why, size, MSG_V8_NO_CONSTANTS, v8_const__name(e->missing));
		return;
	case V8_COMPRESSED:
		msg_format(why, size, MSG_V8_COMPRESSED);
		return;
	case V8_NO_CODE:
		msg_format(why, size, MSG_V8_NO_CODE);
		return;
	case V8_UNREADABLE:
	case V8_OK:
		break;
	}
	msg_format(why, size, MSG_V8_UNREADABLE);
}

int v8_procs__refusals(struct v8_procs *vp, struct profile *p)
{
	int err = 0;

	pthread_mutex_lock(&vp->lock);
	for (size_t i = 0; i < vp->nprocs && !err; i++) {
		const struct v8_entry *e = &vp->procs[i];
		char why[512], reason[600];

		if (e->refusal == V8_OK)
			continue;
		v8_refusal__say(e, why, sizeof(why));
		msg_format(reason, sizeof(reason), MSG_RUNTIME_REFUSED_PROCESS, e->pid, why);
		err = profile__add_not_read(p, e->path, "", reason);
	}
	pthread_mutex_unlock(&vp->lock);
	return err;
}
