// SPDX-License-Identifier: MIT
/*
 * The processes of a capture and their samples. Workload: a few hundred samples a
 * second, each with tens of frames; a new process now and then (read from /proc once);
 * every frame a binary search in its process's mappings and an interning lookup.
 */
#include "capture/processes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "capture/binaries.h"
#include "capture/cgroups.h"
#include "capture/maps.h"
#include "capture/python_procs.h"
#include "capture/unwinding.h"
#include "proc/owner.h"
#include "proc/proc.h"
#include "profile/profile.h"
#include "python_frames.h"
#include "unwind/python.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/clock.h"

/* The frames that stand for what a runtime ran (Python functions, JIT code). */
#define PYTHON_UNKNOWN_FRAME "[unknown Python function]"
#define JAVA_FRAME "[Java]"
#define JAVASCRIPT_FRAME "[JavaScript]"

/* A mapping that was not there when last read is looked for again (dlopen), but not
 * more often than this per process. */
#define MAPS_REREAD_NS 200000000LL

struct pending {
	void *record;
	size_t size;
};

struct process {
	int tgid;
	bool alive;    /* false: exited or exec'd; a new entry takes its pid */
	bool exited;   /* ended by its exit record (not replaced by an exec) */
	bool facts;    /* labels are set */
	bool maps_ok;  /* maps hold the process's mappings (kernel threads: none needed) */
	bool unsampled; /* read ahead (processes__read_all), no sample of it yet */
	int64_t maps_read_ns;
	struct vma_list maps;
	struct prof_labels labels; /* tid and thread are the sample's */
	struct pending *pending;
	size_t npending, cap_pending;
};

struct processes {
	struct profile *p;
	struct owner_resolver *owners;
	struct binaries *binaries;
	struct cgroups *cgroups;
	struct unwinding *unwinding;
	struct python_procs *python;
	struct python_code_cache *codes; /* names of the code objects BPF sent */
	const char *proc_root;
	int64_t default_values[RECORD_MAX_VALUES];
	uint32_t state_ids[4];   /* string ids of "", "running", "waiting", "idle" */
	uint32_t lock_kind_ids[PROCESSES_MAX_LOCK_KINDS]; /* string ids of the question's kinds */
	uint32_t nlock_kinds;
	long page_size;
	long ticks_per_s;

	struct process **items;
	uint32_t n, cap;
	struct hashmap *index; /* tgid -> live entry */

	uint32_t kernel_mapping, anon_mapping, unknown_mapping, truncated_mapping;
	uint32_t truncated_location;
	uint32_t python_mapping, java_mapping, javascript_mapping;
	uint32_t java_location, javascript_location;
	struct processes_stats stats;
};

struct processes *processes__new(struct profile *p, struct owner_resolver *owners,
				 struct binaries *binaries, struct cgroups *cgroups,
				 const char *proc_root, uint32_t kernel_mapping,
				 const int64_t default_values[RECORD_MAX_VALUES])
{
	struct processes *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->index = hashmap__new();
	ps->codes = python_code_cache__new();
	if (!ps->index || !ps->codes) {
		hashmap__free(ps->index);
		python_code_cache__free(ps->codes);
		free(ps);
		errno = ENOMEM;
		return NULL;
	}
	ps->p = p;
	ps->owners = owners;
	ps->binaries = binaries;
	ps->cgroups = cgroups;
	ps->proc_root = proc_root;
	memcpy(ps->default_values, default_values, sizeof(ps->default_values));
	ps->state_ids[SAMPLE_STATE_NONE] = 0;
	ps->state_ids[SAMPLE_STATE_RUNNING] = profile__intern(p, "running");
	ps->state_ids[SAMPLE_STATE_WAITING] = profile__intern(p, "waiting");
	ps->state_ids[SAMPLE_STATE_IDLE] = profile__intern(p, "idle");
	if (ps->state_ids[SAMPLE_STATE_RUNNING] == UINT32_MAX ||
	    ps->state_ids[SAMPLE_STATE_WAITING] == UINT32_MAX ||
	    ps->state_ids[SAMPLE_STATE_IDLE] == UINT32_MAX) {
		hashmap__free(ps->index);
		python_code_cache__free(ps->codes);
		free(ps);
		errno = ENOMEM;
		return NULL;
	}
	ps->page_size = sysconf(_SC_PAGESIZE);
	ps->ticks_per_s = sysconf(_SC_CLK_TCK);
	ps->kernel_mapping = kernel_mapping;
	ps->anon_mapping = ps->unknown_mapping = ps->truncated_mapping = UINT32_MAX;
	ps->truncated_location = UINT32_MAX;
	ps->python_mapping = ps->java_mapping = ps->javascript_mapping = UINT32_MAX;
	ps->java_location = ps->javascript_location = UINT32_MAX;
	return ps;
}

