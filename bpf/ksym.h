/* SPDX-License-Identifier: MIT */
/*
 * Kernel addresses to names, asked of the kernel itself (ksym.bpf.c): user space fills
 * slots[].addr and count, runs the program once, and reads slots[].name. Included by
 * both sides.
 */
#ifndef SLIDEOPS_BPF_KSYM_H
#define SLIDEOPS_BPF_KSYM_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KSYM_BATCH 512 /* a power of two: the program masks its index with it */
#define KSYM_NAME_LEN 128

struct ksym_slot {
	__u64 addr;
	char name[KSYM_NAME_LEN]; /* "function+0x12/0x40 [module]", or "0x..." when none */
};

#endif
