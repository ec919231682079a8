/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a question's program says to user space through, below every part of it that
 * sends (bpf/stack.h, the interpreters' frames of python_frames.h): the ring buffer of
 * records (records.h) and the per-CPU counters, each counter one of enum stack_counter
 * that count() adds one to. Included by stack.h where these maps come in its object.
 */
#ifndef SLIDEOPS_BPF_CHANNEL_H
#define SLIDEOPS_BPF_CHANNEL_H

#include "records.h"

/* Sized by user space: a second of backlog at the question's event rate. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RECORD_MAX_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 counter)
{
	__u64 *value = bpf_map_lookup_elem(&counters, &counter);

	if (value)
		*value += 1;
}

#endif
