// SPDX-License-Identifier: GPL-2.0
/*
 * The Python frame walker over every thread of one process, blocked or not, from a
 * sleepable task iterator (as the threads question takes its snapshot): each task of the
 * process user space names gets its Python stack walked with bpf_copy_from_user_task,
 * and the names of its code objects, through the ring buffer (tests only).
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
	__uint(max_entries, 1 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct python_proc);
} python_procs SEC(".maps");

struct scratch {
	struct python_scratch s;
	struct test_sample sample;
	struct test_code code;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct names_walk {
	struct python_reader *rd;
	struct python_proc *p;
	struct scratch *sc;
};

static long send_names(__u32 i, void *ctx)
{
	struct names_walk *w = ctx;
	__u64 code = w->sc->sample.stack.frames[i & (PYTHON_MAX_FRAMES - 1)].code;

	w->sc->code.kind = TEST_RECORD_CODE;
	python_walk__code(w->rd, &w->p->off, code, &w->sc->code.code);
	bpf_ringbuf_output(&records, &w->sc->code, sizeof(w->sc->code), 0);
	return 0;
}

SEC("iter.s/task")
int each_task(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct python_reader rd;
	struct python_proc *p;
	struct scratch *sc;
	__u32 tgid, tid, zero = 0;
	__u64 pthread_id = 0;

	if (!task)
		return 0;
	tgid = task->tgid;
	tid = task->pid;
	if (tgid != target_tgid)
		return 0;
	p = bpf_map_lookup_elem(&python_procs, &tgid);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!p || !sc)
		return 0;
#ifdef __TARGET_ARCH_x86
	pthread_id = task->thread.fsbase;
#endif
	rd.read = 0;
	rd.ctx = task;
	python_walk(&rd, p, tid, pthread_id, 0, &sc->s, &sc->sample.stack);
	sc->sample.kind = TEST_RECORD_SAMPLE;
	sc->sample.tid = tid;
	sc->sample.walk_ns = 0;
	{
		struct names_walk w = { .rd = &rd, .p = p, .sc = sc };

		bpf_loop(sc->sample.stack.nframes, send_names, &w, 0);
	}
	bpf_ringbuf_output(&records, &sc->sample, sizeof(sc->sample), 0);
	return 0;
}
