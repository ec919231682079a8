// SPDX-License-Identifier: MIT
/*
 * HotSpot's own tables (src/unwind/jvm.h): read from a real JVM, and refused, saying why,
 * from made-up memory that lies.
 *
 * The real JVM is Debian's OpenJDK 17 (/usr/lib/jvm/java-17-openjdk-amd64) running
 * tests/workloads/com/acme/Invoices.java (launched from its source: no javac needed);
 * its memory is read through /proc/PID/mem of this test's own child, the stand-in here
 * for the capture's reader. The test reads its layout, then finds its compiled methods
 * in the code cache by that layout alone and names them: the hot loop and the
 * recursion among them, the method kept interpreted not. Without that JDK its test
 * skips and says so.
 *
 * The made-up memory is one buffer at a fixed address holding the exported variables,
 * the three tables and their strings, built by struct image below; each refusal test
 * spoils one thing of a good image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind/jvm.h"
#include "jvm_walk.h"

#define JDK17 "/usr/lib/jvm/java-17-openjdk-amd64"
#define LIBJVM17 JDK17 "/lib/server/libjvm.so"

/* ---- made-up memory ---- */

#define IMG_BASE 0x7f0000000000ull
#define IMG_SIZE (2u << 20)
#define IMG_BIAS (IMG_BASE - 0x1000) /* libjvm's vaddr 0x1000 is the image's start */

struct image {
	unsigned char *mem;
	size_t used;	     /* bump allocator over mem */
	struct jvm_binary b; /* vaddrs: IMG_BIAS + vaddr is in mem */
	uint64_t structs, types, ints; /* table addresses */
	unsigned nstructs, ntypes, nints;
};

static int image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct image *img = ctx;

	if (addr < IMG_BASE || addr - IMG_BASE > IMG_SIZE || len > IMG_SIZE - (addr - IMG_BASE))
		return -EFAULT;
	memcpy(buf, img->mem + (addr - IMG_BASE), len);
	return 0;
}

static uint64_t image_alloc(struct image *img, size_t len)
{
	uint64_t at = IMG_BASE + img->used;

	assert_true(img->used + len <= IMG_SIZE);
	img->used += (len + 15) & ~(size_t)15;
	return at;
}

static void image_put(struct image *img, uint64_t addr, const void *v, size_t len)
{
	assert_true(addr >= IMG_BASE && addr - IMG_BASE + len <= IMG_SIZE);
	memcpy(img->mem + (addr - IMG_BASE), v, len);
}

static void image_u64(struct image *img, uint64_t addr, uint64_t v)
{
	image_put(img, addr, &v, sizeof(v));
}

static uint64_t image_get(struct image *img, uint64_t addr)
{
	uint64_t v = 0;

	assert_int_equal(image_read(img, addr, &v, sizeof(v)), 0);
	return v;
}

static uint64_t image_str(struct image *img, const char *s)
{
	uint64_t at = image_alloc(img, strlen(s) + 1);

	image_put(img, at, s, strlen(s) + 1);
	return at;
}

/* An exported variable holding v; its symbol is set to its vaddr. */
static void image_var(struct image *img, enum jvm_symbol sym, uint64_t v)
{
	uint64_t at = image_alloc(img, 8);

	image_u64(img, at, v);
	img->b.sym[sym] = at - IMG_BIAS;
}

/* OpenJDK 17's entries: VMStructEntry 48 bytes, VMTypeEntry 48, VMIntConstantEntry 16. */
static void image_field(struct image *img, const char *type, const char *field, int is_static,
			uint64_t offset, uint64_t address)
{
	uint64_t e = img->structs + (uint64_t)img->nstructs++ * 48;
	uint32_t st = (uint32_t)is_static;

	image_u64(img, e, image_str(img, type));
	image_u64(img, e + 8, image_str(img, field));
	image_u64(img, e + 16, 0);
	image_put(img, e + 24, &st, sizeof(st));
	image_u64(img, e + 32, offset);
	image_u64(img, e + 40, address);
}

static void image_type(struct image *img, const char *type, uint64_t size)
{
	uint64_t e = img->types + (uint64_t)img->ntypes++ * 48;

	image_u64(img, e, image_str(img, type));
	image_u64(img, e + 40, size);
}

static void image_int(struct image *img, const char *name, int32_t v)
{
	uint64_t e = img->ints + (uint64_t)img->nints++ * 16;

	image_u64(img, e, image_str(img, name));
	image_put(img, e + 8, &v, sizeof(v));
}

