// SPDX-License-Identifier: MIT
/*
 * HotSpot's own tables (src/unwind/jvm.h) refused, saying why, from made-up memory that
 * lies; a Method named and frames stepped on it. The real JVM's test is test_jvm_real.c.
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
	/* a Method's source file and line */
	image_field(img, "ConstantPool", "_source_file_name_index", 0, 54, 0);
	image_field(img, "ConstMethod", "_constMethod_size", 0, 24, 0);
	image_field(img, "ConstMethod", "_flags", 0, 28, 0);
	image_field(img, "ConstMethod", "_code_size", 0, 32, 0);
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
		image_type(img, "ConstMethod", 48);
	}
	image_int(img, "frame::pc_return_offset", 0);
	if (ints) {
		image_int(img, "frame::interpreter_frame_sender_sp_offset", -1);
		image_int(img, "frame::interpreter_frame_last_sp_offset", -2);
		image_int(img, "ConstMethod::_has_linenumber_table", 1);
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

	/* 17 exports no Method* slot (nor the bcp's): derived from last_sp's, x86-64's */
	image_build_ints(&img, true, true, true, false);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	assert_int_equal(l.interp_method, -3);
	assert_int_equal(l.interp_bcp, -8);
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

/* javac's line number table of Invoices.computeTotals (javap -l: line 21 at bci 0, 22
 * at 2, 23 at 12, 22 at 27, 24 at 33), compressed as HotSpot keeps it: 0xFF and two
 * zigzag ints where a pair's deltas do not fit a byte's 5 and 3 bits, 0 at its end. */
static const uint8_t compute_totals_lines[] = {
	0xff, 0x00, 0x2a, /* (0, 21) */
	0x11,		  /* (+2, +1) */
	0x51,		  /* (+10, +1) */
	0xff, 0x1e, 0x01, /* (+15, -1) */
	0x32,		  /* (+6, +2) */
	0x00,
};

/* A Method as image_method's, with its class's source file in the pool's slot 6 (index
 * at 54) and a ConstMethod of 4 bytes of code followed by a line table. */
static uint64_t image_method_source(struct image *img, const char *klass, const char *source,
				    const uint8_t *table, size_t len)
{
	uint64_t method = image_method(img, klass, "computeTotals", 5, 8), pool;
	size_t size = (48 + 4 + len + 7) & ~(size_t)7;
	uint64_t cm = image_alloc(img, size);
	uint16_t flags = 1, code = 4, index = 6;
	int32_t words = (int32_t)(size / 8);

	pool = image_get(img, image_get(img, method + 8) + 8);
	image_put(img, cm, img->mem + (image_get(img, method + 8) - IMG_BASE), 48);
	image_u64(img, method + 8, cm);
	image_put(img, cm + 24, &words, sizeof(words));
	image_put(img, cm + 28, &flags, sizeof(flags));
	image_put(img, cm + 32, &code, sizeof(code));
	image_put(img, cm + 48, "\x1a\x1b\x1c\x1d", 4);
	image_put(img, cm + 52, table, len);
	image_put(img, pool + 54, &index, sizeof(index));
	image_u64(img, pool + 72 + 8 * 6, image_symbol(img, source));
	return method;
}

#define SOURCE(layout, m) jvm_method__source(layout, image_read, &img, m, -1, file, &line, NULL)

static void test_method_source(void **state)
{
	char file[JVM_MAX_SOURCE_FILE];
	struct image img;
	struct jvm_layout l, none;
	int32_t line;
	uint64_t m;

	(void)state;
	image_build(&img, true, true, true);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	assert_int_equal(l.pool_source_file, 54);
	assert_int_equal(l.const_method_size, 48);
	assert_int_equal(l.has_line_table, 1);
	m = image_method_source(&img, "com/acme/Invoices", "Invoices.java", compute_totals_lines,
				sizeof(compute_totals_lines));
	assert_int_equal(SOURCE(&l, m), 0);
	assert_string_equal(file, "com/acme/Invoices.java");
	assert_int_equal(line, 21);
	/* a nested class: its file is its outer class's; a class in no package */
	m = image_method_source(&img, "com/acme/Invoices$Settlement", "Invoices.java",
				compute_totals_lines, sizeof(compute_totals_lines));
	assert_int_equal(SOURCE(&l, m), 0);
	assert_string_equal(file, "com/acme/Invoices.java");
	m = image_method_source(&img, "Main", "Main.java", compute_totals_lines,
				sizeof(compute_totals_lines));
	assert_int_equal(SOURCE(&l, m), 0);
	assert_string_equal(file, "Main.java");
	/* a table without its end inside the ConstMethod: no line, the file all the same */
	m = image_method_source(&img, "a/B", "B.java", compute_totals_lines, 4);
	assert_int_equal(SOURCE(&l, m), 0);
	assert_string_equal(file, "a/B.java");
	assert_int_equal(line, 0);
	/* the flag unset (a native method's), a source file with a slash in it */
	m = image_method_source(&img, "a/B", "x/B.java", compute_totals_lines,
				sizeof(compute_totals_lines));
	image_put(&img, image_get(&img, m + 8) + 28, "\0\0", 2);
	assert_int_equal(SOURCE(&l, m), 0);
	assert_string_equal(file, "");
	assert_int_equal(line, 0);
	/* a layout without them: neither, and the name is had as before */
	none = l;
	none.pool_source_file = none.has_line_table = 0;
	m = image_method_source(&img, "com/acme/Invoices", "Invoices.java", compute_totals_lines,
				sizeof(compute_totals_lines));
	assert_int_equal(SOURCE(&none, m), 0);
	assert_string_equal(file, "");
	assert_int_equal(line, 0);
	/* not a Method: as jvm_method__name */
	assert_int_equal(SOURCE(&l, m + 1), -EINVAL);
	assert_int_equal(SOURCE(&l, 0x1000), -EFAULT);
	image_free(&img);

	/* tables that give them out of place: the layout is read, without them */
	image_build(&img, true, true, true);
	image_field(&img, "ConstantPool", "_source_file_name_index", 0, 71, 0);
	image_field(&img, "ConstMethod", "_code_size", 1, 0, 0x7f1000000000);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	assert_int_equal(l.pool_source_file, 54); /* the first entry is taken */
	image_free(&img);
	image_build(&img, false, true, true);
	image_fields(&img);
	image_int(&img, "ConstMethod::_has_linenumber_table", 3);
	assert_int_equal(image_layout(&img, &l), JVM_OK);
	assert_int_equal(l.has_line_table, 1);
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
	/* a stub without a frame size (the call stub): by its rbp, when above sp */
	image_put(&img, map + 7, "\x00", 1);
	image_u64(&img, low + 7 * 128 + 16 + 96, image_str(&img, "StubRoutines (1)"));
	image_u64(&img, stack + 64, 0x4242);
	image_u64(&img, stack + 72, 0x777);
	r = (struct jvm_regs){ low + 8 * 128, stack, stack + 64 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), 0);
	assert_int_equal(f.kind, JVM_KIND_STUB);
	assert_int_equal(f.method, 0);
	assert_int_equal(r.pc, 0x777);
	assert_int_equal(r.sp, stack + 80);
	assert_int_equal(r.bp, 0x4242);
	r = (struct jvm_regs){ low + 8 * 128, stack + 64, stack + 8 };
	assert_int_equal(jvm_walk__frame(&rd, &p, &r, &f), -1);
	assert_int_equal(f.kind, JVM_KIND_STUB);
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
		cmocka_unit_test(test_method_source),
		cmocka_unit_test(test_walk_frames),
		cmocka_unit_test(test_walk_endless_segmap),
		cmocka_unit_test(test_refusal_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
