// SPDX-License-Identifier: MIT
/*
 * Where a JavaScript frame was in its function's optimised code (src/unwind/v8_code.c):
 * V8's source position table decoded (tables encoded here as V8's SourcePositionTable-
 * Builder does, and malformed ones), the bytecode a baseline PC is in, the layouts
 * derived, and a real node (/usr/bin/node, Node 20) whose TurboFan code of settleAll has
 * recordLine inlined, blocked in a read below ledgerNote's baseline code: the return
 * address into settleAll's code names recordLine at its call's line, then settleAll at
 * its call of recordLine; ledgerNote's, ledgerNote at its call, read through /proc/PID/mem of
 * this test's own child (the stand-in for the capture's page reader, as in test_v8.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "helpers/fixture.h"
#include "helpers/procmem.h"
#include "unwind/v8.h"

#define NODE "/usr/bin/node"

/* ---- the table ---- */

struct table {
	uint8_t b[256];
	size_t len;
	int64_t code, position; /* the last entry's, as the builder keeps them */
};

/* One number as V8 writes it: zigzag, then 7 bits a byte, low first. */
static void put_number(struct table *t, int64_t v)
{
	uint64_t bits = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	do {
		uint8_t b = bits & 0x7f;

		bits >>= 7;
		t->b[t->len++] = (uint8_t)(b | (bits ? 0x80 : 0));
	} while (bits);
}

/* V8's SourcePosition: script offset + 1 at bit 1, inlining id + 1 at bit 31. */
static uint64_t position(int32_t offset, int32_t inlining)
{
	return ((uint64_t)(offset + 1) << 1) | ((uint64_t)(inlining + 1) << 31);
}

/* An entry: the code offset's delta (negative - 1 when no statement begins there) and
 * the position's delta. */
static void put_entry(struct table *t, int64_t code, uint64_t pos, bool statement)
{
	int64_t dc = code - t->code;

	put_number(t, statement ? dc : -dc - 1);
	put_number(t, (int64_t)pos - t->position);
	t->code = code;
	t->position = (int64_t)pos;
}

static void test_table(void **state)
{
	struct table t = { 0 };
	uint64_t pos = 0;

	(void)state;
	put_entry(&t, 0, position(75, -1), true);
	put_entry(&t, 0x27, position(114, -1), false);
	put_entry(&t, 0x8f, position(30, 0), true);	 /* an inlined function's place */
	put_entry(&t, 0x9b, position(1000000, 1), false); /* a large offset, a deeper inline */
	put_entry(&t, 0x105, position(75, -1), true);	 /* back to the function's own */
	/* the last entry at or before an offset */
	assert_int_equal(v8_positions__find(t.b, t.len, 0, &pos), 0);
	assert_int_equal(pos, position(75, -1));
	assert_int_equal(v8_positions__find(t.b, t.len, 0x26, &pos), 0);
	assert_int_equal(pos, position(75, -1));
	assert_int_equal(v8_positions__find(t.b, t.len, 0x27, &pos), 0);
	assert_int_equal(pos, position(114, -1));
	assert_int_equal(v8_positions__find(t.b, t.len, 0x90, &pos), 0);
	assert_int_equal(pos, position(30, 0));
	assert_int_equal(v8_positions__find(t.b, t.len, 0x100, &pos), 0);
	assert_int_equal(pos, position(1000000, 1));
	assert_int_equal(v8_positions__find(t.b, t.len, 100000, &pos), 0);
	assert_int_equal(pos, position(75, -1));
	/* none before the first entry; an empty table has none */
	{
		struct table late = { 0 };

		put_entry(&late, 16, position(3, -1), true);
		assert_int_equal(v8_positions__find(late.b, late.len, 15, &pos), -ENOENT);
		assert_int_equal(v8_positions__find(late.b, 0, 15, &pos), -ENOENT);
	}
	/* malformed: a number running off the table (cut in its middle, or after a code
	 * offset without its position), one longer than 64 bits, a position below 0 */
	{
		uint8_t more[12];
		struct table neg = { 0 };

		assert_int_equal(v8_positions__find(t.b, t.len - 1, 100000, &pos), -EINVAL);
		assert_int_equal(v8_positions__find(t.b, 1, 100000, &pos), -EINVAL);
		memset(more, 0x80, sizeof(more));
		assert_int_equal(v8_positions__find(more, sizeof(more), 0, &pos), -EINVAL);
		put_number(&neg, 0);
		put_number(&neg, -5);
		assert_int_equal(v8_positions__find(neg.b, neg.len, 0, &pos), -EINVAL);
	}
	/* code offsets past 2^31 are no code's */
	{
		struct table big = { 0 };

		put_entry(&big, 0, position(1, -1), true);
		put_entry(&big, (int64_t)1 << 40, position(2, -1), true);
		assert_int_equal(v8_positions__find(big.b, big.len, 5, &pos), -EINVAL);
	}
}

