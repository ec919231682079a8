// SPDX-License-Identifier: MIT
/*
 * Where a Java frame is (src/unwind/jvm.h): the line of a bytecode index in a method's
 * compressed line number table, the bytecode index of an interpreted frame from the low
 * bits of its bcp, and the methods inlined at a compiled PC, read from a made-up
 * nmethod laid out as OpenJDK 17 lays one out (its offsets measured from its own tables,
 * docs/kernel.md §Java): its PcDescs, its scope data in HotSpot's UNSIGNED5 coding and
 * its metadata. Also what a hostile JVM may write there: scope chains that loop, indexes
 * past the metadata, a blob that is no nmethod, a PC outside its code. And the frame
 * step's reading of a sample taken in a compiled method's entry or exit (jvm_walk.h),
 * over made-up code. The same readers against a running OpenJDK are in
 * test_jvm_real.c, and java.sh's profile of a short method called in a hot loop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unwind/jvm.h"
#include "jvm_walk.h"

/* ---- line tables ---- */

/* javac's line number table of Invoices.computeTotals (tests/workloads/com/acme; javap
 * -l: line 24 at bci 0, 25 at 2, 26 at 12, 25 at 19, 27 at 25), compressed as HotSpot
 * keeps it: 0xFF and two zigzag ints where a pair's deltas do not fit a byte's 5 and 3
 * bits, 0 at its end. */
static const uint8_t compute_totals_lines[] = {
	0xff, 0x00, 0x30, /* (0, 24) */
	0x11,		  /* (+2, +1) */
	0x51,		  /* (+10, +1) */
	0xff, 0x0e, 0x01, /* (+7, -1) */
	0x32,		  /* (+6, +2) */
	0x00,
};

static void test_line_tables(void **state)
{
	/* line 1000 at bci 0: 2000 zigzag, two UNSIGNED5 bytes (208 = 192 + 16, then 28) */
	static const uint8_t wide[] = { 0xff, 0x00, 0xd0, 0x1c, 0x00 };
	static const uint8_t endless[] = { 0x11, 0x11, 0x11 };
	static const uint8_t cut[] = { 0xff, 0x00, 0xd0 };
	static const uint8_t empty[] = { 0x00 };
	/* line 65537, past a class file's u2: 131074 zigzag in three bytes */
	static const uint8_t past[] = { 0xff, 0x00, 0xc2, 0xfd, 0x1c, 0x00 };
	int32_t first;

	(void)state;
	assert_int_equal(jvm_line_table__first(compute_totals_lines, sizeof(compute_totals_lines),
					       &first), 0);
	assert_int_equal(first, 24);
	assert_int_equal(jvm_line_table__first(wide, sizeof(wide), &first), 0);
	assert_int_equal(first, 1000);
	assert_int_equal(jvm_line_table__first(endless, sizeof(endless), &first), -ENOENT);
	assert_int_equal(first, 0);
	assert_int_equal(jvm_line_table__first(cut, sizeof(cut), &first), -ENOENT);
	assert_int_equal(jvm_line_table__first(empty, sizeof(empty), &first), -ENOENT);
	assert_int_equal(jvm_line_table__first(past, sizeof(past), &first), -EINVAL);
	assert_int_equal(jvm_line_table__first(empty, 0, &first), -ENOENT);
}

/* Method::line_number_from_bci: the pair at the index, else the latest one before it. */
static void test_line_at_bci(void **state)
{
	static const struct {
		int32_t bci, line;
	} want[] = {
		{ 0, 24 }, { 1, 24 }, { 2, 25 }, { 9, 25 },   { 12, 26 },  { 15, 26 },
		{ 19, 25 }, { 22, 25 }, { 25, 27 }, { 26, 27 }, { 900, 27 }, { -1, 24 },
	};
	/* (2, 1) first: no pair at or before bci 0 */
	static const uint8_t late[] = { 0x11, 0x00 };
	int32_t line;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(jvm_line_table__at(compute_totals_lines,
						    sizeof(compute_totals_lines), want[i].bci,
						    &line),
				 0);
		assert_int_equal(line, want[i].line);
	}
	assert_int_equal(jvm_line_table__at(late, sizeof(late), 0, &line), -ENOENT);
	assert_int_equal(line, 0);
	assert_int_equal(jvm_line_table__at(late, sizeof(late), 2, &line), 0);
	assert_int_equal(line, 1);
	assert_int_equal(jvm_line_table__at(late, 1, 2, &line), -ENOENT); /* no end */
}

