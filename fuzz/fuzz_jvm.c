// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over HotSpot's tables (src/unwind/jvm.h): the bytes are a process's
 * memory, whatever a JVM (or anything calling itself libjvm.so) writes there. Their
 * first JVM_SYM_COUNT words are where the exported variables are (offsets into the
 * bytes); jvm_layout__read must return, within its bounds, either a refusal or a layout
 * whose offsets the frame walker can use. The same bytes as a file go to
 * jvm_binary__read, and the word after the symbols' is a Method* for jvm_method__name
 * and jvm_method__source (its file and the line at a bytecode), jvm_method__bci, and as
 * an nmethod for jvm_nmethod__scopes (the methods inlined at a PC), the bytes themselves
 * a compressed line number table; a layout accepted is turned into the walker's record
 * (jvm_proc__init). The same bytes go to V8's readers too (fuzz_v8: a function's name,
 * script and line). Reads outside the bytes fail as a fault would.
 *
 *   make build/fuzz/fuzz_jvm    (seeds: fuzz/make-jvm-seeds.sh, a made-up JVM's tables)
 *   build/fuzz/fuzz_jvm -max_total_time=60 build/fuzz/corpus build/fuzz/seeds/jvm
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/jvm.h"
#include "unwind/v8.h"
#include "../bpf/jvm_records.h"

#define BASE 0x7f0000000000ull

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

struct mem {
	const uint8_t *data;
	size_t size;
};

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = ctx;

	if (addr < BASE || addr - BASE > m->size || len > m->size - (addr - BASE))
		return -14;
	memcpy(buf, m->data + (addr - BASE), len);
	return 0;
}

/*
 * V8 too (src/unwind/v8.h): the bytes as a node binary (its .dynsym's constants, its
 * builtins from .symtab or .dynsym's accessors, which must lie within the file), then as
 * a node's memory, where the first word is a JSFunction to name with the layout read or,
 * when refused, one whose offsets are Node 20's (its type numbers made up: any is as good
 * to a fuzzer), and the second a PC in its optimised or baseline code; and as a source
 * position table, and a baseline Code's offset table and bytecodes.
 */
