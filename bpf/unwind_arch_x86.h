/* SPDX-License-Identifier: MIT */
/*
 * What the stack walker (unwind_walk.h) knows of x86-64: which registers a frame is
 * unwound from (ip = rip, sp = rsp, bp = rbp, the frame pointer), where a signal frame
 * keeps them, and, on BPF, where a task's saved user registers are. One file per
 * architecture: arm64 would be unwind_arch_arm64.h (pc, sp, x29 and x30, its ucontext),
 * with its own table rows from src/unwind/ (docs/kernel.md). Compiles for BPF and for the
 * host, as unwind_walk.h does.
 */
#ifndef SLIDEOPS_BPF_UNWIND_ARCH_X86_H
#define SLIDEOPS_BPF_UNWIND_ARCH_X86_H

/* The signal trampoline's frame (x86_64 rt_sigframe after the return address was
 * popped): sp points at the ucontext; uc_mcontext.gregs starts at byte 40, and rbp,
 * rsp and rip are gregs 10, 15 and 16 (sys/ucontext.h REG_RBP, REG_RSP, REG_RIP). */
#define UNWIND_UC_RBP (40 + 8 * 10)
#define UNWIND_UC_RSP (40 + 8 * 15)
#define UNWIND_UC_RIP (40 + 8 * 16)

/* The user registers a walk starts from, from a task's saved pt_regs (BPF only: the
 * includer has vmlinux.h and bpf_core_read.h). */
#define UNWIND_ARCH_READ_REGS(r, pt_regs)                  \
	do {                                               \
		(r)->ip = BPF_CORE_READ((pt_regs), ip);    \
		(r)->sp = BPF_CORE_READ((pt_regs), sp);    \
		(r)->bp = BPF_CORE_READ((pt_regs), bp);    \
	} while (0)

#endif
