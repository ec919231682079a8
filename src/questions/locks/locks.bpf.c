// SPDX-License-Identifier: GPL-2.0
/*
 * "What is waiting on locks": futex waits seen from the raw system call tracepoints
 * (every system call passes them, so they need no tracefs; anything but the futex calls
 * leaves at the first comparison), and kernel lock contention (contention_begin/end).
 * The entry or begin keeps a timestamp per thread; the exit or end sends the waiter's
 * stacks (bpf/stack.h) with the time waited. Only waits that happened are sampled, and
 * each once: what a thread was waiting on is told apart (lock or not) from its stack by
 * user space, which has the names. Who held the lock is the thread that wakes a futex
 * address while waiters are on it: that wake sends the waker's stack (on_wake).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "locks.h"
#include "stack.h"

char LICENSE[] SEC("license") = "GPL";

/* x86_64 system call numbers. */
#define NR_FUTEX 202
#define NR_FUTEX_WAITV 449
#define NR_FUTEX_WAKE 454
#define NR_FUTEX_WAIT 455

#define FUTEX_CMD_MASK 0x7f
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAKE_OP 5
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_LOCK_PI2 13

/* contention_begin's flags (include/trace/events/lock.h). */
#define LCB_F_SPIN (1U << 0)
#define LCB_F_READ (1U << 1)
#define LCB_F_WRITE (1U << 2)
#define LCB_F_RT (1U << 3)
#define LCB_F_PERCPU (1U << 4)
#define LCB_F_MUTEX (1U << 5)

/* Our own counters, after bpf/stack.h's. */
enum locks_counter {
	LOCKS_COUNTER_TABLE_FULL = STACK_COUNTER__COUNT, /* a wait not timed: no room */
};

struct wait_start {
	__u64 start_ns;
	__u64 addr;
	__u32 kind;
	__u32 pad;
};

/* Threads inside a futex wait (tid -> when, where). LRU: a thread that exits inside
 * its wait never comes back to delete its entry. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct wait_start);
} futex_waits SEC(".maps");

/* Threads contending for a kernel lock. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct wait_start);
} kernel_waits SEC(".maps");

/* A futex address somebody waits on, in one process: who released it while others
 * waited is told at the wake (FUTEX_WAKE on the same address), and only there. */
struct waited_key {
	__u64 addr;
	__u32 tgid;
	__u32 pad;
};

struct futex_waited {
	__s64 waiters;   /* threads inside a wait on it, that we saw begin */
	__u64 since_ns;  /* since when someone has waited, or the last wake */
	__s64 pending_ns; /* waiting ended by wakes that took no stack yet */
};

/* A waker's stack is taken once the waiting its wakes ended reaches this: a release that
 * ended 1 ms of waiting or more always takes one; shorter ones add up until one does, which
 * carries them all (sampled by the waiting ended, as a sampling profiler samples by
 * time). A contended lock's microsecond handovers so cost a hash lookup, not a walk. */
#define HOLDER_SAMPLE_NS 1000000

/* Addresses with waiters (LRU: a waiter that exits inside its wait never leaves). A wake
 * on an address not here costs one hash lookup and takes no stack. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct waited_key);
	__type(value, struct futex_waited);
} futex_waited SEC(".maps");

static __always_inline void waited__enter(__u64 addr, __u64 now)
{
	struct waited_key k = { .addr = addr, .tgid = bpf_get_current_pid_tgid() >> 32 };
	struct futex_waited fresh = { 0, now, 0 }, *v;

	v = bpf_map_lookup_elem(&futex_waited, &k);
	if (!v) {
		bpf_map_update_elem(&futex_waited, &k, &fresh, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&futex_waited, &k);
		if (!v)
			return;
	}
	if (__sync_fetch_and_add(&v->waiters, 1) <= 0)
		v->since_ns = now; /* the first waiter: the lock is waited on from now */
}

static __always_inline void waited__leave(__u64 addr, __u32 tgid)
{
	struct waited_key k = { .addr = addr, .tgid = tgid };
	struct futex_waited *v = bpf_map_lookup_elem(&futex_waited, &k);

	if (v)
		__sync_fetch_and_add(&v->waiters, -1);
}

static __always_inline bool futex_is_wake(__u32 op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_WAKE_OP:
	case FUTEX_UNLOCK_PI:
		return true;
	default:
		return false;
	}
}

/*
 * A wake on an address that threads of this process wait on: the waker released what
 * they waited for. The stretch it ended is the time someone waited on the address up to
 * now, since the first waiter began or the last wake ended a stretch, whichever is later
 * (so each stretch of waiting is the one waker's that ended it). Its stack is sent with
 * the stretches pending once they reach HOLDER_SAMPLE_NS.
 */
static __always_inline void on_wake(void *ctx, __u64 addr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct waited_key k = { .addr = addr, .tgid = pid_tgid >> 32 };
	struct futex_waited *v = bpf_map_lookup_elem(&futex_waited, &k);
	struct stack_sample *s;
	__u64 now, since;
	__s64 pending;

	if (!v || v->waiters <= 0)
		return;
	now = bpf_ktime_get_ns();
	since = v->since_ns;
	v->since_ns = now;
	if (now <= since)
		return;
	pending = __sync_fetch_and_add(&v->pending_ns, now - since) + (__s64)(now - since);
	if (pending < HOLDER_SAMPLE_NS)
		return;
	/* Claimed: what another CPU adds meanwhile stays for the next. */
	__sync_fetch_and_add(&v->pending_ns, -pending);
	s = stack__begin(STACK_SLOT_TRACE);
	if (!s)
		return;
	s->values[0] = 0;
	s->values[1] = pending;
	s->values[2] = 0;
	s->lock = addr;
	s->lock_kind = LOCK_KIND_FUTEX_WAKE;
	s->state = SAMPLE_STATE_RUNNING;
	stack__send(ctx, s, STACK_USER_ONLY);
}

