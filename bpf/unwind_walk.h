/* SPDX-License-Identifier: MIT */
/*
 * The native stack walker: one x86_64 frame at a time from (ip, sp, bp), by unwind table
 * rows built from .eh_frame (src/unwind/), falling back to frame pointers where no table
 * covers a PC. Plain C that compiles twice: for BPF (clang -target bpf) inside the
 * engine's stack code, and for the host, where unit tests run it against registers and
 * stacks recorded from real processes (tests/unit/unwind/test_unwind_walk.c). Both sides share
 * this file, so what the tests prove is what the kernel runs.
 *
 * The includer defines, before including this file, UNWIND_CTX (the type of its context)
 * and these three functions; nothing here knows about maps or /proc:
 *
 *   // Copies size bytes of user memory at addr: 0, or < 0 when they cannot be read.
 *   static int unwind_read_user(UNWIND_CTX *ctx, void *dst, __u32 size, __u64 addr);
 *   // The table covering ip: UNWIND_FIND_OK with *adjust (row pc = ip - adjust),
 *   // *first and *count (the table's rows), or UNWIND_STOP_NO_TABLE.
 *   static int unwind_find_table(UNWIND_CTX *ctx, __u64 ip, __u64 *adjust, __u32 *first,
 *                                __u32 *count);
 *   // Row number index of the rows: 0, or < 0 when it is not there.
 *   static int unwind_get_row(UNWIND_CTX *ctx, __u32 index, struct unwind_row *row);
 *
 * Bounded everywhere, as the verifier wants: UNWIND_MAX_DEPTH frames, UNWIND_SEARCH_STEPS
 * halvings per lookup (enough for 2^UNWIND_SEARCH_STEPS rows in one table).
 * Its circle with unwind_maps.h, unwind_user.h stays: the host tests bring their own accessors.
 */
#ifndef SLIDEOPS_BPF_UNWIND_WALK_H
#define SLIDEOPS_BPF_UNWIND_WALK_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* What a row says about the CFA (canonical frame address: the caller's sp). */
enum unwind_cfa_kind {
	UNWIND_CFA_NONE = 0,     /* no table covers this PC: use frame pointers */
	UNWIND_CFA_RSP = 1,      /* rsp + cfa_off */
	UNWIND_CFA_RBP = 2,      /* rbp + cfa_off */
	UNWIND_CFA_PLT = 3,      /* rsp + 8, + 8 more when (ip & 15) >= cfa_off: the PLT's
				    DW_CFA_def_cfa_expression, the only expression compilers
				    and linkers emit for ordinary code */
	UNWIND_CFA_END = 4,      /* the return address is undefined: the outermost frame */
	UNWIND_CFA_SIGNAL = 5,   /* a signal trampoline: the registers are in the ucontext */
	UNWIND_CFA_UNSUPPORTED = 6, /* a rule this walker cannot follow */
	UNWIND_CFA_KINDS,
};

/* What a row says about the caller's rbp. */
enum unwind_rbp_kind {
	UNWIND_RBP_SAME = 0,     /* unchanged */
	UNWIND_RBP_OFFSET = 1,   /* saved at CFA + 8 * rbp_off */
	UNWIND_RBP_LOST = 2,     /* neither: unknown from here on */
	UNWIND_RBP_KINDS,
};

/*
 * One row: from pc (relative to the table's base) up to the next row's pc, these rules
 * hold. 8 bytes: Debian's libc (23,759 rows as readelf counts them) fits in ~190 KB.
 */
struct unwind_row {
	__u32 pc;
	__u16 cfa_off;   /* CFA offset, or the PLT threshold */
	__u8 kind;       /* enum unwind_cfa_kind | enum unwind_rbp_kind << 4 */
	__s8 rbp_off;    /* in units of 8 bytes */
};

_Static_assert(sizeof(struct unwind_row) == 8, "rows are packed 8 bytes: maps and files");

static inline unsigned unwind_row__cfa_kind(const struct unwind_row *r)
{
	return r->kind & 15;
}

static inline unsigned unwind_row__rbp_kind(const struct unwind_row *r)
{
	return r->kind >> 4;
}

/* Why a walk stopped. The first three are the clean ends of a stack. */
enum unwind_stop {
	UNWIND_STOP_ROOT = 0,        /* a row says the return address is undefined */
	UNWIND_STOP_IP_ZERO = 1,     /* a return address of 0 */
	UNWIND_STOP_BP_ZERO = 2,     /* frame-pointer chain ended with rbp 0 (as _start sets) */
	UNWIND_STOP_NO_TABLE = 3,    /* no table for the PC and no frame pointer to follow */
	UNWIND_STOP_TABLE_MISS = 4,  /* a table, but no row for the PC, and no frame pointer */
	UNWIND_STOP_READ_FAULT = 5,  /* the stack could not be read */
	UNWIND_STOP_DEPTH = 6,       /* UNWIND_MAX_DEPTH frames */
	UNWIND_STOP_UNSUPPORTED = 7, /* a rule the walker does not follow */
	UNWIND_STOP_BP_UNKNOWN = 8,  /* the CFA is rbp-based but rbp is not known */
	UNWIND_STOP_NOT_GROWING = 9, /* the caller's sp is not above ours: a loop or garbage */
	UNWIND_STOP_REASONS,
};