/* ---- baseline code: the bytecode whose code holds a PC ---- */

/* opcodes 2 (1 byte), 3 (3 bytes; 5 at scale 2, 9 at 4), 4 (2 bytes) */
static const uint8_t bytecodes[] = {
	2,				 /* @0 */
	3, 7, 7,			 /* @1 */
	V8_BYTECODE_WIDE, 3, 7, 7, 7, 7, /* @4: 1 + 5 */
	4, 9,				 /* @10 */
};
/* the prologue 16 bytes of code, then each bytecode's: 4, 10, 200, 3 */
static const uint8_t offsets[] = { 16, 4, 10, 0xc8, 0x01, 3 };

/* The bytecode at code offset pc of those two, or v8_bytecode__at_pc's error. */
static int32_t at_pc(const struct v8_layout *l, uint32_t pc)
{
	int32_t bc = -1;
	int err = v8_bytecode__at_pc(l, offsets, sizeof(offsets), bytecodes, sizeof(bytecodes), pc,
				     &bc);

	return err ? err : bc;
}

static void test_bytecode_at_pc(void **state)
{
	struct v8_layout l;
	int32_t bc = -1;

	(void)state;
	memset(&l, 0, sizeof(l));
	l.nbytecodes = 5;
	memset(l.bytecode_sizes, 1, sizeof(l.bytecode_sizes));
	l.bytecode_sizes[0][3] = 3;
	l.bytecode_sizes[1][3] = 5;
	l.bytecode_sizes[2][3] = 9;
	l.bytecode_sizes[0][4] = 2;
	/* code [16, 20) is @0's, [20, 30) @1's, [30, 230) @4's, [230, 233) @10's; a return
	 * address at a bytecode's code's end is its call's */
	assert_int_equal(at_pc(&l, 16), -ENOENT); /* the prologue */
	assert_int_equal(at_pc(&l, 17), 0);
	assert_int_equal(at_pc(&l, 20), 0);
	assert_int_equal(at_pc(&l, 21), 1);
	assert_int_equal(at_pc(&l, 229), 4); /* the Wide one: its prefix and operands skipped */
	assert_int_equal(at_pc(&l, 232), 10);
	/* past the code the table covers */
	assert_int_equal(at_pc(&l, 300), -ENOENT);
	/* malformed: a table number cut, an opcode the layout does not know, a prefix last,
	 * no sizes at all */
	assert_int_equal(v8_bytecode__at_pc(&l, offsets, 4, bytecodes, sizeof(bytecodes), 229, &bc),
			 -EINVAL);
	{
		uint8_t unknown[] = { 2, 9 }, prefix_last[] = { 2, V8_BYTECODE_EXTRA_WIDE };

		assert_int_equal(v8_bytecode__at_pc(&l, offsets, sizeof(offsets), unknown,
						    sizeof(unknown), 25, &bc),
				 -EINVAL);
		assert_int_equal(v8_bytecode__at_pc(&l, offsets, sizeof(offsets), prefix_last,
						    sizeof(prefix_last), 25, &bc),
				 -EINVAL);
	}
	l.nbytecodes = 0;
	assert_int_equal(at_pc(&l, 17), -EINVAL);
}

