/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exec and exit programs every question carries, included by stack.h at its end
 * (after the sample's helpers, which they use; never on its own): on_exec / on_exit
 * follow the processes that were sampled. An exec makes their maps stale; an exit sends
 * what user space needs to attribute a process it never managed to read (it may live for
 * less than a poll interval): its facts and executable mappings, read here while the
 * memory map still exists.
 */
#ifndef SLIDEOPS_BPF_PROCESS_EVENTS_H
#define SLIDEOPS_BPF_PROCESS_EVENTS_H

/* Where exit and exec records are assembled: only their used part is sent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct process_record);
} proc_scratch SEC(".maps");

struct exe_walk {
	struct dentry *dentry;
	struct mount *mnt;
	struct process_record *e;
};

#ifndef NO_BPF_LOOP
/* One step of the walk from the executable's dentry to the root, crossing mount points
 * as d_path does (tracepoints may not call the d_path helper). bpf_loop: a plain loop
 * with these branches is more than the verifier will explore. */
static long exe_walk_step(__u32 i, void *ctx)
{
	struct exe_walk *w = ctx;
	struct process_record *e = w->e;
	struct dentry *dentry = w->dentry;
	struct mount *mnt = w->mnt;
	struct dentry *mnt_root = BPF_CORE_READ(mnt, mnt.mnt_root);
	struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
	__u32 n = e->nexe_parts;

	if (dentry == mnt_root) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (up == mnt)
			return 1; /* the root of the tree */
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		return 0;
	}
	if (dentry == parent || n >= RECORD_EXE_MAX_PARTS)
		return 1;
	bpf_probe_read_kernel_str(e->exe_parts[n & (RECORD_EXE_MAX_PARTS - 1)], RECORD_EXE_PART_LEN,
				  BPF_CORE_READ(dentry, d_name.name));
	e->nexe_parts = n + 1;
	w->dentry = parent;
	return 0;
}
#endif

static __always_inline void exe_path_parts(struct process_record *e, struct file *exe)
{
	struct vfsmount *vfsmnt = BPF_CORE_READ(exe, f_path.mnt);
	struct exe_walk w = {
		.dentry = BPF_CORE_READ(exe, f_path.dentry),
		.mnt = (void *)vfsmnt - bpf_core_field_offset(struct mount, mnt),
		.e = e,
	};

	e->nexe_parts = 0;
#ifdef NO_BPF_LOOP
	/* Without bpf_loop the path is left out: user space names the process by its
	 * name (docs/kernel.md). */
	(void)w;
#else
	bpf_loop(RECORD_EXE_MAX_PARTS + 8, exe_walk_step, &w, 0);
#endif
}

static __always_inline __u32 inode_dev(struct inode *inode)
{
	return BPF_CORE_READ(inode, i_sb, s_dev);
}

static __always_inline void proc_facts(struct process_record *e, struct task_struct *task)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);

	e->flags = 0;
	e->tgid = BPF_CORE_READ(task, tgid);
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->tty_nr = task_tty_nr(task);
	e->nvmas = 0;
	e->nexe_parts = 0;
	e->exe_dev = 0;
	e->exe_ino = 0;
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->start_boottime_ns = BPF_CORE_READ(leader, start_boottime);
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), &leader->comm);
	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		e->flags |= PROCESS_RECORD_KTHREAD;
}

static __always_inline void send_process_record(struct process_record *e, __u64 size)
{
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&records, e, size, BPF_RB_NO_WAKEUP))
		count(STACK_COUNTER_EVENT_LOST);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(task, tgid), zero = 0;
	struct process_record *e;

	if (!bpf_map_lookup_elem(&seen, &tgid))
		return 0;
	bpf_map_delete_elem(&seen, &tgid);
	e = bpf_map_lookup_elem(&proc_scratch, &zero);
	if (!e)
		return 0;
	e->kind = RECORD_EXEC;
	proc_facts(e, task);
	/* The facts only: the path parts and vmas are left out. */
	send_process_record(e, offsetof(struct process_record, exe_parts));
	return 0;
}

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

static __always_inline struct process_record *exit_begin(struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid), zero = 0;
	struct process_record *e;
	struct mm_struct *mm;
	struct file *exe;

	if (!bpf_map_lookup_elem(&seen, &tgid))
		return NULL;
	bpf_map_delete_elem(&seen, &tgid);
	e = bpf_map_lookup_elem(&proc_scratch, &zero);
	if (!e)
		return NULL;
	e->kind = RECORD_EXIT;
	proc_facts(e, task);
	mm = BPF_CORE_READ(task, mm);
	if (!mm)
		return e;
	exe = BPF_CORE_READ(mm, exe_file);
	if (exe) {
		struct inode *inode = BPF_CORE_READ(exe, f_inode);

		e->exe_dev = inode_dev(inode);
		e->exe_ino = BPF_CORE_READ(inode, i_ino);
		exe_path_parts(e, exe);
	}
	return e;
}

/*
 * Runs before the exiting task lets go of its memory map (the tracepoint sits before
 * exit_mm() on the kernels we run on; task->mm is checked all the same). group_dead:
 * the last thread, so the whole process is ending.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task, bool group_dead)
{
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	struct process_record *e;
	__u32 n = 0;

	if (!group_dead)
		return 0;
	e = exit_begin(task);
	if (!e)
		return 0;
	if (!BPF_CORE_READ(task, mm)) {
		send_process_record(e, offsetof(struct process_record, vmas));
		return 0;
	}
	e->flags |= PROCESS_RECORD_HAS_MM;
	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		struct file *file = BPF_CORE_READ(vma, vm_file);
		struct record_vma *v;
		struct inode *inode;

		if (!(BPF_CORE_READ(vma, vm_flags) & VM_EXEC) || !file)
			continue;
		if (n >= RECORD_EXIT_MAX_VMAS) {
			e->flags |= PROCESS_RECORD_VMAS_TRUNCATED;
			break;
		}
		v = &e->vmas[n & (RECORD_EXIT_MAX_VMAS - 1)];
		inode = BPF_CORE_READ(file, f_inode);
		v->start = BPF_CORE_READ(vma, vm_start);
		v->end = BPF_CORE_READ(vma, vm_end);
		v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
		v->ino = BPF_CORE_READ(inode, i_ino);
		v->dev = inode_dev(inode);
		v->is_exe = v->ino == e->exe_ino && v->dev == e->exe_dev;
		n++;
	}
	bpf_iter_task_vma_destroy(&it);
	e->nvmas = n;
	send_process_record(e, offsetof(struct process_record, vmas) + n * sizeof(struct record_vma));
	return 0;
}

/* The same without mappings, for kernels without the vma iterator (before 6.7): user
 * space loads this one when the kernel has no vma iterator. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit_facts, struct task_struct *task, bool group_dead)
{
	struct process_record *e;

	if (!group_dead)
		return 0;
	e = exit_begin(task);
	if (e)
		send_process_record(e, offsetof(struct process_record, vmas));
	return 0;
}


/*
 * Kernels whose sched_process_exit has the task alone (6.1, 6.12: group_dead came
 * later, when the tracepoint moved before exit_mm()): here the exiting task has let go of
 * its memory map already, so the record carries its facts only (user space loads this one
 * when the kernel's tracepoint has one argument; docs/kernel.md). The last thread is the
 * one that counted signal->live down to 0, which do_exit() does before the tracepoint.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit_task, struct task_struct *task)
{
	struct process_record *e;

	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	e = exit_begin(task);
	if (e)
		send_process_record(e, offsetof(struct process_record, vmas));
	return 0;
}

#endif
