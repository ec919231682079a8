// SPDX-License-Identifier: MIT
/*
 * Where a Java frame is (src/unwind/jvm.h): the line of a bytecode index in a method's
 * compressed line number table, the bytecode index of an interpreted frame from the low
 * bits of its bcp, and the methods inlined at a compiled PC, read from a made-up
 * nmethod laid out as OpenJDK 17 lays one out (its offsets measured from its own tables,
 * docs/kernel.md §Java): its PcDescs, its scope data in HotSpot's UNSIGNED5 coding and
 * its metadata. Also what a hostile JVM may write there: scope chains that loop, indexes
 * past the metadata, a blob that is no nmethod, a PC outside its code. The same readers
 * against a running OpenJDK are in test_jvm_real.c.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_tables),
		cmocka_unit_test(test_line_at_bci),
		cmocka_unit_test(test_inlined_scopes),
		cmocka_unit_test(test_hostile_scopes),
		cmocka_unit_test(test_bytecode_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
