/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-stack walk with the runtimes' frames: each frame is Java's where its PC is in
 * the process's JVM code cache (jvm_frames.h), JavaScript's where it is in the process's
 * V8 code and its frame a JavaScript one (v8_frames.h), else the native walker's
 * (unwind_user.h). One global function a frame (runtime_frame_current, _task), so that
 * the walk's loop stays one call a turn; the per-process records are looked up once a
 * walk (a process without a runtime is handed an empty one).
 */
#ifndef SLIDEOPS_BPF_RUNTIME_FRAMES_H
#define SLIDEOPS_BPF_RUNTIME_FRAMES_H

#include "jvm_frames.h"
#include "v8_frames.h"

#ifndef STACK_FRAME_POINTERS_ONLY
/* The current task's next frame: Java's, JavaScript's or the native walker's. */
__noinline int runtime_frame_current(struct unwind_walk *w, struct unwind_pcs *pcs,
				     const struct unwind_proc *proc, const struct jvm_proc *jp,
				     const struct v8_proc *vp)
{
	int r = jvm_frame_current(w, pcs, jp);

	if (r < 0)
		r = v8_frame_current(w, pcs, vp);
	return r < 0 ? unwind_frame_current(w, pcs, proc) : r;
}

/* unwind_user_walk_current with the runtimes' frames of process tgid. */
static __always_inline __u32 runtime_user_walk_current(struct unwind_walk *w,
						       struct unwind_pcs *pcs,
						       const struct unwind_proc *proc, __u32 tgid,
						       const struct unwind_regs *regs, __u32 at,
						       __u32 max)
{
	const struct jvm_proc *jp = jvm_proc_of(tgid);
	const struct v8_proc *vp = v8_proc_of(tgid);

	proc = unwind_proc_or_none(proc);
	if (!proc || !jp || !vp)
		return 0;
	unwind_walk_begin(w, regs, at, max);
	return UNWIND_WALK_FRAMES(w, at, runtime_frame_current(w, pcs, proc, jp, vp));
}

#ifndef NO_TRUSTED_ARGS
/* Another task's next frame, the runtimes' or the native walker's (sleepable programs).
 * Its process's records are looked up here, a frame at a time (a function takes five
 * arguments at most): task walks are a snapshot's, not a sample's at 99 Hz. */
__noinline int runtime_frame_task(struct unwind_walk *w, struct unwind_pcs *pcs,
				  const struct unwind_proc *proc,
				  struct task_struct *task __arg_trusted)
{
	__u32 tgid = task->tgid;
	const struct jvm_proc *jp = jvm_proc_of(tgid);
	const struct v8_proc *vp = v8_proc_of(tgid);
	int r = jp ? jvm_frame_task(w, pcs, jp, task) : -1;

	if (r < 0 && vp)
		r = v8_frame_task(w, pcs, vp, task);
	return r < 0 ? unwind_frame_task(w, pcs, proc, task) : r;
}

/* unwind_user_walk_task with the runtimes' frames. */
static __always_inline __u32 runtime_user_walk_task(struct unwind_walk *w, struct unwind_pcs *pcs,
						    const struct unwind_proc *proc,
						    struct task_struct *task,
						    const struct unwind_regs *regs, __u32 at,
						    __u32 max)
{
	proc = unwind_proc_or_none(proc);
	if (!proc)
		return 0;
	unwind_walk_begin(w, regs, at, max);
	return UNWIND_WALK_FRAMES(w, at, runtime_frame_task(w, pcs, proc, task));
}
#else
/* Kernels before 6.8: another task's runtime code is walked natively (one [Java] or
 * [JavaScript] frame). */
static __always_inline __u32 runtime_user_walk_task(struct unwind_walk *w, struct unwind_pcs *pcs,
						    const struct unwind_proc *proc,
						    struct task_struct *task,
						    const struct unwind_regs *regs, __u32 at,
						    __u32 max)
{
	return unwind_user_walk_task(w, pcs, proc, task, regs, at, max);
}
#endif /* NO_TRUSTED_ARGS */
#endif /* STACK_FRAME_POINTERS_ONLY */

#endif
