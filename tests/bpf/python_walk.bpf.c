// SPDX-License-Identifier: GPL-2.0
/*
 * The Python frame walker (bpf/python_walk.h) on the real kernel, for tests: a
 * cpu-clock perf_event program that, for the one process user space names, walks the
 * sampled thread's Python frames, sends them with the time the walk took, and sends a
 * code object's names the first time it meets it. It proves that the walker passes the
 * verifier and reads live interpreters from BPF; the capture engine's program does the
 * same from its shared stack header.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "python_walk.h"
#include "python_walk_test.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} records SEC(".maps");

/* tgid -> what user space found of CPython in it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct python_proc);
} python_procs SEC(".maps");

/* tid -> its thread state last time: the walk's hint */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} python_threads SEC(".maps");

/* (tgid, code object) whose names were sent */
struct code_key {
	__u32 tgid;
	__u32 pad;
	__u64 code;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct code_key);
	__type(value, __u8);
} python_codes SEC(".maps");

struct scratch {
	__u64 ips[127];
	struct python_scratch s;
	struct test_sample sample;
	struct test_code code;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct names_walk {
	__u32 tgid;
	struct python_proc *p;
	struct scratch *sc;
};

static long send_names(__u32 i, void *ctx)
{
	struct names_walk *w = ctx;
	struct code_key k = { .tgid = w->tgid };
	__u8 one = 1;

	k.code = w->sc->sample.stack.frames[i & (PYTHON_MAX_FRAMES - 1)].code;
	if (bpf_map_lookup_elem(&python_codes, &k))
		return 0;
	bpf_map_update_elem(&python_codes, &k, &one, BPF_ANY);
	w->sc->code.kind = TEST_RECORD_CODE;
	python_walk__code(NULL, &w->p->off, k.code, &w->sc->code.code);
	bpf_ringbuf_output(&records, &w->sc->code, sizeof(w->sc->code), 0);
	return 0;
}

SEC("perf_event")
int on_tick(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), *hint, start;
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct python_proc *p;
	struct scratch *sc;
	__u64 pthread_id;

	if (tgid != target_tgid)
		return 0;
	p = bpf_map_lookup_elem(&python_procs, &tgid);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!p || !sc)
		return 0;
	/* pthread_self() is the thread pointer: fs base on x86-64 (3.8-3.10 keep only it).
	 * Elsewhere it is the thread pointer minus a libc-private size: 3.11+ only. */
#ifdef __TARGET_ARCH_x86
	pthread_id = BPF_CORE_READ(task, thread.fsbase);
#else
	pthread_id = 0;
#endif
	hint = bpf_map_lookup_elem(&python_threads, &tid);

	/* What a native sample costs in the same tick, for the ratio: both stacks. */
	start = bpf_ktime_get_ns();
	bpf_get_stack(ctx, sc->ips, sizeof(sc->ips), 0);
	bpf_get_stack(ctx, sc->ips, sizeof(sc->ips), BPF_F_USER_STACK);
	sc->sample.native_ns = bpf_ktime_get_ns() - start;

	start = bpf_ktime_get_ns();
	python_walk(NULL, p, tid, pthread_id, hint ? *hint : 0, &sc->s, &sc->sample.stack);
	sc->sample.walk_ns = bpf_ktime_get_ns() - start;
	sc->sample.kind = TEST_RECORD_SAMPLE;
	sc->sample.tid = tid;
	if (sc->sample.stack.tstate && (!hint || *hint != sc->sample.stack.tstate))
		bpf_map_update_elem(&python_threads, &tid, &sc->sample.stack.tstate, BPF_ANY);

	/* Names of code objects not met before, sent ahead of the sample that has them. */
	{
		struct names_walk w = { .tgid = tgid, .p = p, .sc = sc };

		bpf_loop(sc->sample.stack.nframes, send_names, &w, 0);
	}
	bpf_ringbuf_output(&records, &sc->sample, sizeof(sc->sample), 0);
	return 0;
}