/* ---- made-up memory ---- */

#define BASE 0x7f0000000000ull
#define SIZE 0x10000u

struct mem {
	uint8_t bytes[SIZE];
};

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;

	if (addr < BASE || addr - BASE > SIZE || len > SIZE - (addr - BASE))
		return -EFAULT;
	memcpy(buf, m->bytes + (addr - BASE), len);
	return 0;
}

static void put(struct mem *m, uint64_t addr, const void *v, size_t len)
{
	assert_true(addr >= BASE && addr - BASE + len <= SIZE);
	memcpy(m->bytes + (addr - BASE), v, len);
}

static void put64(struct mem *m, uint64_t addr, uint64_t v)
{
	put(m, addr, &v, sizeof(v));
}

static void put32(struct mem *m, uint64_t addr, int32_t v)
{
	put(m, addr, &v, sizeof(v));
}

/* ---- a compiled method ---- */

/* OpenJDK 17's offsets (its own tables: test_jvm_real.c reads them) */
static void layout17(struct jvm_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->blob_name = 96, l->blob_code_begin = 32, l->blob_code_end = 40;
	l->compiled_method = 112, l->scopes_data = 120, l->nmethod_metadata = 260;
	l->nmethod_scopes_pcs = 268, l->nmethod_dependencies = 272;
	l->pc_desc_size = 16, l->pc_desc_pc = 0, l->pc_desc_scope = 4;
	l->has_scopes = true;
}

#define BLOB (BASE + 0x1000)
#define CODE (BLOB + 0x200)	  /* its code: 0x200 bytes */
#define META (BLOB + 0x400)	  /* metadata: [1] computeTotals, [2] applyRate */
#define DATA (BLOB + 0x410)	  /* scope data */
#define PCS (BLOB + 0x440)	  /* PcDescs: 4 of them */
#define OUTER 0x7f0000100000ull /* computeTotals' Method*, the nmethod's own */
#define INNER 0x7f0000100100ull /* applyRate's, inlined into it */

/*
 * computeTotals' nmethod: at code + 0x10 a PC in computeTotals alone at bci 19, at code
 * + 0x40 one in applyRate (bci 4) inlined into computeTotals (bci 12); then the final
 * sentinel, whose scope is none. Scope data (UNSIGNED5 ints, each below 192 a byte):
 * offset 0 is HotSpot's null, computeTotals at 1 { sender 0, method 1, bci + 1 13 },
 * applyRate at 4 { sender 1, method 2, bci + 1 5 }, the lone scope at 7 { 0, 1, 20 }.
 */
static void nmethod(struct mem *m)
{
	static const uint8_t data[] = { 0, 0, 1, 13, 1, 2, 5, 0, 1, 20 };
	static const int32_t pcs[4][4] = {
		{ -1, 0, 0, 0 }, { 0x10, 7, 0, 0 }, { 0x40, 4, 0, 0 }, { 0x7fffffff, 0, 0, 0 },
	};

	memset(m, 0, sizeof(*m));
	put(m, BASE + 0x100, "nmethod", 8);
	put64(m, BLOB + 96, BASE + 0x100);
	put64(m, BLOB + 32, CODE);
	put64(m, BLOB + 40, CODE + 0x200);
	put64(m, BLOB + 112, OUTER);
	put64(m, BLOB + 120, DATA);
	put32(m, BLOB + 260, (int32_t)(META - BLOB));
	put32(m, BLOB + 268, (int32_t)(PCS - BLOB));
	put32(m, BLOB + 272, (int32_t)(PCS + sizeof(pcs) - BLOB));
	put64(m, META, OUTER);
	put64(m, META + 8, INNER);
	put(m, DATA, data, sizeof(data));
	put(m, PCS, pcs, sizeof(pcs));
}

static unsigned scopes_at(struct mem *m, const struct jvm_layout *l, uint64_t pc,
			  struct jvm_scope *out)
{
	unsigned n = 99;

	assert_int_equal(jvm_nmethod__scopes(l, mem_read, m, BLOB, pc - BLOB, out,
					     JVM_MAX_SCOPES, &n),
			 0);
	return n;
}