/* ---- the layouts: what each node exports, and what is derived ---- */

static void test_layouts(void **state)
{
	struct v8_layout l;
	int fd = open(NODE, O_RDONLY | O_CLOEXEC);

	(void)state;
	if (fd < 0) {
		print_message("skipped: no %s\n", NODE);
		skip();
	}
	assert_int_equal(v8_layout__read(fd, &l, NULL), 0);
	close(fd);
	/* Node 20 (V8 11.3) exports neither the JSFunction's code nor the Code's
	 * instructions: the word between the feedback cell (40) and the prototype (56),
	 * and the InstructionStream found among the Code's fields */
	assert_true(l.code.found);
	assert_true(l.code.inlining);
	assert_int_equal(l.code.function_code, 48);
	assert_int_equal(l.code.positions, 24);
	assert_int_equal(l.code.deopt, 16);
	assert_int_equal(l.code.start, -1);
	assert_int_equal(l.c[V8_ISTREAM_START], 16);
	assert_int_equal(l.c[V8_DEOPT_INLINING_POSITIONS], 7);
	/* baseline code: V8's bytecodes' sizes from .symtab (198 opcodes in V8 11.3; Mov
	 * is 3 bytes, LdaZero 1, LdaSmi 2 and 3 after Wide, as --print-bytecode shows them) */
	assert_true(l.code.baseline);
	assert_int_equal(l.nbytecodes, 198);
	assert_int_equal(l.code.bytecode_positions, 32);
	assert_int_equal(l.c[V8_BYTECODE_ARRAY_DATA], 54);
	assert_int_equal(l.bytecode_sizes[0][0x19], 3);
	assert_int_equal(l.bytecode_sizes[0][0x0c], 1);
	assert_int_equal(l.bytecode_sizes[0][0x0d], 2);
	assert_int_equal(l.bytecode_sizes[1][0x0d], 3);
}

/* ---- a real node ---- */

/*
 * settleAll is optimised (TurboFan, on demand, until it is: V8 at times throws the first
 * code away) with recordLine inlined; recordLine calls ledgerNote, which V8 never
 * optimises (nor inlines) and compiles to baseline (Sparkplug) code; it calls readOne,
 * which reads a byte of fd: /dev/zero while warming up (every path runs before TurboFan
 * compiles it), then stdin, a pipe this test never writes, where the last call blocks.
 * The place settleAll's code was at names recordLine at its call of ledgerNote, inlined
 * in settleAll at its call of recordLine; ledgerNote's baseline code is at its call of
 * readOne.
 */
static const char script[] =
	"const fs = require('fs');\n"
	"const b = Buffer.alloc(1);\n"
	"let fd = fs.openSync('/dev/zero', 'r');\n"
	"function readOne() {\n"
	"  fs.readSync(fd, b);\n"
	"  return 1;\n"
	"}\n"
	"function ledgerNote(n) {\n"
	"  const t = n + 1;\n"
	"  return t + readOne();\n"
	"}\n"
	"%NeverOptimizeFunction(ledgerNote);\n"
	"function recordLine(n) {\n"
	"  const r = n * 3;\n"
	"  return r + ledgerNote(r);\n"
	"}\n"
	"function settleAll(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++)\n"
	"    s += recordLine(i);\n"
	"  return s;\n"
	"}\n"
	"for (let k = 0; k < 20 && !%ActiveTierIsTurbofan(settleAll); k++) {\n"
	"  %PrepareFunctionForOptimization(settleAll);\n"
	"  for (let j = 0; j < 50; j++) settleAll(100);\n"
	"  %OptimizeFunctionOnNextCall(settleAll);\n"
	"  settleAll(100);\n"
	"}\n"
	"%CompileBaseline(ledgerNote);\n"
	"fd = 0;\n"
	"settleAll(1);\n";