/* The fields OpenJDK 17 gives, with its offsets (measured on Debian's build). */
static void image_fields(struct image *img)
{
	image_field(img, "CodeCache", "_heaps", 1, 0, 0x7f1000000600);
	image_field(img, "CodeCache", "_low_bound", 1, 0, 0x7f1000000620);
	image_field(img, "CodeCache", "_high_bound", 1, 0, 0x7f1000000618);
	image_field(img, "GrowableArrayBase", "_len", 0, 0, 0);
	image_field(img, "GrowableArray<int>", "_data", 0, 8, 0);
	image_field(img, "CodeHeap", "_memory", 0, 8, 0);
	image_field(img, "CodeHeap", "_segmap", 0, 120, 0);
	image_field(img, "CodeHeap", "_log2_segment_size", 0, 256, 0);
	image_field(img, "VirtualSpace", "_low", 0, 16, 0);
	image_field(img, "VirtualSpace", "_high", 0, 24, 0);
	image_field(img, "CodeBlob", "_name", 0, 96, 0);
	image_field(img, "CodeBlob", "_size", 0, 12, 0);
	image_field(img, "CodeBlob", "_frame_size", 0, 28, 0);
	image_field(img, "CodeBlob", "_code_begin", 0, 32, 0);
	image_field(img, "CodeBlob", "_code_end", 0, 40, 0);
	image_field(img, "CodeBlob", "_frame_complete_offset", 0, 24, 0);
	image_field(img, "CompiledMethod", "_method", 0, 112, 0);
	image_field(img, "Method", "_constMethod", 0, 8, 0);
	image_field(img, "ConstMethod", "_constants", 0, 8, 0);
	image_field(img, "ConstMethod", "_name_index", 0, 34, 0);
	image_field(img, "ConstMethod", "_signature_index", 0, 36, 0);
	image_field(img, "ConstantPool", "_pool_holder", 0, 24, 0);
	image_field(img, "ConstantPool", "_length", 0, 60, 0);
	image_field(img, "Klass", "_name", 0, 24, 0);
	image_field(img, "Symbol", "_length", 0, 4, 0);
	image_field(img, "Symbol", "_body", 0, 6, 0);
}

/* ints: OpenJDK 17's two frame slots; method: the Method*'s slot too (17 has none). */
static void image_build_ints(struct image *img, bool fields, bool types, bool ints, bool method)
{
	memset(img, 0, sizeof(*img));
	img->mem = calloc(1, IMG_SIZE);
	assert_non_null(img->mem);
	img->used = 0x100; /* a few unmapped-looking zeros first */
	img->structs = image_alloc(img, 64 * 48);
	img->types = image_alloc(img, 16 * 48);
	img->ints = image_alloc(img, 16 * 16);
	image_var(img, JVM_SYM_STRUCTS, img->structs);
	image_var(img, JVM_SYM_STRUCT_STRIDE, 48);
	image_var(img, JVM_SYM_STRUCT_TYPE, 0);
	image_var(img, JVM_SYM_STRUCT_FIELD, 8);
	image_var(img, JVM_SYM_STRUCT_STATIC, 24);
	image_var(img, JVM_SYM_STRUCT_OFFSET, 32);
	image_var(img, JVM_SYM_STRUCT_ADDRESS, 40);
	image_var(img, JVM_SYM_TYPES, img->types);
	image_var(img, JVM_SYM_TYPE_STRIDE, 48);
	image_var(img, JVM_SYM_TYPE_NAME, 0);
	image_var(img, JVM_SYM_TYPE_SIZE, 40);
	image_var(img, JVM_SYM_INTS, img->ints);
	image_var(img, JVM_SYM_INT_STRIDE, 16);
	image_var(img, JVM_SYM_INT_NAME, 0);
	image_var(img, JVM_SYM_INT_VALUE, 8);
	/* entries a walker skips: other types, a field of a wanted type it does not read */
	image_field(img, "Thread", "_osthread", 0, 8, 0);
	image_field(img, "Method", "_method_data", 0, 16, 0);
	if (fields)
		image_fields(img);
	image_type(img, "Method", 88);
	if (types) {
		image_type(img, "ConstantPool", 72);
		image_type(img, "HeapBlock", 16);
	}
	image_int(img, "frame::pc_return_offset", 0);
	if (ints) {
		image_int(img, "frame::interpreter_frame_sender_sp_offset", -1);
		image_int(img, "frame::interpreter_frame_last_sp_offset", -2);
	}
	if (method) {
		image_int(img, "frame::interpreter_frame_method_offset", -3);
		image_int(img, "frame::interpreter_frame_bcp_offset", -8);
	}
}

static void image_build(struct image *img, bool fields, bool types, bool ints)
{
	image_build_ints(img, fields, types, ints, ints);
}

static void image_free(struct image *img)
{
	free(img->mem);
}

static enum jvm_refusal image_layout(struct image *img, struct jvm_layout *l)
{
	return jvm_layout__read(&img->b, IMG_BIAS, image_read, img, l);
}