static __always_inline __u32 futex_kind(__u32 op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
		return LOCK_KIND_FUTEX;
	case FUTEX_WAIT_BITSET:
		return LOCK_KIND_FUTEX_BITSET;
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		return LOCK_KIND_FUTEX_PI;
	case FUTEX_WAIT_REQUEUE_PI:
		return LOCK_KIND_FUTEX_REQUEUE_PI;
	default:
		return LOCK_KIND_NONE; /* a wake, a requeue: no wait */
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	struct wait_start w = { 0 };
	__u32 tid;

	if (id != NR_FUTEX && id != NR_FUTEX_WAITV && id != NR_FUTEX_WAIT &&
	    id != NR_FUTEX_WAKE)
		return 0;
	w.addr = BPF_CORE_READ(regs, di);
	if (id == NR_FUTEX_WAKE) {
		on_wake(ctx, w.addr);
		return 0;
	}
	if (id == NR_FUTEX) {
		__u32 op = BPF_CORE_READ(regs, si);

		w.kind = futex_kind(op);
		if (w.kind == LOCK_KIND_NONE) {
			if (futex_is_wake(op))
				on_wake(ctx, w.addr);
			return 0;
		}
	} else if (id == NR_FUTEX_WAIT) {
		w.kind = LOCK_KIND_FUTEX;
	} else {
		__u64 uaddr = 0;

		/* struct futex_waitv { u64 val; u64 uaddr; ... }[]: the first one's. */
		bpf_probe_read_user(&uaddr, sizeof(uaddr), (void *)(w.addr + 8));
		w.addr = uaddr;
		w.kind = LOCK_KIND_FUTEX_WAITV;
	}
	tid = (__u32)bpf_get_current_pid_tgid();
	w.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&futex_waits, &tid, &w, BPF_ANY))
		count(LOCKS_COUNTER_TABLE_FULL);
	else
		waited__enter(w.addr, w.start_ns);
	return 0;
}

/* slot: the calling program's (bpf/stack.h): a kernel lock's end may come inside a
 * system call's program. */
static __always_inline void send_wait(void *ctx, struct wait_start *w, __u32 kskip, __u32 slot)
{
	__u64 waited = bpf_ktime_get_ns() - w->start_ns;
	struct stack_sample *s = stack__begin(slot);

	if (!s)
		return;
	s->values[0] = 1;
	s->values[1] = waited;
	s->values[2] = waited; /* the longest: merged by its maximum */
	s->lock = w->addr;
	s->lock_kind = w->kind;
	s->state = SAMPLE_STATE_WAITING;
	stack__send(ctx, s, kskip);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	long id = BPF_CORE_READ(regs, orig_ax);
	struct wait_start *w, copy;
	__u32 tid;

	if (id != NR_FUTEX && id != NR_FUTEX_WAITV && id != NR_FUTEX_WAIT)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	w = bpf_map_lookup_elem(&futex_waits, &tid);
	if (!w)
		return 0; /* waiting since before the capture, or not a wait */
	copy = *w;
	bpf_map_delete_elem(&futex_waits, &tid);
	waited__leave(copy.addr, bpf_get_current_pid_tgid() >> 32);
	/* The user stack is the waiter's; the kernel's, here, only the exit path. */
	send_wait(ctx, &copy, STACK_USER_ONLY, STACK_SLOT_TRACE);
	return 0;
}

static __always_inline __u32 kernel_kind(__u32 flags)
{
	if (flags & LCB_F_PERCPU)
		return LOCK_KIND_PERCPU_RWSEM;
	if (flags & LCB_F_RT)
		return LOCK_KIND_RTMUTEX;
	if (flags & LCB_F_MUTEX)
		return LOCK_KIND_MUTEX;
	if (flags & LCB_F_SPIN)
		return flags & (LCB_F_READ | LCB_F_WRITE) ? LOCK_KIND_RWLOCK : LOCK_KIND_SPINLOCK;
	return LOCK_KIND_RWSEM;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(on_contention_begin, void *lock, unsigned int flags)
{
	struct wait_start w = { 0 }, *old;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (!tid)
		return 0; /* the idle task */
	/* A mutex begins twice (spinning, then sleeping): the first one counts. */
	old = bpf_map_lookup_elem(&kernel_waits, &tid);
	if (old && old->addr == (__u64)lock)
		return 0;
	w.start_ns = bpf_ktime_get_ns();
	w.addr = (__u64)lock;
	w.kind = kernel_kind(flags);
	if (bpf_map_update_elem(&kernel_waits, &tid, &w, BPF_ANY))
		count(LOCKS_COUNTER_TABLE_FULL);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(on_contention_end, void *lock, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start *w, copy;

	if (!tid)
		return 0;
	w = bpf_map_lookup_elem(&kernel_waits, &tid);
	/* Another lock's end (an interrupt's, in the middle of this wait): not ours. */
	if (!w || w->addr != (__u64)lock)
		return 0;
	copy = *w;
	bpf_map_delete_elem(&kernel_waits, &tid);
	/* bpf_prog_* and bpf_trace_run2 are the tracepoint's own frames. */
	send_wait(ctx, &copy, 2, STACK_SLOT_NESTED);
	return 0;
}