static void process__release(struct process *proc)
{
	for (size_t i = 0; i < proc->npending; i++)
		free(proc->pending[i].record);
	free(proc->pending);
	proc->pending = NULL;
	proc->npending = proc->cap_pending = 0;
	vma_list__clear(&proc->maps);
}

void processes__free(struct processes *ps)
{
	if (!ps)
		return;
	for (uint32_t i = 0; i < ps->n; i++) {
		process__release(ps->items[i]);
		free(ps->items[i]);
	}
	free(ps->items);
	hashmap__free(ps->index);
	python_code_cache__free(ps->codes);
	free(ps);
}

int processes__set_lock_kinds(struct processes *ps, const char *const *names, uint32_t n)
{
	if (n > PROCESSES_MAX_LOCK_KINDS)
		n = PROCESSES_MAX_LOCK_KINDS;
	for (uint32_t i = 0; i < n; i++) {
		ps->lock_kind_ids[i] = names[i] ? profile__intern(ps->p, names[i]) : 0;
		if (ps->lock_kind_ids[i] == UINT32_MAX)
			return -ENOMEM;
	}
	ps->nlock_kinds = n;
	return 0;
}

void processes__set_unwinding(struct processes *ps, struct unwinding *u)
{
	ps->unwinding = u;
}

void processes__set_python(struct processes *ps, struct python_procs *pp)
{
	ps->python = pp;
}

int processes__python_code(struct processes *ps, const void *data, size_t size)
{
	const struct python_code_record *r = data;

	if (size < sizeof(*r))
		return 0;
	return python_code_cache__add(ps->codes, r->tgid, &r->code);
}

const struct processes_stats *processes__stats(const struct processes *ps)
{
	return &ps->stats;
}

/* ---- the process table ---- */

static bool process__equal(const void *key, uint32_t id, void *ctx)
{
	const struct process *proc = ((struct processes *)ctx)->items[id];

	return proc->alive && proc->tgid == *(const int *)key;
}

static struct process *processes__find(struct processes *ps, int tgid)
{
	uint32_t id = hashmap__find(ps->index, hash_u64(3, (uint64_t)tgid), &tgid,
				    process__equal, ps);

	return id == HASHMAP_NONE ? NULL : ps->items[id];
}

static bool process__equal_exited(const void *key, uint32_t id, void *ctx)
{
	const struct process *proc = ((struct processes *)ctx)->items[id];

	return proc->exited && proc->facts && proc->tgid == *(const int *)key;
}

/* A process of this pid that exited during the capture, its labels kept. */
static struct process *processes__find_exited(struct processes *ps, int tgid)
{
	uint32_t id = hashmap__find(ps->index, hash_u64(3, (uint64_t)tgid), &tgid,
				    process__equal_exited, ps);

	return id == HASHMAP_NONE ? NULL : ps->items[id];
}

/* A new live entry for tgid. The index keeps dead entries (it cannot delete); they
 * never match, and there is one per process that exited while sampled. */
static struct process *processes__add(struct processes *ps, int tgid)
{
	struct process *proc;

	if (ps->n == ps->cap) {
		uint32_t cap = ps->cap ? ps->cap * 2 : 256;
		struct process **items = realloc(ps->items, cap * sizeof(*items));

		if (!items)
			return NULL;
		ps->items = items;
		ps->cap = cap;
	}
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return NULL;
	proc->tgid = tgid;
	proc->alive = true;
	if (hashmap__insert(ps->index, hash_u64(3, (uint64_t)tgid), ps->n)) {
		free(proc);
		return NULL;
	}
	ps->items[ps->n++] = proc;
	ps->stats.processes++;
	return proc;
}

/* The process ended or replaced its image: its labels stay, for its last ticks. */
static void process__kill(struct process *proc)
{
	process__release(proc);
	proc->alive = false;
}

/* ---- what a process is: its labels ---- */