static void test_image_read(void **state)
{
	struct image img;
	struct jvm_layout l;

	(void)state;
	image_build(&img, true, true, true);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	assert_int_equal(l.entries, img.nstructs);
	assert_int_equal(l.code_cache_heaps, 0x7f1000000600);
	assert_int_equal(l.code_cache_low, 0x7f1000000620);
	assert_int_equal(l.code_cache_high, 0x7f1000000618);
	assert_int_equal(l.method_const, 8);
	assert_int_equal(l.const_method_name, 34);
	assert_int_equal(l.const_method_signature, 36);
	assert_int_equal(l.compiled_method, 112);
	assert_int_equal(l.blob_frame_size, 28);
	assert_int_equal(l.pool_size, 72);
	assert_int_equal(l.symbol_body, 6);
	assert_int_equal(l.interp_method, -3);
	assert_int_equal(l.interp_bcp, -8);
	assert_string_equal(l.missing, "");
	image_free(&img);

	/* 17 exports no Method* slot: derived from last_sp's, x86-64's layout */
	image_build_ints(&img, true, true, true, false);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	assert_int_equal(l.interp_method, -3);
	assert_int_equal(l.interp_bcp, 0);
	image_free(&img);
}

static void test_refuses_missing(void **state)
{
	struct image img;
	struct jvm_layout l;

	(void)state;
	image_build(&img, false, true, true);
	assert_int_equal(image_layout(&img, &l), JVM_MISSING_FIELD);
	assert_string_equal(l.missing, "CodeCache::_heaps");
	image_free(&img);

	image_build(&img, true, false, true);
	assert_int_equal(image_layout(&img, &l), JVM_MISSING_FIELD);
	assert_string_equal(l.missing, "HeapBlock");
	image_free(&img);

	image_build(&img, true, true, false);
	assert_int_equal(image_layout(&img, &l), JVM_MISSING_FIELD);
	assert_string_equal(l.missing, "frame::interpreter_frame_sender_sp_offset");
	image_free(&img);

	/* no Method* slot, and a frame layout it cannot be derived from */
	image_build_ints(&img, true, true, false, false);
	image_int(&img, "frame::interpreter_frame_sender_sp_offset", -1);
	image_int(&img, "frame::interpreter_frame_last_sp_offset", -4);
	assert_int_equal(image_layout(&img, &l), JVM_MISSING_FIELD);
	assert_string_equal(l.missing, "frame::interpreter_frame_method_offset");
	image_free(&img);
}

static void test_refuses_no_tables(void **state)
{
	struct image img;
	struct jvm_layout l;

	(void)state;
	image_build(&img, true, true, true);
	img.b.sym[JVM_SYM_TYPE_SIZE] = 0;
	assert_int_equal(image_layout(&img, &l), JVM_NO_TABLES);
	memset(&img.b, 0, sizeof(img.b));
	assert_int_equal(image_layout(&img, &l), JVM_NO_TABLES);
	image_free(&img);
}

static void test_refuses_unreadable(void **state)
{
	struct image img;
	struct jvm_layout l;

	(void)state;
	image_build(&img, true, true, true);
	/* the exported variable outside the process */
	img.b.sym[JVM_SYM_STRUCT_STRIDE] = 0x10;
	assert_int_equal(image_layout(&img, &l), JVM_UNREADABLE);
	image_free(&img);

	/* the table's pointer into nothing */
	image_build(&img, true, true, true);
	image_u64(&img, IMG_BIAS + img.b.sym[JVM_SYM_STRUCTS], 0x1000);
	assert_int_equal(image_layout(&img, &l), JVM_UNREADABLE);
	image_free(&img);
}

static void set_var(struct image *img, enum jvm_symbol sym, uint64_t v)
{
	image_u64(img, IMG_BIAS + img->b.sym[sym], v);
}

static void test_refuses_bad_strides(void **state)
{
	static const uint64_t bad[] = { 0, 8, 12, 50, JVM_MAX_STRIDE + 8, UINT64_MAX };
	struct image img;
	struct jvm_layout l;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		image_build(&img, true, true, true);
		set_var(&img, JVM_SYM_STRUCT_STRIDE, bad[i]);
		assert_int_equal(image_layout(&img, &l), JVM_BAD_TABLE);
		image_free(&img);
	}
	/* a field offset past the entry */
	image_build(&img, true, true, true);
	set_var(&img, JVM_SYM_STRUCT_OFFSET, 48);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_TABLE);
	image_free(&img);
	/* a table at 0 */
	image_build(&img, true, true, true);
	set_var(&img, JVM_SYM_INTS, 0);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_TABLE);
	image_free(&img);
	/* a table whose last entry would wrap */
	image_build(&img, true, true, true);
	set_var(&img, JVM_SYM_TYPES, UINT64_MAX - 4096);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_TABLE);
	image_free(&img);
}

