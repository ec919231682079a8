/* SPDX-License-Identifier: MIT */
/*
 * Where the walker's tables live in the kernel, and the layout user space fills
 * (src/unwind/maps.c). Parca-style: every table's rows sit contiguously in one large
 * array map, binary-searched in place (≤ 24 lookups); a table id names the slice. Per
 * process, its executable mappings sorted by address say which table and which
 * adjustment apply (row pc = ip - adjust). A mapping without a table (JIT, anonymous,
 * over budget, not read) has table UNWIND_NO_TABLE: frame pointers there.
 *
 * The types are shared with user space (no pointers, fixed sizes); the maps and the
 * walker's accessors are defined only when compiled for BPF, by a program that includes
 * this after vmlinux.h and bpf_helpers.h.
 * Its circle with unwind_walk.h, unwind_user.h stays: the walker names these accessors, not maps.
 */
#ifndef SLIDEOPS_BPF_UNWIND_MAPS_H
#define SLIDEOPS_BPF_UNWIND_MAPS_H

#include "unwind_walk.h"

#define UNWIND_MAX_TABLES 4096       /* build ids loaded at once */
#define UNWIND_MAX_PROC_MAPS 64      /* executable file mappings of one process */
#define UNWIND_MAP_SEARCH_STEPS 7    /* log2(UNWIND_MAX_PROC_MAPS) + 1 */
#define UNWIND_NO_TABLE 0xffffffffu

_Static_assert((UNWIND_MAX_TABLES & (UNWIND_MAX_TABLES - 1)) == 0, "a power of two");
_Static_assert((UNWIND_MAX_PROC_MAPS & (UNWIND_MAX_PROC_MAPS - 1)) == 0, "a power of two");
_Static_assert((1 << (UNWIND_MAP_SEARCH_STEPS - 1)) >= UNWIND_MAX_PROC_MAPS,
	       "the mapping search halves enough times");

/*
 * unwind_tables[id]: the rows of one table in unwind_rows, and its page index: npages
 * entries just before the rows (at first - npages), entry p holding (in its pc field) the
 * number of the row that covers pc p << shift. A lookup in page p then searches rows
 * entry[p] .. entry[p + 1] only: ~5 steps instead of ~15 for libc, each step a map
 * lookup in the walk's hottest loop.
 */
struct unwind_table_ref {
	__u32 first, count;
	__u32 npages;   /* 0: no index, search all rows */
	__u32 shift;    /* page size, log2: 10 or more */
};

struct unwind_proc_map {
	__u64 start, end;   /* [start, end) in the process */
	__u64 adjust;       /* row pc = ip - adjust */
	__u32 table;        /* id, or UNWIND_NO_TABLE */
	__u32 pad;
};

/* unwind_procs[tgid]: the process's executable mappings, sorted by start. */
struct unwind_proc {
	__u32 n;
	__u32 pad;
	struct unwind_proc_map maps[UNWIND_MAX_PROC_MAPS];
};

_Static_assert(sizeof(struct unwind_proc_map) == 32, "no hidden padding: shared with BPF");

/* 1 when a < b, else 0 (unsigned), by arithmetic alone: the borrow of a - b. The
 * barrier keeps the compiler from seeing a comparison in it and making it a jump. */
static inline __u64 unwind__below(__u64 a, __u64 b)
{
	__u64 d = a - b;

	__asm__ __volatile__("" : "+r"(d));
	return ((~a & b) | (~(a ^ b) & d)) >> 63;
}

#ifdef __bpf__

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by user space: unwind_maps__plan */
	__uint(map_flags, BPF_F_MMAPABLE); /* user space copies tables in with memcpy */
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UNWIND_MAX_TABLES);
	__type(key, __u32);
	__type(value, struct unwind_table_ref);
} unwind_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by user space: unwind_maps__plan */
	__type(key, __u32);
	__type(value, struct unwind_proc);
} unwind_procs SEC(".maps");

/* The walker's context in BPF: the process's mappings, and the task whose memory is
 * read (NULL: the current task). */