static int process__set_facts(struct processes *ps, struct process *proc,
			      const struct proc_info *info)
{
	struct owner owner;
	struct profile *p = ps->p;

	owner_resolver__classify(ps->owners, info, &owner);
	proc->labels.pid = proc->tgid;
	proc->labels.comm = profile__intern(p, info->comm);
	proc->labels.group = profile__intern(p, owner.label);
	proc->labels.group_kind = owner.kind;
	proc->labels.exe = profile__intern(p, info->exe);
	if (proc->labels.comm == UINT32_MAX || proc->labels.group == UINT32_MAX ||
	    proc->labels.exe == UINT32_MAX)
		return -ENOMEM;
	proc->facts = true;
	return 0;
}

/* Opens the binaries of freshly read mappings (so they can be read after the process
 * is gone) and links each mapping to its binary. */
static int process__link_binaries(struct processes *ps, struct process *proc, const char *exe)
{
	for (size_t i = 0; i < proc->maps.n; i++) {
		struct vma *v = &proc->maps.vmas[i];

		if (v->kind != VMA_FILE || v->binary)
			continue;
		v->is_exe = exe && exe[0] && strcmp(v->path, exe) == 0;
		v->binary = binaries__get(ps->binaries, proc->tgid, v->start, v->end, v->dev,
					  v->ino, v->path, v->is_exe);
		if (!v->binary)
			return -ENOMEM;
	}
	return 0;
}

