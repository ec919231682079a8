/* SPDX-License-Identifier: MIT */
/*
 * What every question's BPF program hands to user space (src/capture/): plain
 * fixed-layout records, no pointers. Included by both sides; bpf/stack.h is the BPF
 * half that fills them.
 *
 * One BPF ring buffer per capture carries, in the order they happened:
 * a sample (a stack of a task with the question's values and labels: a cpu-clock tick,
 * a wait, a lock, a fault...), an exec (a sampled process replaced its image: its maps
 * are stale), and an exit (a sampled process ended: its facts and executable mappings,
 * read while its memory map still exists, so a process that was gone before user space
 * read /proc is still attributed and its frames still resolve). A question may add
 * record kinds of its own from RECORD_QUESTION on.
 */
#ifndef SLIDEOPS_BPF_RECORDS_H
#define SLIDEOPS_BPF_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The kernel's own default limit (kernel.perf_event_max_stack). */
#define RECORD_MAX_STACK 127
#define RECORD_COMM_LEN 16
/* Executable file mappings sent with an exit; a process with more keeps the first. */
#define RECORD_EXIT_MAX_VMAS 128
/* Path components of the executable sent with an exit (leaf first). */
#define RECORD_EXE_MAX_PARTS 16
#define RECORD_EXE_PART_LEN 64
/* Interpreter (Python) frames a sample carries after its native ones: 16 bytes each
 * (struct python_frame of python_records.h). The same as PYTHON_MAX_FRAMES. */
#define RECORD_MAX_PYFRAMES 64

enum record_kind {
	RECORD_SAMPLE = 1,
	RECORD_EXEC = 2,
	RECORD_EXIT = 3,
	RECORD_PYTHON_CODE = 4, /* a Python code object's names, once per process */
	RECORD_QUESTION = 16, /* and on: a question's own records (src/capture/QUESTION.c) */
};

/* Why an event did not become a whole sample: one per-CPU counter per early return (the
 * samples that made it are counted by user space, which receives them). A question's
 * own counters follow, from STACK_COUNTER__COUNT up to RECORD_MAX_COUNTERS: each counts
 * events the question could not keep (a table full, a record lost), reported as lost. */
enum stack_counter {
	STACK_COUNTER_IDLE,          /* pid 0: not a sample */
	STACK_COUNTER_LOST,          /* ring buffer full: the sample is lost */
	STACK_COUNTER_KSTACK_FAILED, /* no kernel stack (the sample is kept without it) */
	STACK_COUNTER_USTACK_FAILED, /* no user stack (the sample is kept without it) */
	STACK_COUNTER_EVENT_LOST,    /* an exec or exit record did not fit */
	/* The user stack walker's early exits (enum unwind_stop of bpf/unwind_walk.h, in its
	 * order from UNWIND_STOP_NO_TABLE): the stack was cut short there. */
	STACK_COUNTER_UNWIND_NO_TABLE,    /* no table and no frame pointer to follow */
	STACK_COUNTER_UNWIND_TABLE_MISS,  /* a table without a row, no frame pointer */
	STACK_COUNTER_UNWIND_READ_FAULT,  /* the user stack could not be read */
	STACK_COUNTER_UNWIND_DEPTH,       /* as deep as a sample holds */
	STACK_COUNTER_UNWIND_UNSUPPORTED, /* a rule the walker does not follow */
	STACK_COUNTER_UNWIND_BP_UNKNOWN,  /* an rbp-based frame after rbp was lost */
	STACK_COUNTER_UNWIND_NOT_GROWING, /* the caller's sp not above ours: garbage */
	/* The process had no tables loaded (yet): frame pointers by the kernel instead. */
	STACK_COUNTER_UNWIND_NO_PROCESS,
	/* The Python frame walker's early exits (enum python_exit, from PYTHON_EXIT_NO_THREAD
	 * on): a sample of a CPython process without its Python frames, or with part. */
	STACK_COUNTER_PYTHON_NO_THREAD,
	STACK_COUNTER_PYTHON_READ,
	STACK_COUNTER_PYTHON_DEPTH,
	STACK_COUNTER_PYTHON_BAD,
	STACK_COUNTER_PYTHON_CODE_LOST, /* a code object's names did not fit the ring buffer */
	STACK_COUNTER__COUNT,
};

#define STACK_COUNTER_UNWIND_FIRST STACK_COUNTER_UNWIND_NO_TABLE
#define RECORD_MAX_COUNTERS 32
#define RECORD_MAX_VALUES 3