struct unwind_bpf_ctx {
	const struct unwind_proc *proc;
	struct task_struct *task;
};

static __always_inline int unwind_read_user(struct unwind_bpf_ctx *ctx, void *dst, __u32 size,
					    __u64 addr)
{
	if (ctx->task)
		return bpf_copy_from_user_task(dst, size, (void *)addr, ctx->task, 0);
	return bpf_probe_read_user(dst, size, (void *)addr);
}

static __always_inline int unwind_find_table(struct unwind_bpf_ctx *ctx, __u64 ip,
					     __u64 *adjust, __u32 *first, __u32 *count)
{
	const struct unwind_proc *p = ctx->proc;
	const struct unwind_table_ref *ref;
	__u32 base = 0, len, n, at, id;

	if (!p)
		return UNWIND_STOP_NO_TABLE;
	n = p->n;
	if (n > UNWIND_MAX_PROC_MAPS)
		n = UNWIND_MAX_PROC_MAPS;
	/*
	 * The last mapping starting at or below ip, by a binary search without a jump: each
	 * step keeps base or moves it by half through a mask computed by arithmetic (BPF has
	 * no conditional move, and a comparison is a jump). With jumps the verifier follows
	 * every path of the search apart, base being an index it must track exactly: 2^7
	 * paths for one frame, which took sampling programs past its million instructions.
	 */
	len = n;
	for (int i = 0; i < UNWIND_MAP_SEARCH_STEPS; i++) {
		__u32 half = len >> 1;
		__u64 start = p->maps[(base + half) & (UNWIND_MAX_PROC_MAPS - 1)].start;

		base += half & ((__u32)unwind__below(ip, start) - 1);
		len -= half;
	}
	at = base & (UNWIND_MAX_PROC_MAPS - 1);
	if (at >= n || ip < p->maps[at].start || ip >= p->maps[at].end)
		return UNWIND_STOP_NO_TABLE;
	id = p->maps[at].table;
	ref = bpf_map_lookup_elem(&unwind_tables, &id);
	if (!ref || ref->count == 0)
		return UNWIND_STOP_NO_TABLE;
	*adjust = p->maps[at].adjust;
	*first = ref->first;
	*count = ref->count;
	{
		__u64 page = (ip - p->maps[at].adjust) >> (ref->shift & 63);
		const struct unwind_row *a, *b;
		__u32 index;

		if (page + 1 >= ref->npages || ref->npages > ref->first)
			return UNWIND_FIND_OK;
		index = ref->first - ref->npages + (__u32)page;
		a = bpf_map_lookup_elem(&unwind_rows, &index);
		index++;
		b = bpf_map_lookup_elem(&unwind_rows, &index);
		if (!a || !b || a->pc > b->pc || b->pc >= ref->count)
			return UNWIND_FIND_OK;
		*first = ref->first + a->pc;
		*count = b->pc - a->pc + 1;
	}
	return UNWIND_FIND_OK;
}

static __always_inline int unwind_get_row(struct unwind_bpf_ctx *ctx, __u32 index,
					  struct unwind_row *row)
{
	const struct unwind_row *r = bpf_map_lookup_elem(&unwind_rows, &index);

	if (!r)
		return -1;
	*row = *r;
	return 0;
}

/*
 * unwind_walk.h's row search as a global function (bpf/unwind_user.h defines it over
 * unwind_search, the search the host tests run): the verifier checks it once, on its own,
 * with every argument unknown, and its callers see only an unknown result; inline, its 25
 * halvings multiplied the states of the frame around it. 0 with *row, or
 * UNWIND_STOP_TABLE_MISS.
 */
int unwind_search_global(__u32 first, __u32 count, __u32 pc, struct unwind_row *row);

static __always_inline int unwind_search_rows(struct unwind_bpf_ctx *ctx, __u32 first,
					      __u32 count, __u32 pc, struct unwind_row *row)
{
	(void)ctx; /* rows are read the same for every task */
	return unwind_search_global(first, count, pc, row);
}

#define UNWIND_SEARCH_ROWS unwind_search_rows

#endif /* __bpf__ */

#endif
