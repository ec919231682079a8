/* SPDX-License-Identifier: MIT */
/*
 * A page of another process's memory, read in the kernel (jvm_memory.bpf.c) for the
 * host's readers of a JVM's tables and Method names (src/capture/jvm_memory.c): the
 * profiler's own process never reads another's memory (no /proc/PID/mem, no ptrace).
 * User space sets the page's address, runs the iterator over the process's threads, and
 * reads the reply: a struct jvm_memory_reply, then the page when err is 0.
 */
#ifndef SLIDEOPS_BPF_JVM_MEMORY_H
#define SLIDEOPS_BPF_JVM_MEMORY_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define JVM_MEMORY_PAGE 4096

struct jvm_memory_reply {
	__s32 err;  /* bpf_copy_from_user_task's: 0, or -errno (the page is not mapped) */
	__u32 tid;  /* the thread whose memory map was read */
};

#endif