/* A table without its NULL end: every entry names a type nobody wants, as far as the
 * memory goes; the walk stops at JVM_MAX_ENTRIES, not at the end of the process. */
static void test_refuses_endless_table(void **state)
{
	struct image img;
	struct jvm_layout l;
	uint64_t name;

	(void)state;
	image_build(&img, true, true, true);
	name = image_str(&img, "Nothing");
	/* stride 16 over a region of 16384 + 16 entries, each naming "Nothing" */
	img.structs = image_alloc(&img, (JVM_MAX_ENTRIES + 16) * 16);
	for (unsigned i = 0; i < JVM_MAX_ENTRIES + 16; i++)
		image_u64(&img, img.structs + i * 16ull, name);
	set_var(&img, JVM_SYM_STRUCTS, img.structs);
	set_var(&img, JVM_SYM_STRUCT_STRIDE, 16);
	set_var(&img, JVM_SYM_STRUCT_FIELD, 0);
	set_var(&img, JVM_SYM_STRUCT_STATIC, 0);
	set_var(&img, JVM_SYM_STRUCT_OFFSET, 8);
	set_var(&img, JVM_SYM_STRUCT_ADDRESS, 8);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_TABLE);
	image_free(&img);
}

static void test_refuses_bad_values(void **state)
{
	struct image img;
	struct jvm_layout l;
	char longname[JVM_MAX_NAME * 2];

	(void)state;
	/* an offset past any HotSpot structure */
	image_build(&img, false, true, true);
	image_field(&img, "CodeBlob", "_frame_size", 0, JVM_MAX_OFFSET + 1, 0);
	image_fields(&img);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_OFFSET);
	assert_string_equal(l.missing, "CodeBlob::_frame_size");
	image_free(&img);

	/* a static field said not to be static */
	image_build(&img, false, true, true);
	image_field(&img, "CodeCache", "_heaps", 0, 0, 0);
	image_fields(&img);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_OFFSET);
	assert_string_equal(l.missing, "CodeCache::_heaps");
	image_free(&img);

	/* a frame offset hundreds of words from rbp */
	image_build_ints(&img, true, true, true, false);
	image_int(&img, "frame::interpreter_frame_method_offset", -1000);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_OFFSET);
	image_free(&img);

	/* Symbol::_body before its _length */
	image_build(&img, false, true, true);
	image_field(&img, "Symbol", "_body", 0, 2, 0);
	image_fields(&img);
	assert_int_equal(image_layout(&img, &l), JVM_BAD_OFFSET);
	assert_string_equal(l.missing, "Symbol::_body");
	image_free(&img);

	/* names without their NUL within the bound are no one's: skipped, the rest read */
	image_build(&img, false, true, true);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	image_field(&img, longname, longname, 0, 8, 0);
	image_fields(&img);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	image_free(&img);
}

/* A Method, its ConstMethod, pool, holder and two Symbols in the image. */
static uint64_t image_symbol(struct image *img, const char *text)
{
	uint64_t at = image_alloc(img, 8 + strlen(text));
	uint16_t len = (uint16_t)strlen(text);

	image_put(img, at + 4, &len, sizeof(len));
	image_put(img, at + 6, text, len);
	return at;
}

static uint64_t image_method(struct image *img, const char *klass, const char *name,
			     uint16_t index, int32_t pool_len)
{
	uint64_t method = image_alloc(img, 88), cm = image_alloc(img, 48);
	uint64_t pool = image_alloc(img, 72 + 8 * 8), holder = image_alloc(img, 64);

	image_u64(img, method + 8, cm);
	image_u64(img, cm + 8, pool);
	image_put(img, cm + 34, &index, sizeof(index));
	image_u64(img, pool + 24, holder);
	image_put(img, pool + 60, &pool_len, sizeof(pool_len));
	image_u64(img, pool + 72 + 8 * 5, image_symbol(img, name));
	image_u64(img, holder + 24, image_symbol(img, klass));
	return method;
}