static void test_inlined_scopes(void **state)
{
	static struct mem m;
	struct jvm_scope s[JVM_MAX_SCOPES];
	struct jvm_layout l;

	(void)state;
	layout17(&l);
	nmethod(&m);
	/* the call's return address: applyRate inlined into computeTotals, innermost first */
	assert_int_equal(scopes_at(&m, &l, CODE + 0x40, s), 2);
	assert_true(s[0].method == INNER && s[0].bci == 4);
	assert_true(s[1].method == OUTER && s[1].bci == 12);
	/* a sampled PC before it: the PcDesc at or after it */
	assert_int_equal(scopes_at(&m, &l, CODE + 0x20, s), 2);
	assert_true(s[0].method == INNER && s[1].method == OUTER);
	/* before the first call: computeTotals alone, at its bci */
	assert_int_equal(scopes_at(&m, &l, CODE + 0x10, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == 19);
	assert_int_equal(scopes_at(&m, &l, CODE, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == 19);
	/* past the last call (stubs): the sentinel, no scope: the method at its entry */
	assert_int_equal(scopes_at(&m, &l, CODE + 0x100, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	/* a JVM whose tables give no scopes: the method alone */
	l.has_scopes = false;
	assert_int_equal(scopes_at(&m, &l, CODE + 0x40, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
}

static void test_hostile_scopes(void **state)
{
	static struct mem m;
	struct jvm_scope s[JVM_MAX_SCOPES];
	struct jvm_layout l;
	unsigned n;

	(void)state;
	layout17(&l);
	/* a chain that loops (applyRate its own sender): the nmethod's method alone */
	nmethod(&m);
	put(&m, DATA + 4, (uint8_t[]){ 4 }, 1);
	assert_int_equal(scopes_at(&m, &l, CODE + 0x40, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	/* a chain that does not end at the nmethod's method */
	nmethod(&m);
	put(&m, DATA + 2, (uint8_t[]){ 2 }, 1);
	assert_int_equal(scopes_at(&m, &l, CODE + 0x40, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	/* a metadata index past the metadata */
	nmethod(&m);
	put(&m, DATA + 5, (uint8_t[]){ 3 }, 1);
	assert_int_equal(scopes_at(&m, &l, CODE + 0x40, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	/* a scope offset past the scope data, PcDescs before the metadata */
	nmethod(&m);
	put32(&m, PCS + 16 + 4, 0x1000);
	assert_int_equal(scopes_at(&m, &l, CODE + 0x10, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	nmethod(&m);
	put32(&m, BLOB + 268, 0x100);
	assert_int_equal(scopes_at(&m, &l, CODE + 0x40, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	/* a scope whose bytes run off the data: three 0xff bytes at its end */
	nmethod(&m);
	put32(&m, PCS + 16 + 4, (int32_t)(PCS - DATA - 2));
	put(&m, PCS - 2, (uint8_t[]){ 0xff, 0xff }, 2);
	assert_int_equal(scopes_at(&m, &l, CODE + 0x10, s), 1);
	assert_true(s[0].method == OUTER && s[0].bci == -1);
	/* what is no nmethod, a PC outside its code, a blob not mapped: refused */
	nmethod(&m);
	assert_int_equal(jvm_nmethod__scopes(&l, mem_read, &m, BLOB, 0x10, s, JVM_MAX_SCOPES, &n),
			 -EINVAL);
	assert_int_equal(n, 0u);
	assert_int_equal(jvm_nmethod__scopes(&l, mem_read, &m, BLOB, 0x401, s, JVM_MAX_SCOPES, &n),
			 -EINVAL);
	assert_int_equal(jvm_nmethod__scopes(&l, mem_read, &m, BLOB + 0x20000, 0x210, s,
					     JVM_MAX_SCOPES, &n),
			 -EFAULT);
	put(&m, BASE + 0x100, "BufferBlob", 8);
	assert_int_equal(jvm_nmethod__scopes(&l, mem_read, &m, BLOB, 0x240, s, JVM_MAX_SCOPES, &n),
			 -EINVAL);
}

/* ---- an interpreted frame's bytecode index ---- */

#define METHOD (BASE + 0x2000)
#define CONST_METHOD (BASE + 0x3010) /* its bytecodes at 0x3040 */

static void method(struct mem *m, uint16_t code_size)
{
	memset(m, 0, sizeof(*m));
	put64(m, METHOD + 8, CONST_METHOD);	      /* Method::_constMethod */
	put64(m, CONST_METHOD + 8, BASE + 0x4000);    /* ConstMethod::_constants */
	put64(m, BASE + 0x4000 + 24, BASE + 0x5000);  /* ConstantPool::_pool_holder */
	put64(m, BASE + 0x5000 + 24, BASE + 0x6000);  /* Klass::_name */
	put(m, CONST_METHOD + 32, &code_size, sizeof(code_size));
}

static void test_bytecode_index(void **state)
{
	static struct mem m;
	struct jvm_layout l;
	int32_t bci;

	(void)state;
	memset(&l, 0, sizeof(l));
	l.method_const = 8, l.const_method_constants = 8, l.pool_holder = 24;
	l.klass_name = 24, l.const_method_size = 48, l.const_method_code_size = 32;
	method(&m, 100);
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD, 0x047, &bci), 0);
	assert_int_equal(bci, 7);
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD, 0x040, &bci), 0);
	assert_int_equal(bci, 0);
	/* the low 12 bits wrap: bytecodes from 0x...ff0, bci 0x20 at 0x...010 */
	put64(&m, METHOD + 8, CONST_METHOD + 0xfb0);
	put64(&m, CONST_METHOD + 0xfb0 + 8, BASE + 0x4000);
	put(&m, CONST_METHOD + 0xfb0 + 32, (uint16_t[]){ 100 }, 2);
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD, 0x010, &bci), 0);
	assert_int_equal(bci, 0x20);
	/* past its code; a method too long for 12 bits; no layout of ConstMethod */
	method(&m, 100);
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD, 0x040 + 100, &bci), -EINVAL);
	assert_int_equal(bci, -1);
	method(&m, 5000);
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD, 0x047, &bci), -ERANGE);
	l.const_method_size = 0;
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD, 0x047, &bci), -ERANGE);
	/* not a Method */
	l.const_method_size = 48;
	assert_int_equal(jvm_method__bci(&l, mem_read, &m, METHOD + 4, 0x047, &bci), -EINVAL);
}

/* ---- a sample in a compiled method's entry or exit (bpf/jvm_walk.h) ---- */

static int walk_read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	return mem_read(ctx, addr, dst, size);
}

/* C2's entry and exit of a method that calls (a stack bang, then push rbp; sub rsp)
 * and of a leaf one (sub rsp first, then rbp saved in the frame), as 17 emits them */
#define EDGE_CODE (BASE + 0x7000)
static const uint8_t calling[] = {
	0x44, 0x8b, 0x56, 0x08, 0x90, 0x90, 0x90, 0x90, /* 0: inline cache check */
	0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,	/* 8: mov [rsp - 0x14000], eax */
	0x55,						/* 15: push rbp */
	0x48, 0x83, 0xec, 0x10,				/* 16: sub rsp, 0x10 */
	0x48, 0x8b, 0xc6,				/* 20: mov rax, rsi (built) */
	0x48, 0x83, 0xc4, 0x10,				/* 23: add rsp, 0x10 */
	0x5d,						/* 27: pop rbp */
	0x49, 0x3b, 0x67, 0x20,				/* 28: cmp rsp, [r15 + 0x20] */
	0x0f, 0x87, 0x10, 0x00, 0x00, 0x00,		/* 32: ja */
	0xc3,						/* 38: ret */
};
static const uint8_t leaf[] = {
	0x48, 0x81, 0xec, 0x18, 0x00, 0x00, 0x00, /* 0: sub rsp, 0x18 */
	0x48, 0x89, 0x6c, 0x24, 0x10,		  /* 7: mov [rsp + 0x10], rbp */
	0x48, 0x8b, 0xc6,			  /* 12: mov rax, rsi (built) */
};

static void test_entry_and_exit(void **state)
{
	static const struct {
		const uint8_t *code;
		unsigned at, entry, before_verified;
		int want;
	} cases[] = {
		{ calling, 2, 1, 1, JVM_EDGE_AT_SP },	  { calling, 8, 1, 0, JVM_EDGE_AT_SP },
		{ calling, 15, 1, 0, JVM_EDGE_AT_SP },	  { calling, 16, 1, 0, JVM_EDGE_PUSHED },
		{ calling, 2, 1, 0, JVM_EDGE_UNKNOWN },	  { calling, 20, 0, 0, JVM_EDGE_BUILT },
		{ calling, 23, 0, 0, JVM_EDGE_BUILT },	  { calling, 27, 0, 0, JVM_EDGE_PUSHED },
		{ calling, 28, 0, 0, JVM_EDGE_AT_SP },	  { calling, 32, 0, 0, JVM_EDGE_AT_SP },
		{ calling, 38, 0, 0, JVM_EDGE_AT_SP },	  { leaf, 0, 1, 0, JVM_EDGE_AT_SP },
		{ leaf, 7, 1, 0, JVM_EDGE_NO_RBP },	  { leaf, 12, 0, 0, JVM_EDGE_BUILT },
	};
	static struct mem m;
	struct jvm_reader rd = { walk_read, &m };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&m, 0, sizeof(m));
		put(&m, EDGE_CODE, cases[i].code, cases[i].code == leaf ? sizeof(leaf)
								      : sizeof(calling));
		assert_int_equal(jvm_walk__edge(&rd, EDGE_CODE + cases[i].at, cases[i].entry,
						cases[i].before_verified),
				 cases[i].want);
	}
}

/* The frame step over the calling method's nmethod (frame of 4 words, built at 20,
 * verified entry at 8), one segment of a made-up heap: a sample at pop rbp returns from
 * sp + 8; in its entry, from sp; the same PC as a return address, not a leaf, is no
 * frame to step; the leaf method saving rbp keeps the caller's rbp. */
static void test_step_from_edges(void **state)
{
	static struct mem m;
	struct jvm_reader rd = { walk_read, &m };
	struct jvm_proc p = { 0 };
	struct jvm_frame f;
	struct jvm_regs r;
	uint64_t blob = EDGE_CODE - 0x100, stack = BASE + 0x9000;
	int32_t words = 4, complete = 20;

	(void)state;
	memset(&m, 0, sizeof(m));
	p.code_low = BASE + 0x6f00 - 16, p.code_high = BASE + 0x8000, p.nheaps = 1;
	p.heaps[0] = (struct jvm_heap){ p.code_low, p.code_high, BASE + 0x8800, 12, 0 };
	p.heap_block = 16, p.blob_name = 96, p.blob_frame_size = 28, p.blob_code_begin = 32;
	p.blob_frame_complete = 20, p.compiled_method = 112, p.nmethod_verified_entry = 224;
	put(&m, BASE + 0x100, "nmethod", 8);
	put64(&m, blob + 96, BASE + 0x100);
	put(&m, blob + 28, &words, sizeof(words));
	put(&m, blob + 20, &complete, sizeof(complete));
	put64(&m, blob + 32, EDGE_CODE);
	put64(&m, blob + 112, 0x1230);
	put64(&m, blob + 224, EDGE_CODE + 8);
	put(&m, EDGE_CODE, calling, sizeof(calling));
	put64(&m, stack, 0x4440);     /* at pop rbp: the caller's rbp */
	put64(&m, stack + 8, 0x5550); /* then the return address */

	r = (struct jvm_regs){ EDGE_CODE + 27, stack, 0x42, 1 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_true(f.kind == JVM_KIND_NMETHOD && f.method == 0x1230 && f.blob == blob);
	assert_true(r.pc == 0x5550 && r.sp == stack + 16 && r.bp == 0x4440);
	r = (struct jvm_regs){ EDGE_CODE + 15, stack + 8, 0x42, 1 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_true(r.pc == 0x5550 && r.sp == stack + 16 && r.bp == 0x42);
	r = (struct jvm_regs){ EDGE_CODE + 2, stack + 8, 0x42, 1 }; /* the cache check */
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_true(r.pc == 0x5550 && r.sp == stack + 16);
	r = (struct jvm_regs){ EDGE_CODE + 15, stack + 8, 0x42, 0 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), -1);
	/* the leaf method at "mov [rsp + 0x10], rbp": the frame made, rbp the caller's */
	put(&m, EDGE_CODE, leaf, sizeof(leaf));
	put64(&m, blob + 224, EDGE_CODE);
	complete = 12;
	put(&m, blob + 20, &complete, sizeof(complete));
	put64(&m, stack + 24, 0x6660);
	r = (struct jvm_regs){ EDGE_CODE + 7, stack, 0x42, 1 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_true(r.pc == 0x6660 && r.sp == stack + 32 && r.bp == 0x42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_tables),
		cmocka_unit_test(test_line_at_bci),
		cmocka_unit_test(test_inlined_scopes),
		cmocka_unit_test(test_hostile_scopes),
		cmocka_unit_test(test_bytecode_index),
		cmocka_unit_test(test_entry_and_exit),
		cmocka_unit_test(test_step_from_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
