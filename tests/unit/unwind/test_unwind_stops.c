// SPDX-License-Identifier: MIT
/*
 * Every way the walker (bpf/unwind_walk.h) can stop, each on a small made-up stack and
 * table: the clean ends (a row saying "end of stack", a return address of 0, a frame
 * pointer chain ending with rbp 0) and each early stop, which a capture counts and shows
 * as a [truncated] stack (no table and no frame pointer, a table miss, a read fault, the
 * depth limit, a rule the walker does not follow, an rbp-based CFA with rbp unknown, a
 * stack that does not grow). Also the PLT rule and the frame-pointer fallback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "unwind/unwind.h"
#include "unwind_maps.h"

/* A fake process: 4 KB of stack at STACK, one table covering [TEXT, TEXT + 0x1000). */
#define STACK 0x7ffff000ull
#define TEXT 0x400000ull

struct fake {
	uint64_t stack[512];
	struct unwind_row rows[8];
	uint32_t nrows;
};

#define UNWIND_CTX struct fake

static int unwind_read_user(struct fake *f, void *dst, __u32 size, __u64 addr)
{
	if (addr < STACK || addr + size > STACK + sizeof(f->stack))
		return -EFAULT;
	memcpy(dst, (char *)f->stack + (addr - STACK), size);
	return 0;
}

static int unwind_find_table(struct fake *f, __u64 ip, __u64 *adjust, __u32 *first,
			     __u32 *count)
{
	if (ip < TEXT || ip >= TEXT + 0x1000 || f->nrows == 0)
		return UNWIND_STOP_NO_TABLE;
	*adjust = TEXT;
	*first = 0;
	*count = f->nrows;
	return UNWIND_FIND_OK;
}

static int unwind_get_row(struct fake *f, __u32 index, struct unwind_row *row)
{
	if (index >= f->nrows)
		return -1;
	*row = f->rows[index];
	return 0;
}

#include "unwind_walk.h"

static struct unwind_row row(uint32_t pc, unsigned cfa, uint16_t off, unsigned rbp, int8_t rbp_off)
{
	return (struct unwind_row){ .pc = pc, .cfa_off = off, .kind = (uint8_t)(cfa | rbp << 4),
				    .rbp_off = rbp_off };
}

/* Word i of the stack holds v. */
static void put(struct fake *f, unsigned i, uint64_t v)
{
	f->stack[i] = v;
}

static __u32 walk(struct fake *f, uint64_t ip, uint64_t sp, uint64_t bp, bool bp_known,
		  __u32 *n)
{
	struct unwind_regs s = { .ip = ip, .sp = sp, .bp = bp, .bp_known = bp_known,
				 .after_signal = 1 };
	__u64 pcs[UNWIND_PCS];
	__u32 reason;

	*n = unwind_walk(f, &s, pcs, UNWIND_MAX_DEPTH, &reason);
	return reason;
}

/* [TEXT, +0x100) rsp+8; [+0x100, +0x200) rsp+24 with rbp at cfa-16; [+0x200, +0x300)
 * rbp+16 with rbp at cfa-16; [+0x300, +0x400) end of stack; [+0x400, +0x500) PLT
 * (threshold 11); [+0x500, +0x600) unsupported; then nothing (frame pointers). */