static void test_method_names(void **state)
{
	char buf[JVM_MAX_METHOD_NAME], *longname;
	struct image img;
	struct jvm_layout l;
	uint64_t m;

	(void)state;
	image_build(&img, true, true, true);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	m = image_method(&img, "com/acme/Invoices", "computeTotals", 5, 8);
	assert_int_equal(jvm_method__name(&l, image_read, &img, m, buf), 0);
	assert_string_equal(buf, "com.acme.Invoices.computeTotals");
	/* a name index past the pool, or 0 */
	m = image_method(&img, "com/acme/Invoices", "computeTotals", 9, 8);
	assert_int_equal(jvm_method__name(&l, image_read, &img, m, buf), -EINVAL);
	m = image_method(&img, "com/acme/Invoices", "computeTotals", 5, -1);
	assert_int_equal(jvm_method__name(&l, image_read, &img, m, buf), -EINVAL);
	/* a Method pointer into nothing, misaligned, 0; a ConstMethod of 0 */
	assert_int_equal(jvm_method__name(&l, image_read, &img, 0x1000, buf), -EFAULT);
	assert_int_equal(jvm_method__name(&l, image_read, &img, m + 1, buf), -EINVAL);
	assert_int_equal(jvm_method__name(&l, image_read, &img, 0, buf), -EINVAL);
	assert_int_equal(jvm_method__name(&l, image_read, &img, image_alloc(&img, 88), buf),
			 -EINVAL);
	/* an empty name; a name of 65535 bytes is cut at JVM_MAX_SYMBOL */
	m = image_method(&img, "com/acme/Invoices", "", 5, 8);
	assert_int_equal(jvm_method__name(&l, image_read, &img, m, buf), -EINVAL);
	assert_string_equal(buf, "");
	/* a class name with a NUL inside (found by fuzz_jvm: its first bytes were left) */
	m = image_method(&img, "com/acme/Invoices", "run", 5, 8);
	image_put(&img, image_get(&img, image_get(&img, image_get(&img, image_get(&img, m + 8) + 8) +
						       24) + 24) + 6 + 3, "", 1);
	assert_int_equal(jvm_method__name(&l, image_read, &img, m, buf), -EINVAL);
	assert_string_equal(buf, "");
	longname = malloc(70000);
	assert_non_null(longname);
	memset(longname, 'k', 69999);
	longname[69999] = '\0';
	m = image_method(&img, "a/B", "run", 5, 8);
	{
		uint64_t cm = image_get(&img, m + 8), pool = image_get(&img, cm + 8);
		uint64_t holder = image_get(&img, pool + 24), sym = image_alloc(&img, 70000);
		uint16_t len = 65535;

		image_put(&img, sym + 4, &len, sizeof(len));
		image_put(&img, sym + 6, longname, 65535);
		image_u64(&img, holder + 24, sym);
	}
	assert_int_equal(jvm_method__name(&l, image_read, &img, m, buf), 0);
	assert_int_equal(strlen(buf), JVM_MAX_SYMBOL + strlen(".run"));
	free(longname);
	image_free(&img);
}

static int image_walk_read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	return image_read(ctx, addr, dst, size);
}

/*
 * The frame step over a made-up code heap of 128-byte segments: an nmethod of four
 * (frame of 4 words, built 8 bytes into its code), the interpreter in two, a free one,
 * and a stack of the nmethod's frame over an interpreted one over a native caller.
 */
static void test_walk_frames(void **state)
{
	static const __u8 segmap[] = { 0, 1, 2, 3, 0, 1, 0xff, 0, 1, 1, 1 };
	struct image img;
	struct jvm_reader rd = { image_walk_read, &img };
	struct jvm_proc p = { 0 };
	struct jvm_frame f;
	struct jvm_regs r;
	uint64_t low, map, a, b, stack, fp;
	int32_t words = 4, complete = 8;

	(void)state;
	image_build(&img, true, true, true);
	low = image_alloc(&img, 16 * 128);
	map = image_alloc(&img, sizeof(segmap));
	image_put(&img, map, segmap, sizeof(segmap));
	p.code_low = low;
	p.code_high = low + 16 * 128;
	p.nheaps = 1;
	p.heaps[0] = (struct jvm_heap){ low, low + 11 * 128, map, 7, 0 };
	p.heap_block = 16, p.blob_name = 96, p.blob_frame_size = 28, p.blob_code_begin = 32;
	p.blob_frame_complete = 24, p.compiled_method = 112, p.interp_method = -3;
	a = low + 16;
	b = low + 4 * 128 + 16;
	image_u64(&img, a + 96, image_str(&img, "nmethod"));
	image_u64(&img, a + 112, 0x1230);
	image_put(&img, a + 28, &words, sizeof(words));
	image_u64(&img, a + 32, low + 128);
	image_put(&img, a + 24, &complete, sizeof(complete));
	image_u64(&img, b + 96, image_str(&img, "Interpreter"));
	/* the stack: the nmethod's 4 words (return into the interpreter, its rbp), then
	 * the interpreted frame: Method* at rbp - 24, return to 0x999, caller's rbp 0 */
	stack = image_alloc(&img, 256);
	fp = stack + 128;
	image_u64(&img, stack + 24, b + 100);
	image_u64(&img, stack + 16, fp);
	image_u64(&img, fp - 24, 0x5670);
	image_u64(&img, fp + 8, 0x999);
	image_u64(&img, fp, 0);

	r = (struct jvm_regs){ low + 200, stack, 0x42 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_int_equal(f.kind, JVM_KIND_NMETHOD);
	assert_int_equal(f.method, 0x1230);
	assert_int_equal(r.pc, b + 100);
	assert_int_equal(r.sp, stack + 32);
	assert_int_equal(r.bp, fp);
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_int_equal(f.kind, JVM_KIND_INTERPRETER);
	assert_int_equal(f.method, 0x5670);
	assert_int_equal(r.pc, 0x999);
	assert_int_equal(r.sp, fp + 16);
	assert_int_equal(r.bp, 0);
	/* native code: not the JVM's */
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), -1);
	assert_int_equal(f.kind, JVM_KIND_NONE);

	/* the prologue: the frame is not built yet */
	r = (struct jvm_regs){ low + 128 + 2, stack, 0x42 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), -1);
	assert_int_equal(f.kind, JVM_KIND_NMETHOD);
	/* a free segment; a segment map that steps back past the heap's start, directly
	 * (segment 7 says 9) or through others (10, 9, 8, then 7) */
	assert_int_equal(jvm_walk__blob(&rd, &p, low + 6 * 128 + 5), 0);
	image_put(&img, map + 7, "\x09", 1);
	assert_int_equal(jvm_walk__blob(&rd, &p, low + 7 * 128 + 5), 0);
	assert_int_equal(jvm_walk__blob(&rd, &p, low + 10 * 128 + 5), 0);
	/* outside the heap, the cache */
	assert_int_equal(jvm_walk__blob(&rd, &p, low + 12 * 128), 0);
	assert_int_equal(jvm_walk__blob(&rd, &p, low - 1), 0);
	/* an interpreted frame whose rbp is not a frame's */
	r = (struct jvm_regs){ b + 100, stack, 0x43 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), -1);
	r = (struct jvm_regs){ b + 100, stack, 0x1000 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), -1);
	image_free(&img);
}

