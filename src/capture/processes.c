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
#include "capture/processes_internal.h"
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
	hashmap__free(ps->java_index);
	free(ps->java_methods);
	free(ps->java_frame_locs);
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

void processes__set_jvm(struct processes *ps, struct jvm_procs *jp)
{
	ps->jvm = jp;
}

void processes__set_v8(struct processes *ps, struct v8_procs *vp)
{
	ps->v8 = vp;
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

const char *processes__proc_root(const struct processes *ps)
{
	return ps->proc_root;
}

void processes__owner(struct processes *ps, const struct proc_info *info, struct owner *out)
{
	owner_resolver__classify(ps->owners, info, out);
}
