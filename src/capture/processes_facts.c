// SPDX-License-Identifier: MIT
/*
 * What a process is: its labels (owner, cgroup, executable), its binaries, its
 * mappings read from /proc and sent to the unwinder.
 */
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

/* ---- what a process is: its labels ---- */

int process__set_facts(struct processes *ps, struct process *proc,
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
		maps[n].guarded = bin->fd < 0 ? bin->guarded : NULL;
		maps[n].path = bin->path;
		n++;
	}
	err = n ? unwinding__add_process(ps->unwinding, proc->tgid, maps, n) : 0;
	free(maps);
	return err;
}

int process__read_maps(struct processes *ps, struct process *proc)
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
int process__sync(struct processes *ps, struct process *proc, bool kthread)
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