/* The clean ends: anything else is a [truncated] stack. */
static inline int unwind_stop__is_clean(unsigned reason)
{
	return reason <= UNWIND_STOP_BP_ZERO;
}

enum {
	UNWIND_FIND_OK = 0,
};

/* Frames of one walk, and the size of the pcs array a walk fills: a power of two, so the
 * verifier sees every store in bounds through the mask. */
#define UNWIND_MAX_DEPTH 127
#define UNWIND_PCS 128
#define UNWIND_PCS_MASK (UNWIND_PCS - 1)
_Static_assert((UNWIND_PCS & UNWIND_PCS_MASK) == 0, "UNWIND_PCS is a power of two");
_Static_assert(UNWIND_MAX_DEPTH < UNWIND_PCS, "every frame fits the pcs array");
/* 2^24 rows in one table (128 MB): no binary has that many; the loader refuses more. */
#define UNWIND_SEARCH_STEPS 24

/* Registers of the frame being unwound. bp_known is 0 when rbp was not captured (a task
 * seen through /proc) or a frame lost it: rbp-based rules then stop the walk. */
struct unwind_regs {
	__u64 ip, sp, bp;
	__u32 bp_known;
	__u32 after_signal; /* ip is where a signal struck, not a return address */
};

/* The architecture's registers and signal frame: x86-64 only (docs/kernel.md). */
#if defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
#include "unwind_arch_x86.h"
#else
#error "the stack walker knows x86-64 only: an architecture is a new unwind_arch_ARCH.h"
#endif

#endif /* SLIDEOPS_BPF_UNWIND_WALK_H */

/* The walker itself, for includers that defined their context and accessors; the types
 * above are all that the table builder (src/unwind/) needs, and it may include this file
 * first, without them. */
#if defined(UNWIND_CTX) && !defined(SLIDEOPS_BPF_UNWIND_WALKER)
#define SLIDEOPS_BPF_UNWIND_WALKER

/* On BPF every step is inlined into the global function that calls it: a frame of the
 * current task and one of another task (bpf/unwind_user.h) must not share a subprogram,
 * or the one that may not sleep would reach the helper that may. */
#ifdef __bpf__
#define UNWIND_FN static __always_inline
#else
#define UNWIND_FN static __attribute__((unused))
#endif

/*
 * The last row of rows [first, first + count) whose pc is <= pc, into *row: 0, or
 * UNWIND_STOP_TABLE_MISS when pc is before the first row or the table cannot be read.
 * An includer may define UNWIND_SEARCH_ROWS(ctx, first, count, pc, row) to search its own
 * way (BPF: a global function, checked once by the verifier); this is the reference both
 * are tested against.
 */