/* Hands proc's file mappings to the unwind worker (a copy: it never waits for it). */
static int process__send_maps(struct processes *ps, struct process *proc)
{
	struct unwinding_mapping *maps;
	size_t n = 0;
	int err;

	if (!ps->unwinding || proc->maps.n == 0)
		return 0;
	maps = calloc(proc->maps.n, sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	for (size_t i = 0; i < proc->maps.n; i++) {
		const struct vma *v = &proc->maps.vmas[i];
		/* The vdso too: clock_gettime and friends have no frame pointers either. */
		struct binary *bin = v->kind == VMA_VDSO ? binaries__vdso(ps->binaries) :
				     v->kind == VMA_FILE ? v->binary : NULL;

		if (!bin)
			continue;
		maps[n].start = v->start;
		maps[n].end = v->end;
		maps[n].offset = v->kind == VMA_VDSO ? 0 : v->offset;
		maps[n].dev = bin->dev;
		maps[n].ino = bin->ino;
		maps[n].fd = bin->fd;
		maps[n].path = bin->path;
		n++;
	}
	err = n ? unwinding__add_process(ps->unwinding, proc->tgid, maps, n) : 0;
	free(maps);
	return err;
}

static int process__read_maps(struct processes *ps, struct process *proc)
{
	const char *exe = proc->facts ? profile__str(ps->p, proc->labels.exe) : NULL;
	struct vma_list maps = { 0 };
	int err;

	proc->maps_read_ns = clock__monotonic_ns();
	err = vma_list__read(&maps, ps->proc_root, proc->tgid);
	if (err == -ENOMEM)
		return err;
	/* A zombie has no mappings left: its exit record will bring them. */
	if (err || maps.n == 0) {
		vma_list__clear(&maps);
		return 0;
	}
	vma_list__clear(&proc->maps);
	proc->maps = maps;
	proc->maps_ok = true;
	err = process__link_binaries(ps, proc, exe);
	return err ? err : process__send_maps(ps, proc);
}

/* First sight: /proc while the process still exists. */
static int process__sync(struct processes *ps, struct process *proc, bool kthread)
{
	struct proc_info info;
	int err;

	if (proc__read(ps->proc_root, proc->tgid, &info))
		return 0; /* gone: wait for its exit record */
	err = process__set_facts(ps, proc, &info);
	if (err)
		return err;
	if (info.kthread || kthread) {
		proc->maps_ok = true;
		return 0;
	}
	return process__read_maps(ps, proc);
}

/* ---- frames ---- */

static uint32_t processes__special_mapping(struct processes *ps, uint32_t *cache,
					   const char *path, enum mapping_kind kind,
					   enum language language, const char *build_id)
{
	struct prof_mapping m = { 0 };

	if (*cache != UINT32_MAX)
		return *cache;
	m.path = profile__intern(ps->p, path);
	m.build_id = profile__intern(ps->p, build_id);
	if (m.path == UINT32_MAX || m.build_id == UINT32_MAX)
		return UINT32_MAX;
	m.kind = kind;
	m.language = language;
	m.build_id_recorded = true;
	*cache = profile__add_mapping(ps->p, &m);
	return *cache;
}

/* Where a user address of proc is: (mapping, ELF address). 1: in no mapping we know. */
static int processes__user_location(struct processes *ps, struct process *proc, uint64_t addr,
				    struct prof_location *loc)
{
	struct vma *v = vma_list__find(&proc->maps, addr);
	struct binary *bin = NULL;
	uint64_t offset = 0;

	if (!v && proc->maps_ok && proc->alive && proc->facts &&
	    clock__monotonic_ns() - proc->maps_read_ns >= MAPS_REREAD_NS) {
		/* Mapped since we read them (dlopen): read again, once in a while. */
		int err = process__read_maps(ps, proc);

		if (err)
			return err;
		v = vma_list__find(&proc->maps, addr);
	}
	if (v && v->kind == VMA_FILE && v->binary) {
		bin = v->binary;
		offset = addr - v->start + v->offset;
	} else if (v && v->kind == VMA_VDSO) {
		bin = binaries__vdso(ps->binaries);
		offset = addr - v->start;
	}
	if (bin) {
		/* The file offset: binaries__read makes it an ELF address after sampling. */
		loc->mapping = binary__mapping(bin, ps->p, v->start, v->end, v->offset);
		loc->address = offset;
	} else if (v && v->kind == VMA_ANON) {
		loc->mapping = processes__special_mapping(ps, &ps->anon_mapping, "[anon]",
							  MAPPING_ANON, LANGUAGE_OTHER, "");
		loc->address = addr;
	} else {
		loc->mapping = processes__special_mapping(ps, &ps->unknown_mapping, "[unknown]",
							  MAPPING_ANON, LANGUAGE_OTHER, "");
		loc->address = addr;
		if (loc->mapping != UINT32_MAX)
			return 1;
	}
	return loc->mapping == UINT32_MAX ? -ENOMEM : 0;
}

/* The frame that ends a stack cut short: one location, in a mapping of its own. */
static uint32_t processes__truncated(struct processes *ps)
{
	struct prof_location loc = { 0 };

	if (ps->truncated_location != UINT32_MAX)
		return ps->truncated_location;
	loc.mapping = processes__special_mapping(ps, &ps->truncated_mapping,
						 PROFILE_TRUNCATED_FRAME, MAPPING_ANON,
						 LANGUAGE_OTHER, "");
	loc.function = profile__intern(ps->p, PROFILE_TRUNCATED_FRAME);
	if (loc.mapping == UINT32_MAX || loc.function == UINT32_MAX)
		return UINT32_MAX;
	ps->truncated_location = profile__add_location(ps->p, &loc);
	return ps->truncated_location;
}

/* ---- what runtimes ran: Python functions, JIT code ---- */

/* A Python frame of process tgid: its function, file and line, in the Python mapping. */
static uint32_t processes__python_location(struct processes *ps, uint32_t tgid,
					   const struct python_frame *f)
{
	const struct python_code_entry *e = python_code_cache__find(ps->codes, tgid, f->code);
	struct prof_location loc = { 0 };

	loc.mapping = processes__special_mapping(ps, &ps->python_mapping, "[python]",
						 MAPPING_ANON, LANGUAGE_PYTHON, "");
	if (loc.mapping == UINT32_MAX)
		return UINT32_MAX;
	if (e) {
		loc.function = profile__intern(ps->p, e->name[0] ? e->name : PYTHON_UNKNOWN_FRAME);
		loc.file = profile__intern(ps->p, e->file);
		loc.line = python_code__line(e, f->instr);
		loc.start_line = e->firstlineno;
	} else {
		loc.function = profile__intern(ps->p, PYTHON_UNKNOWN_FRAME);
	}
	if (loc.function == UINT32_MAX || loc.file == UINT32_MAX)
		return UINT32_MAX;
	return profile__add_location(ps->p, &loc);
}

/* The frame in the evaluator of CPython binary e (file offsets)? */
static bool process__is_eval(const struct process *proc, const struct python_procs_entry *e,
			     uint64_t addr)
{
	const struct vma *v = vma_list__find(&proc->maps, addr);
	uint64_t offset;

	if (!v || v->kind != VMA_FILE || !v->binary || v->binary->dev != e->dev ||
	    v->binary->ino != e->ino)
		return false;
	offset = addr - v->start + v->offset;
	return offset >= e->eval_start && offset < e->eval_end;
}

/*
 * The language a process's JIT code is in: a run of frames in anonymous executable
 * memory of a java or node process is that runtime's compiled code (DESIGN §3, §5).
 * LANGUAGE_OTHER for any other process.
 */
static enum language process__jit_language(struct processes *ps, const struct process *proc)
{
	const char *comm = proc->facts ? profile__str(ps->p, proc->labels.comm) : NULL;
	const char *exe = proc->facts ? profile__str(ps->p, proc->labels.exe) : NULL;
	const char *base = exe ? strrchr(exe, '/') : NULL;

	base = base ? base + 1 : exe;
	if ((comm && strcmp(comm, "java") == 0) || (base && strcmp(base, "java") == 0))
		return LANGUAGE_JAVA;
	if ((comm && (strcmp(comm, "node") == 0 || strncmp(comm, "node-", 5) == 0)) ||
	    (base && (strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0)))
		return LANGUAGE_JAVASCRIPT;
	return LANGUAGE_OTHER;
}

/* The one frame a run of lang's JIT code becomes. */
static uint32_t processes__jit_location(struct processes *ps, enum language lang)
{
	bool java = lang == LANGUAGE_JAVA;
	uint32_t *cache = java ? &ps->java_location : &ps->javascript_location;
	const char *name = java ? JAVA_FRAME : JAVASCRIPT_FRAME;
	struct prof_location loc = { 0 };
	uint32_t *mapping = java ? &ps->java_mapping : &ps->javascript_mapping;

	if (*cache != UINT32_MAX)
		return *cache;
	loc.mapping = processes__special_mapping(ps, mapping, name, MAPPING_JIT, lang, "");
	loc.function = profile__intern(ps->p, name);
	if (loc.mapping == UINT32_MAX || loc.function == UINT32_MAX)
		return UINT32_MAX;
	*cache = profile__add_location(ps->p, &loc);
	return *cache;
}

/*
 * Puts the sample's Python frames in place of the evaluator's native frames of its
 * user stack ulocs (nu frames, leaf first; is_eval says which) into out. Returns the
 * frames written, or UINT32_MAX when out of memory.
 */
static uint32_t processes__interleave(struct processes *ps, const struct stack_sample *s,
				      const uint32_t *ulocs, const bool *is_eval, uint32_t nu,
				      uint32_t *out, uint32_t max)
{
	struct python_mixed mixed[2 * RECORD_MAX_STACK + RECORD_MAX_PYFRAMES];
	struct python_stack py;
	uint32_t n = 0;
	size_t nm;

	memset(&py, 0, sizeof(py));
	py.nframes = (uint16_t)s->pystack_len;
	py.exit = (uint16_t)s->pystack_exit;
	memcpy(py.frames, &s->ips[s->kstack_len + s->ustack_len],
	       s->pystack_len * sizeof(struct python_frame));
	if (max > sizeof(mixed) / sizeof(mixed[0]))
		max = sizeof(mixed) / sizeof(mixed[0]);
	nm = python__interleave(is_eval, nu, &py, mixed, max);
	for (size_t i = 0; i < nm; i++) {
		uint32_t loc;

		if (mixed[i].python)
			loc = processes__python_location(ps, s->tgid, &py.frames[mixed[i].index]);
		else
			loc = ulocs[mixed[i].index];
		if (loc == UINT32_MAX)
			return UINT32_MAX;
		out[n++] = loc;
	}
	return n;
}

/*
 * Adds one sample of proc. Frames after the first of each part are return addresses:
 * one is taken off, so each points into its call instruction and names the caller even
 * when the call was the last instruction of its function.
 */
static int processes__emit(struct processes *ps, struct process *proc, const struct stack_sample *s)
{
	uint32_t locs[2 * RECORD_MAX_STACK + RECORD_MAX_PYFRAMES + 1], n = 0;
	uint32_t ulocs[RECORD_MAX_STACK], nu = 0;
	bool is_eval[RECORD_MAX_STACK];
	uint32_t klen = s->kstack_len, ulen = s->ustack_len;
	enum language jit = LANGUAGE_OTHER;
	struct python_procs_entry py;
	bool python = false;
	/* The walker stopped short of the root, or the kernel's walk filled the sample. */
	bool cut = (s->flags & SAMPLE_USTACK_CUT) || ulen >= RECORD_MAX_STACK;
	struct prof_labels labels = proc->labels;
	int64_t values[RECORD_MAX_VALUES];
	uint32_t stack;
	int err;

	if (klen >= RECORD_MAX_STACK || ulen >= RECORD_MAX_STACK)
		ps->stats.truncated++;
	for (uint32_t i = 0; i < klen; i++) {
		struct prof_location loc = { 0 };

		loc.mapping = ps->kernel_mapping;
		loc.address = s->ips[i] - (i > 0);
		locs[n] = profile__add_location(ps->p, &loc);
		if (locs[n++] == UINT32_MAX)
			return -ENOMEM;
	}
	if (s->pystack_len && ps->python)
		python = python_procs__find(ps->python, proc->tgid, &py);
	if (ulen)
		jit = process__jit_language(ps, proc);
	for (uint32_t i = 0; i < ulen; i++) {
		struct prof_location loc = { 0 };
		uint64_t addr = s->ips[klen + i] - (i > 0);

		err = processes__user_location(ps, proc, addr, &loc);
		if (err < 0)
			return err;
		if (err == 1) {
			ps->stats.unknown_frames++;
			/*
			 * A caller outside every mapping of a process whose mappings we have
			 * is where the frame-pointer walk went astray (code built without
			 * frame pointers uses the register for data): it and what follows it
			 * are not frames.
			 */
			if (i > 0 && proc->maps_ok) {
				cut = true;
				break;
			}
		}
		if (jit != LANGUAGE_OTHER && loc.mapping == ps->anon_mapping) {
			/* A run of JIT code is one frame of its language. */
			uint32_t id = processes__jit_location(ps, jit);

			if (id == UINT32_MAX)
				return -ENOMEM;
			if (nu && ulocs[nu - 1] == id)
				continue;
			ulocs[nu] = id;
		} else {
			ulocs[nu] = profile__add_location(ps->p, &loc);
		}
		if (ulocs[nu] == UINT32_MAX)
			return -ENOMEM;
		is_eval[nu++] = python && process__is_eval(proc, &py, addr);
	}
	if (python) {
		uint32_t m = processes__interleave(ps, s, ulocs, is_eval, nu, &locs[n],
						   RECORD_MAX_STACK + RECORD_MAX_PYFRAMES);

		if (m == UINT32_MAX)
			return -ENOMEM;
		n += m;
	} else {
		memcpy(&locs[n], ulocs, nu * sizeof(*ulocs));
		n += nu;
	}
	if (ulen && cut) {
		locs[n] = processes__truncated(ps);
		if (locs[n++] == UINT32_MAX)
			return -ENOMEM;
	}
	stack = profile__add_stack(ps->p, locs, n);
	if (stack == UINT32_MAX)
		return -ENOMEM;

	labels.tid = s->pid;
	labels.thread = profile__intern(ps->p, s->comm);
	if (labels.thread == UINT32_MAX)
		return -ENOMEM;
	for (uint32_t i = 0; i < RECORD_MAX_VALUES; i++)
		values[i] = s->values[i] ? s->values[i] : ps->default_values[i];
	if (s->state <= SAMPLE_STATE_IDLE)
		labels.state = ps->state_ids[s->state];
	labels.lock = s->lock;
	labels.lock_kind = s->lock_kind < ps->nlock_kinds ? ps->lock_kind_ids[s->lock_kind] : 0;
	err = profile__add_sample(ps->p, stack, values, &labels);
	if (!err)
		ps->stats.samples++;
	return err;
}

static int process__keep(struct process *proc, const struct stack_sample *s, size_t size)
{
	struct pending *pd;

	if (proc->npending == proc->cap_pending) {
		size_t cap = proc->cap_pending ? proc->cap_pending * 2 : 8;

		pd = realloc(proc->pending, cap * sizeof(*pd));
		if (!pd)
			return -ENOMEM;
		proc->pending = pd;
		proc->cap_pending = cap;
	}
	pd = &proc->pending[proc->npending];
	pd->record = malloc(size);
	if (!pd->record)
		return -ENOMEM;
	memcpy(pd->record, s, size);
	pd->size = size;
	proc->npending++;
	return 0;
}

/* The facts of a process nothing else told us about, from its first sample: its name,
 * parent, terminal and cgroup (a later sample has only its thread's name). */
static int process__facts_from_sample(struct processes *ps, struct process *proc,
				      const struct stack_sample *s)
{
	struct proc_info info = { 0 };

	info.pid = proc->tgid;
	if (s->flags & SAMPLE_FIRST) {
		snprintf(info.comm, sizeof(info.comm), "%.*s", RECORD_COMM_LEN, s->leader_comm);
		info.ppid = s->ppid;
		info.tty_nr = s->tty_nr;
		info.kthread = s->flags & SAMPLE_KTHREAD;
		if (cgroups__path(ps->cgroups, s->cgroup_id, info.cgroup, sizeof(info.cgroup)) ==
		    -ENOMEM)
			return -ENOMEM;
	} else {
		snprintf(info.comm, sizeof(info.comm), "%.*s", RECORD_COMM_LEN, s->comm);
	}
	ps->stats.unresolved++;
	return process__set_facts(ps, proc, &info);
}

/* Adds what proc kept aside, with what is known of it now. */
static int process__flush(struct processes *ps, struct process *proc)
{
	int err = 0;

	if (proc->npending && !proc->facts) {
		const struct stack_sample *best = proc->pending[0].record;

		for (size_t i = 0; i < proc->npending; i++) {
			const struct stack_sample *s = proc->pending[i].record;

			if (s->flags & SAMPLE_FIRST) {
				best = s;
				break;
			}
		}
		err = process__facts_from_sample(ps, proc, best);
	}
	for (size_t i = 0; i < proc->npending && !err; i++)
		err = processes__emit(ps, proc, proc->pending[i].record);
	for (size_t i = 0; i < proc->npending; i++)
		free(proc->pending[i].record);
	proc->npending = 0;
	return err;
}

/* ---- records ---- */

/* The bytes a sample's record uses: its header and frames. */
static size_t sample__size(const struct stack_sample *s)
{
	return SAMPLE_HEADER_SIZE + (s->kstack_len + s->ustack_len + 2 * s->pystack_len) *
					    sizeof(__u64);
}

static bool sample__whole(const struct stack_sample *s, size_t size)
{
	return size >= SAMPLE_HEADER_SIZE && s->kstack_len <= RECORD_MAX_STACK &&
	       s->ustack_len <= RECORD_MAX_STACK && s->pystack_len <= RECORD_MAX_PYFRAMES &&
	       size >= sample__size(s);
}

int processes__sample(struct processes *ps, const struct stack_sample *s, size_t size)
{
	struct process *proc;
	int err;

	if (!sample__whole(s, size))
		return 0;
	proc = processes__find(ps, s->tgid);
	if (proc && proc->unsampled) {
		proc->unsampled = false;
		ps->stats.processes++;
	}
	if (!proc) {
		struct process *exited;

		proc = processes__add(ps, s->tgid);
		if (!proc)
			return -ENOMEM;
		err = process__sync(ps, proc, s->flags & SAMPLE_KTHREAD);
		if (err)
			return err;
		/*
		 * Gone, and it was here before: a process is still sampled after its exit
		 * record, while the kernel tears it down (unmapping its memory can take
		 * milliseconds). Those ticks are its own.
		 */
		exited = proc->facts ? NULL : processes__find_exited(ps, s->tgid);
		if (exited) {
			process__kill(proc);
			ps->stats.processes--;
			return processes__emit(ps, exited, s);
		}
	}
	if (proc->facts && (proc->maps_ok || s->ustack_len == 0))
		return processes__emit(ps, proc, s);
	return process__keep(proc, s, sample__size(s));
}

int processes__read_all(struct processes *ps, int64_t deadline_ns)
{
	int *pids = NULL;
	size_t n = 0, i;
	int err;

	err = proc__list_pids(ps->proc_root, &pids, &n);
	if (err)
		return err == -ENOMEM ? err : 0;
	for (i = 0; i < n && clock__monotonic_ns() < deadline_ns; i++) {
		struct process *proc;

		if (processes__find(ps, pids[i]))
			continue;
		proc = processes__add(ps, pids[i]);
		if (!proc) {
			err = -ENOMEM;
			break;
		}
		/* Counted when sampled, as every other process. */
		proc->unsampled = true;
		ps->stats.processes--;
		err = process__sync(ps, proc, false);
		if (err)
			break;
		/* Gone already: its pid may come back as another process. */
		if (!proc->facts)
			process__kill(proc);
	}
	free(pids);
	return err ? err : (int)(n - i);
}

static dev_t kernel_dev(uint32_t dev)
{
	return makedev(dev >> 20, dev & 0xfffff);
}

/* "/usr/bin/sleep" from the parts the kernel sent leaf first. */
static void exe_path(const struct process_record *e, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t i = e->nexe_parts; i-- > 0 && len < size;) {
		int n = snprintf(buf + len, size - len, "/%.*s", RECORD_EXE_PART_LEN,
				 e->exe_parts[i]);

		if (n < 0)
			break;
		len += n;
	}
}

