// SPDX-License-Identifier: GPL-2.0
/*
 * "What is using the CPU": one cpu-clock perf event per CPU runs on_tick, which sends
 * the interrupted task's stacks (bpf/stack.h) with the CPU time the tick stands for.
 * Idle ticks (pid 0, about half of them on an idle server) are counted, not sent.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "stack.h"

char LICENSE[] SEC("license") = "GPL";

SEC("perf_event")
int on_tick(struct bpf_perf_event_data *ctx)
{
	struct stack_sample *s;

	if ((__u32)bpf_get_current_pid_tgid() == 0) {
		count(STACK_COUNTER_IDLE);
		return 0;
	}
	s = stack__begin(STACK_SLOT_TICK);
	if (!s)
		return 0;
	s->values[0] = 1;
	s->values[1] = ctx->sample_period;
	stack__send(ctx, s, 0);
	return 0;
}
