/* SPDX-License-Identifier: MIT */
/*
 * What the cpu question's BPF programs (cpu.bpf.c) hand to user space (src/capture/):
 * plain fixed-layout records, no pointers. Included by both sides.
 *
 * One BPF ring buffer carries three kinds of record, in the order they happened:
 * a sample (one cpu-clock tick of a non-idle task, with its kernel and user stacks),
 * an exec (a sampled process replaced its image: its maps are stale), and an exit
 * (a sampled process ended: its facts and executable mappings, read while its memory
 * map still exists, so a process that was gone before user space read /proc is still
 * attributed and its frames still resolve).
 */
#ifndef SLIDEOPS_BPF_CPU_H
#define SLIDEOPS_BPF_CPU_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The kernel's own default limit (kernel.perf_event_max_stack). */
#define CPU_MAX_STACK 127
#define CPU_COMM_LEN 16
/* Executable file mappings sent with an exit; a process with more keeps the first. */
#define CPU_EXIT_MAX_VMAS 128
/* Path components of the executable sent with an exit (leaf first). */
#define CPU_EXE_MAX_PARTS 16
#define CPU_EXE_PART_LEN 64

enum cpu_record_kind {
	CPU_RECORD_SAMPLE = 1,
	CPU_RECORD_EXEC = 2,
	CPU_RECORD_EXIT = 3,
};

/* Why a tick did not become a whole sample: one per-CPU counter per early return (the
 * samples that made it are counted by user space, which receives them). */
enum cpu_counter {
	CPU_COUNTER_IDLE,          /* pid 0: not a sample */
	CPU_COUNTER_LOST,          /* ring buffer full: the sample is lost */
	CPU_COUNTER_KSTACK_FAILED, /* no kernel stack (the sample is kept without it) */
	CPU_COUNTER_USTACK_FAILED, /* no user stack (the sample is kept without it) */
	CPU_COUNTER_EVENT_LOST,    /* an exec or exit record did not fit */
	CPU_COUNTER__COUNT,
};

#define CPU_SAMPLE_KTHREAD (1u << 0) /* the task is a kernel thread (first samples only) */
#define CPU_SAMPLE_FIRST (1u << 1)   /* the first sample of this process the kernel has sent */

struct cpu_sample {
	__u32 kind;      /* CPU_RECORD_SAMPLE */
	__u32 flags;     /* CPU_SAMPLE_* */
	__u32 pid;       /* thread id */
	__u32 tgid;      /* process id */
	__u64 cgroup_id; /* cgroup v2 id (its directory's inode number); first samples only */
	__u64 period_ns; /* CPU time this tick stands for */
	__u32 kstack_len; /* frames in ips[0 .. kstack_len) */
	__u32 ustack_len; /* frames in ips[kstack_len .. kstack_len + ustack_len) */
	char comm[CPU_COMM_LEN]; /* the thread's name */
	/* Only with CPU_SAMPLE_FIRST: what user space needs of a process that may be gone
	 * before it reads /proc, and whose exit it may not hear of (one sampled only while
	 * the kernel tears it down, after its exit tracepoint). */
	__u32 ppid;
	__u32 tty_nr;
	char leader_comm[CPU_COMM_LEN]; /* the process's name */
	__u64 ips[2 * CPU_MAX_STACK]; /* leaf first; only the used part is sent */
};

#define CPU_SAMPLE_HEADER_SIZE ((unsigned long)&((struct cpu_sample *)0)->ips)

struct cpu_vma {
	__u64 start, end; /* virtual addresses */
	__u64 pgoff;      /* file offset of start, in pages (the kernel's page size) */
	__u64 ino;
	__u32 dev;        /* the kernel's dev_t: major << 20 | minor */
	__u32 is_exe;     /* the file is the process's executable */
};

#define CPU_PROC_KTHREAD (1u << 0)
#define CPU_PROC_HAS_MM (1u << 1)       /* vmas were read */
#define CPU_PROC_VMAS_TRUNCATED (1u << 2)

struct cpu_proc_event {
	__u32 kind;      /* CPU_RECORD_EXEC or CPU_RECORD_EXIT */
	__u32 flags;     /* CPU_PROC_* */
	__u32 tgid;
	__u32 ppid;
	__u32 tty_nr;    /* as /proc/PID/stat's tty_nr */
	__u32 nvmas;
	__u32 nexe_parts;
	__u32 exe_dev;   /* kernel dev_t of the executable */
	__u64 exe_ino;
	__u64 cgroup_id;
	__u64 start_boottime_ns;
	char comm[CPU_COMM_LEN]; /* the thread group leader's name */
	char exe_parts[CPU_EXE_MAX_PARTS][CPU_EXE_PART_LEN]; /* leaf first, to the root */
	struct cpu_vma vmas[CPU_EXIT_MAX_VMAS];
};

#endif