/* The facts the kernel sent with an exit or an exec. comm: the process's name when the
 * event's is not the one its samples had (an exec's is the new image's). */
static int process__facts_from_event(struct processes *ps, struct process *proc,
				     const struct process_record *e, const char *exe,
				     const char *comm)
{
	struct proc_info info = { 0 };

	info.pid = proc->tgid;
	info.ppid = e->ppid;
	snprintf(info.comm, sizeof(info.comm), "%.*s", RECORD_COMM_LEN, comm ? comm : e->comm);
	snprintf(info.exe, sizeof(info.exe), "%s", exe);
	info.kthread = e->flags & PROCESS_RECORD_KTHREAD;
	info.tty_nr = e->tty_nr;
	if (ps->ticks_per_s > 0)
		info.start_ticks = e->start_boottime_ns / (1000000000ULL / ps->ticks_per_s);
	if (cgroups__path(ps->cgroups, e->cgroup_id, info.cgroup, sizeof(info.cgroup)) == -ENOMEM)
		return -ENOMEM;
	return process__set_facts(ps, proc, &info);
}

/* The mappings the kernel read at exit. Their files are known by identity only: a file
 * some other process mapped is open already; the executable can be opened by its path. */
static int process__maps_from_exit(struct processes *ps, struct process *proc,
				   const struct process_record *e, size_t nvmas, const char *exe)
{
	vma_list__clear(&proc->maps);
	for (size_t i = 0; i < nvmas; i++) {
		const struct record_vma *kv = &e->vmas[i];
		struct vma v = { 0 };

		v.start = kv->start;
		v.end = kv->end;
		v.offset = kv->pgoff * ps->page_size;
		v.dev = kernel_dev(kv->dev);
		v.ino = kv->ino;
		v.kind = VMA_FILE;
		v.is_exe = kv->is_exe;
		v.binary = binaries__find(ps->binaries, v.dev, v.ino);
		if (!v.binary && v.is_exe && exe[0])
			v.binary = binaries__get_by_path(ps->binaries, v.dev, v.ino, exe, true);
		if (vma_list__add(&proc->maps, &v))
			return -ENOMEM;
	}
	proc->maps_ok = true;
	return 0;
}