/* A segment map of 1s longer than the walker's steps: refused, not followed. */
static void test_walk_endless_segmap(void **state)
{
	struct image img;
	struct jvm_reader rd = { image_walk_read, &img };
	struct jvm_proc p = { 0 };
	uint64_t low, map;
	unsigned n = 4 * JVM_SEGMAP_STEPS;

	(void)state;
	image_build(&img, true, true, true);
	low = image_alloc(&img, n * 16);
	map = image_alloc(&img, n);
	memset(img.mem + (map - IMG_BASE), 1, n);
	img.mem[map - IMG_BASE] = 0;
	p.code_low = low;
	p.code_high = low + n * 16;
	p.nheaps = 1;
	p.heaps[0] = (struct jvm_heap){ low, low + n * 16, map, 4, 0 };
	p.heap_block = 16;
	assert_int_equal(jvm_walk__blob(&rd, &p, low + 5 * 16), low + 16);
	assert_int_equal(jvm_walk__blob(&rd, &p, low + (n - 1) * 16), 0);
	image_free(&img);
}

static void test_refusal_messages(void **state)
{
	(void)state;
	for (int why = JVM_OK; why <= JVM_BAD_OFFSET; why++)
		assert_true(jvm_refusal__msg((enum jvm_refusal)why) >= 0);
	assert_int_not_equal(jvm_refusal__msg(JVM_MISSING_FIELD), jvm_refusal__msg(JVM_BAD_TABLE));
}

/* ---- libjvm.so itself ---- */

static void test_binary_symbols(void **state)
{
	struct jvm_binary b;
	int fd;

	(void)state;
	assert_true(jvm_binary__is_candidate("/usr/lib/jvm/x/lib/server/libjvm.so"));
	assert_false(jvm_binary__is_candidate("/usr/lib/libjvm.so.1"));
	assert_false(jvm_binary__is_candidate(NULL));

	fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(jvm_binary__read(fd, &b), -ENOENT);
	assert_int_equal(b.sym[JVM_SYM_STRUCTS], 0);
	close(fd);

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(jvm_binary__read(fd, &b), -ENOEXEC);
	close(fd);

	fd = open(LIBJVM17, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		print_message("skipped: no " LIBJVM17 "\n");
		skip();
	}
	assert_int_equal(jvm_binary__read(fd, &b), 0);
	close(fd);
	for (int i = 0; i < JVM_SYM_COUNT; i++)
		assert_int_not_equal(b.sym[i], 0);
	/* measured: readelf --dyn-syms on Debian's 17.0.15 build */
	print_message("gHotSpotVMStructs at %#llx\n", (unsigned long long)b.sym[JVM_SYM_STRUCTS]);
}

/* ---- a real JVM ---- */

struct proc_mem {
	int fd;
};