static void fuzz_v8(int fd, const struct mem *m)
{
	static const int32_t node20[V8_CONST_COUNT] = {
		[V8_OFF_FP_FUNCTION] = -16, [V8_OFF_FP_CONTEXT] = -8, [V8_SMI_TAG_MASK] = 1,
		[V8_SMI_SHIFT] = 31, [V8_HEAP_TAG] = 1, [V8_HEAP_TAG_MASK] = 3,
		[V8_TAGGED_SIZE] = 8, [V8_MAP_INSTANCE_TYPE] = 12, [V8_JS_FUNCTION_TYPE] = 2058,
		[V8_JS_FUNCTION_SHARED] = 24, [V8_SFI_NAME] = 16, [V8_SFI_SCRIPT] = 32,
		[V8_SCRIPT_NAME] = 16, [V8_SCRIPT_TYPE] = 167, [V8_FIRST_NONSTRING_TYPE] = 128,
		[V8_STRING_REPR_MASK] = 7, [V8_STRING_ENC_MASK] = 8, [V8_CONS_STRING_TAG] = 1,
		[V8_THIN_STRING_TAG] = 5, [V8_CONS_FIRST] = 16, [V8_CONS_SECOND] = 24,
		[V8_THIN_ACTUAL] = 16,
		[V8_ONE_BYTE_STRING_TAG] = 8, [V8_STRING_LENGTH] = 12,
		[V8_SEQ_ONE_BYTE_CHARS] = 16, [V8_SEQ_TWO_BYTE_CHARS] = 16,
		[V8_SCOPE_INFO_TYPE] = 251, [V8_SCOPE_INFO_NLOCALS] = 2,
		[V8_SCOPE_INFO_FIRST_VARS] = 4, [V8_SCRIPT_SOURCE] = 8,
		[V8_SCRIPT_LINE_ENDS] = 56, [V8_FIXED_ARRAY_TYPE] = 175,
		[V8_FIXED_ARRAY_LENGTH] = 8, [V8_FIXED_ARRAY_DATA] = 16,
		[V8_CODE_TYPE] = 245, [V8_ISTREAM_TYPE] = 252, [V8_ISTREAM_START] = 16,
		[V8_BYTE_ARRAY_TYPE] = 190, [V8_DEOPT_INLINED_COUNT] = 1,
		[V8_DEOPT_LITERALS] = 2, [V8_DEOPT_INLINING_POSITIONS] = 7,
		[V8_BYTECODE_ARRAY_TYPE] = 191, [V8_BYTECODE_ARRAY_DATA] = 54,
	};
	struct v8_position where[V8_MAX_INLINED];
	struct v8_layout l;
	struct v8_function f;
	uint64_t fn, pc, pos;
	unsigned n;

	if (v8_layout__read(fd, &l, NULL) != 0) {
		memset(&l, 0, sizeof(l));
		memcpy(l.c, node20, sizeof(node20));
		l.lines = true;
		l.code = (struct v8_code_layout){ true, true, 48, 24, 16, -1, -1, true, 32 };
		/* bytecodes of 1 to 4 bytes (opcode % 4 + 1), doubled and quadrupled */
		l.nbytecodes = V8_MAX_BYTECODES;
		for (int i = 0; i < V8_MAX_BYTECODES; i++)
			for (int scale = 0; scale < 3; scale++)
				l.bytecode_sizes[scale][i] = (uint8_t)((i % 4 + 1) << scale);
	} else {
		check(l.builtins_offset + l.builtins_size <= m->size);
	}
	if (m->size < 16)
		return;
	memcpy(&fn, m->data, sizeof(fn));
	memcpy(&pc, m->data + 8, sizeof(pc));
	/* the bytes as a source position table; the first words as a frame's function and
	 * PC in its optimised code (v8_code.c) */
	if (v8_positions__find(m->data, m->size, (int32_t)(pc & 0xffff), &pos) == 0)
		check(pos <= INT64_MAX);
	/* and its halves as a baseline Code's offset table and its bytecodes */
	{
		int32_t bc;

		if (v8_bytecode__at_pc(&l, m->data, m->size / 2, m->data + m->size / 2,
				       m->size - m->size / 2, (uint32_t)(pc & 0xffff), &bc) == 0)
			check(bc >= 0 && (size_t)bc < m->size - m->size / 2);
	}
	if (v8_code__positions(&l, mem_read, (void *)m, BASE + fn, BASE + pc, pc & 1, where,
			       V8_MAX_INLINED, &n) == 0)
		check(n >= 1 && n <= V8_MAX_INLINED);
	else
		check(n == 0);
	if (v8_function__describe(&l, mem_read, (void *)m, BASE + fn, &f) != 0) {
		check(!f.name[0] && !f.script[0] && f.start == -1 && f.script_at == 0);
		return;
	}
	check(strlen(f.name) < V8_MAX_NAME && strlen(f.script) < V8_MAX_SCRIPT);
	/* its line: where it starts, among its script's line ends (bounded, ascending) */
	{
		struct v8_line_ends ends;
		uint64_t at_script = f.script_at;
		int32_t start = f.start;

		if (start < 0) {
			check(start == -1 && at_script == 0);
			return;
		}
		check(at_script != 0);
		if (v8_script__line_ends(&l, mem_read, (void *)m, at_script, &ends) != 0) {
			check(!ends.ends && !ends.n);
			return;
		}
		check(ends.n <= V8_MAX_LINE_ENDS);
		for (uint32_t i = 1; i < ends.n; i++)
			check(ends.ends[i] > ends.ends[i - 1]);
		check(v8_line_ends__line(&ends, start) <= (int32_t)ends.n + 1);
		v8_line_ends__free(&ends);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct mem m = { data, size };
	struct jvm_binary b;
	struct jvm_layout l;
	struct jvm_proc proc;
	enum jvm_refusal why;

	if (fd < 0) {
		fd = memfd_create("fuzz_jvm", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	jvm_binary__read(fd, &b);
	fuzz_v8(fd, &m);

	memset(&b, 0, sizeof(b));
	for (int i = 0; i < JVM_SYM_COUNT && (size_t)(i + 1) * 8 <= size; i++) {
		uint64_t v;

		memcpy(&v, data + i * 8, sizeof(v));
		b.sym[i] = v;
	}
	why = jvm_layout__read(&b, BASE, mem_read, &m, &l);
	check(jvm_refusal__msg(why) >= 0);
	check(memchr(l.missing, '\0', sizeof(l.missing)) != NULL);
	if (why == JVM_OK) {
		check(l.method_const <= JVM_MAX_OFFSET && l.blob_frame_size <= JVM_MAX_OFFSET);
		check(l.symbol_length < l.symbol_body && l.pool_holder + 8 <= l.pool_size);
		check(l.interp_method < 0 && l.interp_method >= -64);
		check(l.entries < JVM_MAX_ENTRIES);
		if (jvm_proc__init(&l, mem_read, &m, &proc) == 0) {
			check(proc.nheaps >= 1 && proc.nheaps <= JVM_MAX_HEAPS);
			for (unsigned i = 0; i < proc.nheaps; i++)
				check(proc.heaps[i].low < proc.heaps[i].high &&
				      proc.heaps[i].log2_segment <= 20);
		}
	}
	/* the word after the symbols is a Method* to name, by the layout read or, when
	 * refused, by OpenJDK 17's offsets */
	if (why != JVM_OK) {
		memset(&l, 0, sizeof(l));
		l.method_const = 8, l.const_method_constants = 8, l.const_method_name = 34;
		l.pool_holder = 24, l.pool_length = 60, l.pool_size = 72, l.klass_name = 24;
		l.symbol_length = 4, l.symbol_body = 6;
		l.pool_source_file = 54, l.const_method_size = 48, l.const_method_words = 24;
		l.const_method_flags = 28, l.const_method_code_size = 32, l.has_line_table = 1;
	}
	if (size >= (JVM_SYM_COUNT + 1) * 8) {
		char name[JVM_MAX_METHOD_NAME];
		uint64_t method;

		memcpy(&method, data + JVM_SYM_COUNT * 8, sizeof(method));
		char file[JVM_MAX_SOURCE_FILE];
		int32_t line;

		if (jvm_method__name(&l, mem_read, &m, BASE + method, name) == 0)
			check(strlen(name) <= 2 * JVM_MAX_SYMBOL + 1);
		else
			check(name[0] == '\0');
		/* where it comes from: a file within its bound, a class file's line or none */
		int32_t first, bci;
		struct jvm_scope scopes[JVM_MAX_SCOPES];
		unsigned n;

		if (jvm_method__source(&l, mem_read, &m, BASE + method, (int32_t)(method >> 48),
				       file, &line, &first) == 0)
			check(strlen(file) < JVM_MAX_SOURCE_FILE && line >= 0 && line <= 0xffff &&
			      first >= 0 && first <= 0xffff);
		else
			check(file[0] == '\0' && line == 0 && first == 0);
		if (jvm_method__bci(&l, mem_read, &m, BASE + method, (uint32_t)method & 0xfff,
				    &bci) == 0)
			check(bci >= 0 && bci < 4096);
		/* the same word as an nmethod, a PC's offset in it from the next bytes: its
		 * scopes, by the layout read or OpenJDK 17's */
		if (!l.has_scopes) {
			l.has_scopes = true, l.blob_name = 96, l.blob_code_begin = 32;
			l.blob_code_end = 40, l.compiled_method = 112, l.nmethod_metadata = 260;
			l.nmethod_scopes_pcs = 268, l.nmethod_dependencies = 272;
			l.scopes_data = 120, l.pc_desc_size = 16, l.pc_desc_pc = 0;
			l.pc_desc_scope = 4;
		}
		if (jvm_nmethod__scopes(&l, mem_read, &m, BASE + (method & 0xfffff8),
					(method >> 24) & 0xffff, scopes, JVM_MAX_SCOPES, &n) == 0)
			check(n >= 1 && n <= JVM_MAX_SCOPES && scopes[0].method &&
			      scopes[n - 1].bci >= -1);
		else
			check(n == 0);
	}
	/* the bytes as a compressed line number table */
	{
		int32_t first;

		if (jvm_line_table__first(data, size, &first) == 0)
			check(first > 0 && first <= 0xffff);
		else
			check(first == 0);
		if (jvm_line_table__at(data, size, size > 0 ? data[0] : 0, &first) == 0)
			check(first > 0 && first <= 0xffff);
		else
			check(first == 0);
	}
	return 0;
}