int processes__exec(struct processes *ps, const struct process_record *e, size_t size)
{
	struct process *proc;
	int err;

	if (size < offsetof(struct process_record, exe_parts))
		return 0;
	proc = processes__find(ps, e->tgid);
	if (!proc)
		return 0;
	/*
	 * Its samples so far belong to the image it had; the next are read anew. Samples
	 * still waiting are of a process gone before we read it (a child between fork and
	 * exec): the exec's facts are its own, but for its name then, which its samples say.
	 */
	err = 0;
	if (proc->npending && !proc->facts) {
		const struct stack_sample *first = proc->pending[0].record;
		char comm[RECORD_COMM_LEN + 1];

		snprintf(comm, sizeof(comm), "%.*s", RECORD_COMM_LEN, first->comm);
		err = process__facts_from_event(ps, proc, e, "", comm);
	}
	if (!err)
		err = process__flush(ps, proc);
	process__kill(proc);
	if (ps->unwinding && !err)
		err = unwinding__remove_process(ps->unwinding, proc->tgid);
	return err;
}

int processes__exit(struct processes *ps, const struct process_record *e, size_t size)
{
	size_t head = offsetof(struct process_record, vmas), nvmas;
	char exe[PATH_MAX];
	struct process *proc;
	int err = 0;

	if (size < head)
		return 0;
	proc = processes__find(ps, e->tgid);
	if (!proc)
		return 0;
	nvmas = e->nvmas;
	if (nvmas > RECORD_EXIT_MAX_VMAS || size < head + nvmas * sizeof(struct record_vma))
		nvmas = 0;
	if (proc->npending) {
		exe_path(e, exe, sizeof(exe));
		if (!proc->facts) {
			err = process__facts_from_event(ps, proc, e, exe, NULL);
			ps->stats.from_exit++;
		}
		if (!err && !proc->maps_ok && (e->flags & PROCESS_RECORD_HAS_MM))
			err = process__maps_from_exit(ps, proc, e, nvmas, exe);
		if (!err)
			err = process__flush(ps, proc);
	}
	process__kill(proc);
	proc->exited = true;
	if (ps->unwinding && !err)
		err = unwinding__remove_process(ps->unwinding, proc->tgid);
	return err;
}

int processes__finish(struct processes *ps)
{
	int err = 0;

	for (uint32_t i = 0; i < ps->n && !err; i++)
		if (ps->items[i]->alive)
			err = process__flush(ps, ps->items[i]);
	return err;
}