static int proc_mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct proc_mem *m = ctx;
	ssize_t n = pread(m->fd, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* The bias of the first mapping of libjvm.so in pid (start - file offset), or 0. */
static uint64_t libjvm_bias(int pid, char *path, size_t pathlen)
{
	char name[64], line[512];
	uint64_t bias = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char file[400];

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %399s", &start, &end, &off, file) != 4)
			continue;
		if (jvm_binary__is_candidate(file)) {
			bias = start - off;
			snprintf(path, pathlen, "%s", file);
			break;
		}
	}
	fclose(f);
	return bias;
}

/* What a scan of the code cache found: nmethods, those named, and whether the hot
 * loop, the recursion and the interpreted method were among them. */
struct scan {
	unsigned nmethods, named;
	bool hot, recursion, interpreted;
	/* the walker's lookup of a PC in the middle of each blob's code */
	unsigned blobs, found, interpreters;
};

static int read_u64p(struct proc_mem *m, uint64_t addr, uint64_t *v)
{
	return proc_mem_read(m, addr, v, sizeof(*v));
}

static int walk_read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	return proc_mem_read(ctx, addr, dst, size);
}

/* Whether jvm_walk__blob finds blob from a PC in its code, and as what kind. */
static void check_lookup(const struct jvm_layout *l, struct proc_mem *m, const struct jvm_proc *p,
			 uint64_t blob, const char *kind, struct scan *out)
{
	struct jvm_reader rd = { walk_read, m };
	uint64_t begin, end;
	__u32 want = strcmp(kind, "nmethod") == 0 ? JVM_KIND_NMETHOD
		     : strncmp(kind, "Interpre", 8) == 0 ? JVM_KIND_INTERPRETER
							 : JVM_KIND_STUB;

	if (read_u64p(m, blob + l->blob_code_begin, &begin) ||
	    read_u64p(m, blob + l->blob_code_end, &end) || end <= begin)
		return;
	out->blobs++;
	if (jvm_walk__blob(&rd, p, begin + (end - begin) / 2) == blob &&
	    jvm_walk__blob(&rd, p, begin) == blob && jvm_walk__blob(&rd, p, end - 1) == blob &&
	    jvm_walk__kind(&rd, p, blob) == want)
		out->found++;
	out->interpreters += want == JVM_KIND_INTERPRETER;
}

/*
 * Every compiled method of the JVM, found as the frame walker will find a PC's: the
 * code heaps (CodeCache::_heaps, a GrowableArray of CodeHeap*), each heap's committed
 * memory (VirtualSpace _low.._high) a run of HeapBlocks (OpenJDK 17: a 16-byte header,
 * its length in segments, then the CodeBlob), an nmethod's Method* at
 * CompiledMethod::_method, named by jvm_method__name. Test scaffolding: bounded, and
 * any read that fails ends the heap.
 */
static void scan_code_cache(const struct jvm_layout *l, struct proc_mem *m, struct scan *out)
{
	uint64_t ga, data, heap, low, high;
	uint32_t nheaps = 0, log2seg = 0;
	struct jvm_proc p;

	memset(out, 0, sizeof(*out));
	if (jvm_proc__init(l, proc_mem_read, m, &p))
		return;
	if (read_u64p(m, l->code_cache_heaps, &ga) ||
	    proc_mem_read(m, ga + l->growable_len, &nheaps, sizeof(nheaps)) ||
	    read_u64p(m, ga + l->growable_data, &data))
		return;
	for (uint32_t h = 0; h < nheaps && h < 8; h++) {
		if (read_u64p(m, data + 8ull * h, &heap) ||
		    read_u64p(m, heap + l->heap_memory + l->vspace_low, &low) ||
		    read_u64p(m, heap + l->heap_memory + l->vspace_high, &high) ||
		    proc_mem_read(m, heap + l->heap_log2_segment, &log2seg, sizeof(log2seg)) ||
		    log2seg > 16)
			continue;
		for (unsigned n = 0; low < high && n < (1u << 20); n++) {
			uint64_t len = 0, blob = low + 16, name_at, method;
			uint8_t used = 0;
			char kind[16] = "", name[JVM_MAX_METHOD_NAME];

			if (read_u64p(m, low, &len) || proc_mem_read(m, low + 8, &used, 1) || !len)
				break;
			low += len << log2seg;
			if (!used || read_u64p(m, blob + l->blob_name, &name_at) ||
			    proc_mem_read(m, name_at, kind, sizeof(kind) - 1))
				continue;
			check_lookup(l, m, &p, blob, kind, out);
			if (strcmp(kind, "nmethod") != 0)
				continue;
			out->nmethods++;
			if (read_u64p(m, blob + l->compiled_method, &method) ||
			    jvm_method__name(l, proc_mem_read, m, method, name))
				continue;
			out->named++;
			out->hot |= strcmp(name, "com.acme.Invoices.computeTotals") == 0;
			out->recursion |= strcmp(name, "com.acme.Invoices.descend") == 0;
			out->interpreted |= strcmp(name, "com.acme.Invoices.auditOnce") == 0;
		}
	}
}

