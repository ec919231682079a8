// SPDX-License-Identifier: GPL-2.0
/*
 * Names kernel addresses the way the kernel prints a backtrace ("%pB"), for the frames a
 * capture sampled. Reading all of /proc/kallsyms costs ~100 ms of system time to name a
 * few hundred frames; asking the kernel costs about a microsecond a frame. A "syscall"
 * program: run once per batch with BPF_PROG_TEST_RUN, not attached to anything.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "ksym.h"

char LICENSE[] SEC("license") = "GPL";

struct ksym_slot slots[KSYM_BATCH];
__u32 count;

static long name_one(__u32 i, void *ctx)
{
	struct ksym_slot *s = &slots[i & (KSYM_BATCH - 1)];
	/* %pB looks up addr - 1 (for return addresses); capture has done that already. */
	__u64 args[1] = { s->addr + 1 };

	bpf_snprintf(s->name, sizeof(s->name), "%pB", args, sizeof(args));
	return 0;
}

SEC("syscall")
int name_addresses(void *ctx)
{
	bpf_loop(count < KSYM_BATCH ? count : KSYM_BATCH, name_one, NULL, 0);
	return 0;
}