UNWIND_FN int unwind_search(UNWIND_CTX *ctx, __u32 first, __u32 count,
						 __u32 pc, struct unwind_row *row)
{
	__u32 lo = 0, hi = count; /* answer in [lo, hi): the first row with pc > target */
	struct unwind_row r;

	for (int i = 0; i < UNWIND_SEARCH_STEPS + 1 && lo < hi; i++) {
		__u32 mid = lo + (hi - lo) / 2;

		if (unwind_get_row(ctx, first + mid, &r) < 0)
			return UNWIND_STOP_TABLE_MISS;
		if (r.pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo != hi)
		return UNWIND_STOP_TABLE_MISS;
	if (unwind_get_row(ctx, first + lo - 1, row) < 0)
		return UNWIND_STOP_TABLE_MISS;
	return 0;
}

/* Follows the frame pointer: the caller's rbp at [bp], its return address at [bp + 8]. */
UNWIND_FN int unwind_step_fp(UNWIND_CTX *ctx, struct unwind_regs *s,
						  int why)
{
	__u64 saved[2];

	if (!s->bp_known)
		return why;
	if (s->bp == 0)
		return UNWIND_STOP_BP_ZERO;
	if (s->bp < s->sp)
		return UNWIND_STOP_NOT_GROWING;
	if (unwind_read_user(ctx, saved, sizeof(saved), s->bp) < 0)
		return UNWIND_STOP_READ_FAULT;
	s->sp = s->bp + 16;
	s->bp = saved[0];
	s->ip = saved[1];
	s->after_signal = 0;
	return -1;
}

/*
 * One frame: from the registers of a frame to its caller's. Returns -1 when the caller's
 * registers are in *s (its ip is the next frame), else the enum unwind_stop reason.
 */
UNWIND_FN int unwind_step(UNWIND_CTX *ctx, struct unwind_regs *s)
{
	struct unwind_row row;
	__u64 adjust = 0, cfa, lookup, ra, bp;
	__u32 first = 0, count = 0;
	unsigned cfa_kind, rbp_kind;

	if (s->ip == 0)
		return UNWIND_STOP_IP_ZERO;
	/* A return address points after its call, maybe past the end of a function that
	 * ends with a call (noreturn): the call itself is what the row must cover. */
	lookup = s->after_signal ? s->ip : s->ip - 1;
	if (unwind_find_table(ctx, lookup, &adjust, &first, &count) != UNWIND_FIND_OK)
		return unwind_step_fp(ctx, s, UNWIND_STOP_NO_TABLE);
#ifndef UNWIND_SEARCH_ROWS
#define UNWIND_SEARCH_ROWS unwind_search
#endif
	if (lookup - adjust > 0xffffffffULL ||
	    UNWIND_SEARCH_ROWS(ctx, first, count, (__u32)(lookup - adjust), &row) != 0)
		return unwind_step_fp(ctx, s, UNWIND_STOP_TABLE_MISS);

	cfa_kind = unwind_row__cfa_kind(&row);
	rbp_kind = unwind_row__rbp_kind(&row);
	switch (cfa_kind) {
	case UNWIND_CFA_NONE:
		return unwind_step_fp(ctx, s, UNWIND_STOP_TABLE_MISS);
	case UNWIND_CFA_END:
		return UNWIND_STOP_ROOT;
	case UNWIND_CFA_RSP:
		cfa = s->sp + row.cfa_off;
		break;
	case UNWIND_CFA_RBP:
		if (!s->bp_known)
			return UNWIND_STOP_BP_UNKNOWN;
		cfa = s->bp + row.cfa_off;
		break;
	case UNWIND_CFA_PLT:
		cfa = s->sp + 8 + ((s->ip & 15) >= row.cfa_off ? 8 : 0);
		break;
	case UNWIND_CFA_SIGNAL: {
		__u64 regs[3]; /* rbp .. rip is 7 words: read the three we need */

		if (unwind_read_user(ctx, &regs[0], 8, s->sp + UNWIND_UC_RBP) < 0 ||
		    unwind_read_user(ctx, &regs[1], 8, s->sp + UNWIND_UC_RSP) < 0 ||
		    unwind_read_user(ctx, &regs[2], 8, s->sp + UNWIND_UC_RIP) < 0)
			return UNWIND_STOP_READ_FAULT;
		s->bp = regs[0];
		s->bp_known = 1;
		s->sp = regs[1];
		s->ip = regs[2];
		s->after_signal = 1;
		return -1;
	}
	default:
		return UNWIND_STOP_UNSUPPORTED;
	}

	if (cfa <= s->sp)
		return UNWIND_STOP_NOT_GROWING;
	if (rbp_kind == UNWIND_RBP_OFFSET && row.rbp_off == -2) {
		/* push %rbp right after the call, as nearly every function that saves rbp
		 * does: rbp and the return address are adjacent, one read for both (each read
		 * of user memory is the walk's main cost). */
		__u64 pair[2];

		if (unwind_read_user(ctx, pair, sizeof(pair), cfa - 16) < 0)
			return UNWIND_STOP_READ_FAULT;
		s->bp = pair[0];
		s->bp_known = 1;
		ra = pair[1];
	} else if (unwind_read_user(ctx, &ra, sizeof(ra), cfa - 8) < 0) {
		return UNWIND_STOP_READ_FAULT;
	} else if (rbp_kind == UNWIND_RBP_OFFSET) {
		if (unwind_read_user(ctx, &bp, sizeof(bp), cfa + (__s64)row.rbp_off * 8) < 0)
			return UNWIND_STOP_READ_FAULT;
		s->bp = bp;
		s->bp_known = 1;
	} else if (rbp_kind != UNWIND_RBP_SAME) {
		s->bp_known = 0;
	}
	s->sp = cfa;
	s->ip = ra;
	s->after_signal = 0;
	return -1;
}

/*
 * The whole walk into pcs (UNWIND_PCS entries): pcs[0] = s->ip, then each caller's return
 * address, up to max (at most UNWIND_MAX_DEPTH) frames. Returns the number of frames; *reason says why it stopped.
 */
UNWIND_FN __u32 unwind_walk(UNWIND_CTX *ctx, struct unwind_regs *s,
						 __u64 *pcs, __u32 max, __u32 *reason)
{
	__u32 n = 0;

	*reason = UNWIND_STOP_DEPTH;
	if (max > UNWIND_MAX_DEPTH)
		max = UNWIND_MAX_DEPTH;
	for (int i = 0; i < UNWIND_MAX_DEPTH; i++) {
		int r;

		if (n >= max)
			break;
		if (s->ip == 0) {
			*reason = UNWIND_STOP_IP_ZERO;
			break;
		}
		pcs[n & UNWIND_PCS_MASK] = s->ip;
		n++;
		r = unwind_step(ctx, s);
		if (r >= 0) {
			*reason = (__u32)r;
			break;
		}
	}
	return n;
}

#endif /* UNWIND_CTX */