static void test_real_jvm(void **state)
{
	struct jvm_binary b;
	struct jvm_layout l;
	struct proc_mem m = { -1 };
	struct scan scan = { 0 };
	enum jvm_refusal why = JVM_UNREADABLE;
	char path[400] = "", name[64];
	uint64_t bias = 0;
	pid_t pid;
	int fd;

	(void)state;
	if (access(JDK17 "/bin/java", X_OK) != 0) {
		print_message("skipped: no OpenJDK 17 at " JDK17 "\n");
		skip();
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl(JDK17 "/bin/java", "java", "-XX:CompileCommand=quiet",
		      "-XX:CompileCommand=exclude,com.acme.Invoices::auditOnce",
		      "tests/workloads/com/acme/Invoices.java", (char *)NULL);
		_exit(127);
	}
	/* The tables are filled by the JVM's static initialisers, the library mapped a
	 * moment after exec: poll, on a loaded machine for up to 60 s. */
	for (int i = 0; i < 600 && why != JVM_OK; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (!bias)
			bias = libjvm_bias(pid, path, sizeof(path));
		if (!bias)
			continue;
		if (m.fd < 0) {
			fd = open(path, O_RDONLY | O_CLOEXEC);
			assert_true(fd >= 0);
			assert_int_equal(jvm_binary__read(fd, &b), 0);
			close(fd);
			snprintf(name, sizeof(name), "/proc/%d/mem", pid);
			m.fd = open(name, O_RDONLY | O_CLOEXEC);
			assert_true(m.fd >= 0);
		}
		why = jvm_layout__read(&b, bias, proc_mem_read, &m, &l);
	}
	/* then its methods, named from their nmethods once compiled (seconds; a minute
	 * on a loaded machine at most) */
	for (int i = 0; i < 600 && why == JVM_OK && !(scan.hot && scan.recursion); i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		scan_code_cache(&l, &m, &scan);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (m.fd >= 0)
		close(m.fd);
	assert_int_equal(why, JVM_OK);
	print_message("%s: %u field entries\n", path, l.entries);
	assert_true(l.entries > 500 && l.entries < JVM_MAX_ENTRIES);
	/* OpenJDK 17's layout (measured 2026-12-05, docs/kernel.md §Java) */
	assert_int_equal(l.method_const, 8);
	assert_int_equal(l.const_method_constants, 8);
	assert_int_equal(l.const_method_name, 34);
	assert_int_equal(l.const_method_signature, 36);
	assert_int_equal(l.pool_holder, 24);
	assert_int_equal(l.pool_size, 72);
	assert_int_equal(l.klass_name, 24);
	assert_int_equal(l.symbol_length, 4);
	assert_int_equal(l.symbol_body, 6);
	assert_int_equal(l.blob_frame_size, 28);
	assert_int_equal(l.compiled_method, 112);
	assert_int_equal(l.interp_method, -3);
	assert_int_equal(l.interp_sender_sp, -1);
	print_message("code cache: %u nmethods, %u named; %u of %u blobs found from a PC by "
		      "jvm_walk__blob, %u interpreter\n", scan.nmethods, scan.named, scan.found,
		      scan.blobs, scan.interpreters);
	/* the JVM frees and moves code while it is read: all but a few */
	assert_true(scan.found * 100 >= scan.blobs * 99);
	assert_true(scan.interpreters >= 1);
	assert_true(scan.hot);
	assert_true(scan.recursion);
	assert_false(scan.interpreted); /* excluded from compilation: never an nmethod */
	assert_true(scan.named * 10 >= scan.nmethods * 9);
	/* statics lie in libjvm.so's own data */
	assert_true(l.code_cache_heaps > bias && l.code_cache_low > bias && l.code_cache_high > bias);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image_read),
		cmocka_unit_test(test_refuses_missing),
		cmocka_unit_test(test_refuses_no_tables),
		cmocka_unit_test(test_refuses_unreadable),
		cmocka_unit_test(test_refuses_bad_strides),
		cmocka_unit_test(test_refuses_endless_table),
		cmocka_unit_test(test_refuses_bad_values),
		cmocka_unit_test(test_method_names),
		cmocka_unit_test(test_walk_frames),
		cmocka_unit_test(test_walk_endless_segmap),
		cmocka_unit_test(test_refusal_messages),
		cmocka_unit_test(test_binary_symbols),
		cmocka_unit_test(test_real_jvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