/* A sample's state label (wall, threads). */
enum sample_state {
	SAMPLE_STATE_NONE,
	SAMPLE_STATE_RUNNING,
	SAMPLE_STATE_WAITING,
	SAMPLE_STATE_IDLE,    /* waiting, and never ran in the window (wall) */
};

/* Why a thread waited (wall): its wait_reason label. */
enum wait_reason {
	WAIT_REASON_NONE,
	WAIT_REASON_RUNQUEUE, /* runnable, waiting for a CPU (preempted) */
	WAIT_REASON_IO,       /* blocked on I/O (uninterruptible, in io_schedule) */
	WAIT_REASON_LOCK,     /* on a lock (futex) */
	WAIT_REASON_SLEEP,    /* asleep (nanosleep, clock_nanosleep) */
	WAIT_REASON_OTHER,    /* anything else: events, sockets, pipes, kernel locks */
	WAIT_REASON__COUNT,
};

#define SAMPLE_KTHREAD (1u << 0) /* the task is a kernel thread (first samples only) */
#define SAMPLE_FIRST (1u << 1)   /* the first sample of this process the kernel has sent */
#define SAMPLE_USTACK_CUT (1u << 2) /* the user stack stopped short of its root */
#define SAMPLE_USTACK_TABLES (1u << 3) /* the user stack was walked with unwind tables */

struct stack_sample {
	__u32 kind;      /* RECORD_SAMPLE */
	__u32 flags;     /* CPU_SAMPLE_* */
	__u32 pid;       /* thread id */
	__u32 tgid;      /* process id */
	__u64 cgroup_id; /* cgroup v2 id (its directory's inode number); first samples only */
	/* In the order of the question's value types (docs/architecture.md): cpu {1, period in ns}.
	 * Unused ones are 0. */
	__s64 values[RECORD_MAX_VALUES];
	__u64 lock;      /* the lock's address (locks); 0: none */
	__u64 wait;      /* the kernel address the task waits in (wall, threads); 0: none */
	__u32 state;     /* enum sample_state */
	__u32 lock_kind; /* the question's own kinds of lock */
	__u32 kstack_len; /* frames in ips[0 .. kstack_len) */
	__u32 ustack_len; /* frames in ips[kstack_len .. kstack_len + ustack_len) */
	/* Python frames (struct python_frame, two words each, newest first) from
	 * ips[kstack_len + ustack_len] on; 0 for a process that does not run CPython. */
	__u32 pystack_len;
	__u32 pystack_exit; /* enum python_exit of that walk */
	__u32 wait_reason;  /* enum wait_reason (wall's waits); 0: none */
	__u32 slot;         /* the BPF side's own: where it was assembled (bpf/stack.h) */
	char comm[RECORD_COMM_LEN]; /* the thread's name */
	/* Only with SAMPLE_FIRST: what user space needs of a process that may be gone
	 * before it reads /proc, and whose exit it may not hear of (one sampled only while
	 * the kernel tears it down, after its exit tracepoint). */
	__u32 ppid;
	__u32 tty_nr;
	char leader_comm[RECORD_COMM_LEN]; /* the process's name */
	/* Leaf first; only the used part is sent. The Python frames' copy starts at a word
	 * index the verifier only knows to be below 256, hence the room. */
	__u64 ips[256 + 2 * RECORD_MAX_PYFRAMES];
};

#define SAMPLE_HEADER_SIZE ((unsigned long)&((struct stack_sample *)0)->ips)

struct record_vma {
	__u64 start, end; /* virtual addresses */
	__u64 pgoff;      /* file offset of start, in pages (the kernel's page size) */
	__u64 ino;
	__u32 dev;        /* the kernel's dev_t: major << 20 | minor */
	__u32 is_exe;     /* the file is the process's executable */
};

#define PROCESS_RECORD_KTHREAD (1u << 0)
#define PROCESS_RECORD_HAS_MM (1u << 1)       /* vmas were read */
#define PROCESS_RECORD_VMAS_TRUNCATED (1u << 2)

struct process_record {
	__u32 kind;      /* RECORD_EXEC or RECORD_EXIT */
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
	char comm[RECORD_COMM_LEN]; /* the thread group leader's name */
	char exe_parts[RECORD_EXE_MAX_PARTS][RECORD_EXE_PART_LEN]; /* leaf first, to the root */
	struct record_vma vmas[RECORD_EXIT_MAX_VMAS];
};

#endif