/* The word at a stack address, 0 when not read. */
static uint64_t stack_word(int *mem, uint64_t at)
{
	uint64_t w = 0;

	return procmem__read(mem, at, &w, sizeof(w)) ? 0 : w;
}

/* The node blocked in script: its pid, its memory open at *mem, its sp. */
static pid_t start_node(const char *file, int *in_w, int *mem, uint64_t *sp)
{
	char path[64];
	int in[2];
	pid_t pid;

	assert_int_equal(pipe(in), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		close(in[1]);
		execl(NODE, "node", "--allow-natives-syntax", file, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	*sp = 0;
	for (int i = 0; i < 300 && !*sp; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		*sp = procmem__blocked_sp(pid);
	}
	assert_true(*sp != 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	*mem = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(*mem >= 0);
	*in_w = in[1];
	return pid;
}

/* The line of a function's place (pos) in its script, through its SharedFunctionInfo. */
static int32_t line_at(const struct v8_layout *l, int *mem, const struct v8_position *p,
		       char *name)
{
	struct v8_line_ends ends;
	struct v8_function f;
	int32_t line;

	assert_int_equal(v8_shared__describe(l, procmem__read, mem, p->shared, &f), 0);
	strcpy(name, f.name);
	assert_true(f.script_at != 0 && p->offset >= 0);
	assert_int_equal(v8_script__line_ends(l, procmem__read, mem, f.script_at, &ends), 0);
	line = v8_line_ends__line(&ends, p->offset);
	v8_line_ends__free(&ends);
	return line;
}

/*
 * The frame of the function named name on the stack above sp, as the kernel's walk
 * follows frame pointers: the one whose function slot (fp - 16, off_fp_function) holds
 * it; *fn that JSFunction, *ret the return address into its code (after its callee's
 * saved fp, the one that is its fp). The chain: from each word that starts five links up
 * the stack (node's own C++ frames may keep no frame pointer) until one reaches it.
 */
static void frame_of(const struct v8_layout *l, int *mem, uint64_t sp, const char *name,
		     uint64_t *fn, uint64_t *ret)
{
	struct v8_function f;

	*fn = *ret = 0;
	for (uint64_t at = sp; at < sp + 64 * 1024 && !*ret; at += 8) {
		uint64_t cur = at, prev = 0;
		int links = 0;

		while (links < 5 && cur >= sp && cur < sp + 256 * 1024 &&
		       stack_word(mem, cur) > cur && stack_word(mem, cur) < cur + 64 * 1024) {
			cur = stack_word(mem, cur);
			links++;
		}
		if (links < 5)
			continue;
		for (cur = at; cur >= sp && cur < sp + 256 * 1024 && !*ret;
		     prev = cur, cur = stack_word(mem, cur)) {
			uint64_t w = stack_word(mem, cur + (uint64_t)(int64_t)l->c[V8_OFF_FP_FUNCTION]);

			if (prev && v8_function__describe(l, procmem__read, mem, w, &f) == 0 &&
			    strcmp(f.name, name) == 0) {
				*fn = w;
				*ret = stack_word(mem, prev + 8);
			}
			if (stack_word(mem, cur) <= cur)
				break;
		}
	}
}

static void test_real_inlined(void **state)
{
	char dir[] = "/tmp/slideops-v8code-XXXXXX", file[64];
	struct v8_position where[V8_MAX_INLINED];
	uint64_t sp, fn = 0, ret = 0;
	struct v8_layout l;
	struct v8_function f;
	int in_w, mem, fd;
	unsigned n = 0;
	pid_t pid;
	FILE *out;

	(void)state;
	fd = open(NODE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		print_message("skipped: no %s\n", NODE);
		skip();
	}
	assert_int_equal(v8_layout__read(fd, &l, NULL), 0);
	close(fd);
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/w.js", dir);
	out = fopen(file, "we");
	assert_non_null(out);
	assert_true(fputs(script, out) >= 0);
	fclose(out);
	pid = start_node(file, &in_w, &mem, &sp);
	frame_of(&l, &mem, sp, "settleAll", &fn, &ret);
	assert_true(fn != 0);
	assert_true(ret != 0);
	assert_int_equal(v8_code__positions(&l, procmem__read, &mem, fn, ret, false, where,
					    V8_MAX_INLINED, &n),
			 0);
	print_message("settleAll's code at 0x%llx: %u functions\n", (unsigned long long)ret, n);
	assert_true(n >= 2);
	{
		char name[V8_MAX_NAME];
		unsigned got = n;

		/* settleAll at its call of recordLine; recordLine, inlined, at its call of
		 * ledgerNote */
		assert_int_equal(line_at(&l, &mem, &where[n - 1], name),
				 fixture__line_of(script, "s += recordLine(i)"));
		assert_string_equal(name, "settleAll");
		assert_int_equal(line_at(&l, &mem, &where[n - 2], name),
				 fixture__line_of(script, "return r + ledgerNote(r)"));
		assert_string_equal(name, "recordLine");
		for (unsigned i = 0; i + 2 < n; i++) {
			assert_int_equal(v8_shared__describe(&l, procmem__read, &mem, where[i].shared, &f), 0);
			print_message("  inlined in recordLine: %s (%s)\n", f.name, f.script);
		}
		/* the same place as a leaf (the instruction after the call): still there */
		assert_int_equal(v8_code__positions(&l, procmem__read, &mem, fn, ret - 1, true, where,
						    V8_MAX_INLINED, &n),
				 0);
		assert_int_equal(n, got);
	}
	/* room for one: no inlined function, the function's own place alone */
	assert_int_equal(v8_code__positions(&l, procmem__read, &mem, fn, ret, false, where, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(where[0].offset, -1);
	/* a PC outside its code (an interpreted frame's), a function that is not one */
	assert_int_equal(v8_code__positions(&l, procmem__read, &mem, fn, 0x1000, false, where,
					    V8_MAX_INLINED, &n),
			 -ENOENT);
	assert_int_equal(n, 0);
	assert_true(v8_code__positions(&l, procmem__read, &mem, fn + 8, ret, false, where,
				       V8_MAX_INLINED, &n) < 0);
	/* ledgerNote's baseline code, at its call of readOne: its own place alone */
	{
		uint64_t note, note_ret;
		char name[V8_MAX_NAME];

		assert_true(l.code.baseline);
		frame_of(&l, &mem, sp, "ledgerNote", &note, &note_ret);
		assert_true(note != 0 && note_ret != 0);
		assert_int_equal(v8_code__positions(&l, procmem__read, &mem, note, note_ret, false,
						    where, V8_MAX_INLINED, &n),
				 0);
		assert_int_equal(n, 1);
		assert_int_equal(line_at(&l, &mem, &where[0], name),
				 fixture__line_of(script, "return t + readOne()"));
		assert_string_equal(name, "ledgerNote");
		/* without the bytecodes' sizes: not read */
		l.code.baseline = false;
		assert_int_equal(v8_code__positions(&l, procmem__read, &mem, note, note_ret, false,
						    where, V8_MAX_INLINED, &n),
				 -ENOENT);
		l.code.baseline = true;
	}
	/* a layout that does not say how: refused */
	l.code.found = false;
	assert_int_equal(v8_code__positions(&l, procmem__read, &mem, fn, ret, false, where,
					    V8_MAX_INLINED, &n),
			 -ENOENT);
	close(mem);
	close(in_w);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_bytecode_at_pc),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_real_inlined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