static void table(struct fake *f)
{
	f->rows[0] = row(0x000, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	f->rows[1] = row(0x100, UNWIND_CFA_RSP, 24, UNWIND_RBP_OFFSET, -2);
	f->rows[2] = row(0x200, UNWIND_CFA_RBP, 16, UNWIND_RBP_OFFSET, -2);
	f->rows[3] = row(0x300, UNWIND_CFA_END, 0, UNWIND_RBP_SAME, 0);
	f->rows[4] = row(0x400, UNWIND_CFA_PLT, 11, UNWIND_RBP_SAME, 0);
	f->rows[5] = row(0x500, UNWIND_CFA_UNSUPPORTED, 0, UNWIND_RBP_SAME, 0);
	f->rows[6] = row(0x600, UNWIND_CFA_NONE, 0, UNWIND_RBP_SAME, 0);
	f->nrows = 7;
}

/* leaf (rsp+8) -> a frame saving rbp (rsp+24) -> an rbp-based frame -> the root. */
static void test_clean_root(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	table(&f);
	put(&f, 0, TEXT + 0x101);          /* leaf's return address, at cfa-8 = sp */
	/* frame 2: sp = STACK+8, cfa = sp+24 = STACK+32: ra at +24, rbp at +16 */
	put(&f, 3, TEXT + 0x201);
	put(&f, 2, STACK + 0x100);         /* saved rbp for the rbp-based frame */
	/* frame 3: cfa = rbp + 16 = STACK+0x110: ra at STACK+0x108, rbp at STACK+0x100 */
	put(&f, 0x108 / 8, TEXT + 0x301);
	put(&f, 0x100 / 8, 0);
	assert_int_equal(walk(&f, TEXT + 0x10, STACK, 0, false, &n), UNWIND_STOP_ROOT);
	assert_int_equal(n, 4);
}

static void test_ip_zero(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	table(&f);
	put(&f, 0, 0);
	assert_int_equal(walk(&f, TEXT + 0x10, STACK, 0, false, &n), UNWIND_STOP_IP_ZERO);
	assert_int_equal(n, 1);
	assert_true(unwind_stop__is_clean(UNWIND_STOP_IP_ZERO));
}

/* Outside any table: frame pointers, up to rbp 0. */
static void test_frame_pointer_fallback(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	put(&f, 0x20 / 8, STACK + 0x40);   /* [bp] = next bp */
	put(&f, 0x28 / 8, 0x500001);       /* [bp + 8] = return address */
	put(&f, 0x40 / 8, 0);
	put(&f, 0x48 / 8, 0x500002);
	assert_int_equal(walk(&f, 0x500000, STACK, STACK + 0x20, true, &n), UNWIND_STOP_BP_ZERO);
	assert_int_equal(n, 3);
}

static void test_no_table(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	assert_int_equal(walk(&f, 0x500000, STACK, 0, false, &n), UNWIND_STOP_NO_TABLE);
	assert_int_equal(n, 1);
	assert_false(unwind_stop__is_clean(UNWIND_STOP_NO_TABLE));
}

static void test_table_miss(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	table(&f);
	assert_int_equal(walk(&f, TEXT + 0x700, STACK, 0, false, &n), UNWIND_STOP_TABLE_MISS);
	/* Before the first row, too. */
	f.rows[0].pc = 0x10;
	assert_int_equal(walk(&f, TEXT + 0x1, STACK, 0, false, &n), UNWIND_STOP_TABLE_MISS);
}

static void test_read_fault(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	table(&f);
	/* sp at the very top of the readable stack: the return address is past it. */
	assert_int_equal(walk(&f, TEXT + 0x10, STACK + sizeof(f.stack), 0, false, &n),
			 UNWIND_STOP_READ_FAULT);
	/* A frame pointer to nowhere. */
	assert_int_equal(walk(&f, 0x500000, STACK, 0x1000, true, &n), UNWIND_STOP_NOT_GROWING);
	assert_int_equal(walk(&f, 0x500000, STACK, STACK + 0x100000, true, &n),
			 UNWIND_STOP_READ_FAULT);
}

static void test_unsupported_and_bp_unknown(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	table(&f);
	assert_int_equal(walk(&f, TEXT + 0x510, STACK, 0, false, &n), UNWIND_STOP_UNSUPPORTED);
	assert_int_equal(walk(&f, TEXT + 0x210, STACK, 0, false, &n), UNWIND_STOP_BP_UNKNOWN);
}

/* A frame pointer chain that loops back on itself. */
static void test_not_growing(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	put(&f, 0x20 / 8, STACK + 0x20);   /* rbp points at itself */
	put(&f, 0x28 / 8, 0x500001);
	assert_int_equal(walk(&f, 0x500000, STACK, STACK + 0x20, true, &n),
			 UNWIND_STOP_NOT_GROWING);
	assert_int_equal(n, 2);
}

/* A chain deeper than UNWIND_MAX_DEPTH: frame pointers, each frame 16 bytes up. */
static void test_depth_limit(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	for (unsigned i = 0; i < 255; i++) {
		put(&f, 2 * i, STACK + 16 * (i + 1));
		put(&f, 2 * i + 1, 0x500000 + i);
	}
	assert_int_equal(walk(&f, 0x500000, STACK, STACK, true, &n), UNWIND_STOP_DEPTH);
	assert_int_equal(n, UNWIND_MAX_DEPTH);
}

/* The PLT rule: 8 bytes above sp before the stub's push, 16 after (ip & 15 >= 11). */
static void test_plt(void **state)
{
	struct fake f = { 0 };
	__u32 n;

	(void)state;
	table(&f);
	put(&f, 0, TEXT + 0x301); /* ra at sp: CFA = sp + 8 */
	assert_int_equal(walk(&f, TEXT + 0x400, STACK, 0, false, &n), UNWIND_STOP_ROOT);
	assert_int_equal(n, 2);
	put(&f, 0, 0xdead);
	put(&f, 1, TEXT + 0x301); /* after the push: ra at sp + 8, CFA = sp + 16 */
	assert_int_equal(walk(&f, TEXT + 0x40b, STACK, 0, false, &n), UNWIND_STOP_ROOT);
	assert_int_equal(n, 2);
}

/* The BPF mapping search's comparison without a jump (bpf/unwind_maps.h): a wrong mask
 * there found the wrong mapping for every frame but the first. */
static void test_below_without_a_jump(void **state)
{
	static const __u64 v[] = { 0, 1, 2, 0x7fffffffffffffffull, 0x8000000000000000ull,
				   0x8000000000000001ull, 0xfffffffffffffffeull,
				   0xffffffffffffffffull, 0x400000, 0x7f0000001000ull };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++)
		for (size_t j = 0; j < sizeof(v) / sizeof(*v); j++)
			assert_int_equal(unwind__below(v[i], v[j]), v[i] < v[j]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_without_a_jump),
		cmocka_unit_test(test_clean_root),
		cmocka_unit_test(test_ip_zero),
		cmocka_unit_test(test_frame_pointer_fallback),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_table_miss),
		cmocka_unit_test(test_read_fault),
		cmocka_unit_test(test_unsupported_and_bp_unknown),
		cmocka_unit_test(test_not_growing),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_plt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
