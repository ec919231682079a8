// SPDX-License-Identifier: MIT
/*
 * V8's postmortem constants (src/unwind/v8.h) read from a real node binary's .dynsym:
 * /usr/bin/node, Node 20 (nodesource's, V8 11.3), and Debian 12's own Node 18 (V8 10.2),
 * whose constants are in the libnode.so.108 its node links, unpacked by `make deps` into
 * build/node18 (tests/tools/fetch-node18.sh; NODE18_ROOT elsewhere). Without either,
 * its tests skip and say so. A binary without v8dbg_ symbols is not V8; a file that is
 * not ELF is refused. Then a real node (each of the two) blocked in computeTotals <
 * descendA < Ledger.settle < descendB: every word of its main thread's stack is tried as
 * a JSFunction and described (v8_function__describe: computeTotals' script too, the file
 * node ran; and the four's lines, where each is declared, an arrow's too) through
 * /proc/PID/mem of this test's own child (the stand-in here for the capture's page
 * reader, as in test_jvm_real.c).
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

static void test_not_v8(void **state)
{
	struct v8_layout l;
	enum v8_const missing = V8_CONST_COUNT;
	int fd;

	(void)state;
	fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(v8_layout__read(fd, &l, &missing), -ENOENT);
	assert_int_equal(missing, V8_CONST_COUNT);
	for (int i = 0; i < V8_CONST_COUNT; i++)
		assert_int_equal(l.c[i], 0);
	close(fd);

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(v8_layout__read(fd, &l, NULL), -ENOEXEC);
	close(fd);
}

static void test_names(void **state)
{
	(void)state;
	for (int i = 0; i < V8_CONST_COUNT; i++) {
		assert_non_null(v8_const__name((enum v8_const)i));
		assert_true(strlen(v8_const__name((enum v8_const)i)) > 0);
		assert_string_not_equal(v8_const__name((enum v8_const)i), "?");
	}
	assert_string_equal(v8_const__name(V8_CONST_COUNT), "?");
	assert_string_equal(v8_const__name(V8_OFF_FP_FUNCTION), "off_fp_function");
}

/*
 * The layout of NODE, when it is the Node 20 these values were measured on: skips the
 * test otherwise (no node; a node of another major version, whose offsets differ; a
 * node built on a shared libnode, whose binary carries no v8dbg_ constants).
 */
static void node20_layout(struct v8_layout *l, enum v8_const *missing)
{
	char version[32] = "";
	FILE *f;
	int fd, err;

	fd = open(NODE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		print_message("skipped: no " NODE "\n");
		skip();
	}
	f = popen(NODE " --version 2>/dev/null", "r");
	if (f) {
		if (!fgets(version, sizeof(version), f))
			version[0] = '\0';
		pclose(f);
	}
	if (strncmp(version, "v20.", 4) != 0) {
		close(fd);
		print_message("skipped: " NODE " is not Node 20 (%s)\n", version);
		skip();
	}
	err = v8_layout__read(fd, l, missing);
	close(fd);
	if (err == -ENOENT) {
		print_message("skipped: " NODE " carries no v8dbg_ constants (a shared libnode?)\n");
		skip();
	}
	assert_int_equal(err, 0);
}

/* Debian's Node 18, unpacked by make deps: its root (NODE18_ROOT, else the build's
 * node18/: SLIDEOPS_BUILD's, else beside this test's binary, build/[asan/]tests/). */
static void node18_root(char *root, size_t size)
{
	const char *env = getenv("NODE18_ROOT"), *build = getenv("SLIDEOPS_BUILD");
	char exe[400];
	ssize_t n;
	char *cut;

	if (env && *env) {
		snprintf(root, size, "%s", env);
		return;
	}
	if (build && *build) {
		snprintf(root, size, "%s/node18", build);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	cut = strstr(exe, "/asan/tests/");
	if (!cut)
		cut = strstr(exe, "/tests/");
	if (cut)
		*cut = '\0';
	snprintf(root, size, "%s/node18", exe);
}

/*
 * The layout of Debian's Node 18, read from its libnode.so.108 (its node executable
 * exports none: -ENOENT there), and its node's path and library directory: skips the
 * test when make deps could not fetch it.
 */
static void node18_layout(struct v8_layout *l, char *node, char *lib, size_t size)
{
	char root[512], path[700];
	int fd, err;

	node18_root(root, sizeof(root));
	snprintf(node, size, "%s/usr/bin/node", root);
	snprintf(lib, size, "%s/usr/lib/x86_64-linux-gnu", root);
	snprintf(path, sizeof(path), "%s/libnode.so.108", lib);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || access(node, X_OK) != 0) {
		if (fd >= 0)
			close(fd);
		print_message("skipped: no Debian Node 18 in %s (make deps fetches it)\n", root);
		skip();
	}
	err = v8_layout__read(fd, l, NULL);
	close(fd);
	assert_int_equal(err, 0);
	fd = open(node, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	{
		struct v8_layout none;

		assert_int_equal(v8_layout__read(fd, &none, NULL), -ENOENT);
	}
	close(fd);
}

static void test_real_node18(void **state)
{
	char node[600], lib[600];
	struct v8_layout l;

	(void)state;
	node18_layout(&l, node, lib, sizeof(node));
	/* measured on Debian's libnode108 18.20.4 (V8 10.2, x86-64, no pointer
	 * compression): as Node 20's but for instance types */
	assert_int_equal(l.c[V8_OFF_FP_FUNCTION], -16);
	assert_int_equal(l.c[V8_OFF_FP_CONTEXT], -8);
	assert_int_equal(l.c[V8_TAGGED_SIZE], 8);
	assert_int_equal(l.c[V8_JS_FUNCTION_SHARED], 24);
	assert_int_equal(l.c[V8_SFI_NAME], 16);
	assert_int_equal(l.c[V8_SFI_SCRIPT], 32);
	assert_int_equal(l.c[V8_JS_FUNCTION_TYPE], 2065);
	assert_int_equal(l.c[V8_SCRIPT_TYPE], 170);
	assert_int_equal(l.c[V8_SCOPE_INFO_TYPE], 256);
	assert_int_equal(l.c[V8_SCOPE_INFO_NLOCALS], 2);
	assert_int_equal(l.c[V8_SCOPE_INFO_FIRST_VARS], 3);
	assert_true(l.lines);
	assert_int_equal(l.c[V8_FIXED_ARRAY_TYPE], 179);
	/* where a frame is in optimised code: V8 10 exports the JSFunction's code (a CodeT,
	 * the Code itself here) and the Code's header size and instruction size (at 40),
	 * from which its deoptimization data and position table (16, 24) are derived; not
	 * the deoptimization data's indices: no inlined functions */
	assert_true(l.code.found);
	assert_false(l.code.inlining);
	assert_int_equal(l.code.function_code, 48);
	assert_int_equal(l.code.start, 128);
	assert_int_equal(l.code.size, 40);
	assert_int_equal(l.code.deopt, 16);
	assert_int_equal(l.code.positions, 24);
	/* and baseline code's: the bytecodes' sizes from .dynsym (libnode exports them) */
	assert_true(l.code.baseline);
	assert_int_equal(l.nbytecodes, 198);
	assert_int_equal(l.c[V8_BYTECODE_ARRAY_DATA], 56);
	/* no .symtab: the builtins from what DefaultEmbeddedBlobCode() and
	 * ...CodeSize() return (18.20.4: 0xc9bf00, 0x15a980 bytes, in .text) */
	assert_true(l.builtins_offset > 0);
	assert_true(l.builtins_size > 1000000 && l.builtins_size < 4000000);
}

static void test_real_node(void **state)
{
	struct v8_layout l;
	enum v8_const missing = V8_CONST_COUNT;

	(void)state;
	node20_layout(&l, &missing);
	assert_int_equal(missing, V8_CONST_COUNT);
	/* measured on Node 20 (x86-64, no pointer compression): nm -D plus the bytes of
	 * .data; the 0s are .bss symbols */
	assert_int_equal(l.c[V8_OFF_FP_FUNCTION], -16);
	assert_int_equal(l.c[V8_OFF_FP_CONTEXT], -8);
	assert_int_equal(l.c[V8_SMI_TAG], 0);
	assert_int_equal(l.c[V8_SMI_TAG_MASK], 1);
	assert_int_equal(l.c[V8_SMI_SHIFT], 31);
	assert_int_equal(l.c[V8_HEAP_TAG], 1);
	assert_int_equal(l.c[V8_HEAP_TAG_MASK], 3);
	assert_int_equal(l.c[V8_TAGGED_SIZE], 8);
	assert_int_equal(l.c[V8_HEAP_OBJECT_MAP], 0);
	assert_int_equal(l.c[V8_MAP_INSTANCE_TYPE], 12);
	assert_int_equal(l.c[V8_JS_FUNCTION_SHARED], 24);
	assert_int_equal(l.c[V8_SFI_NAME], 16);
	assert_int_equal(l.c[V8_SEQ_ONE_BYTE_CHARS], 16);
	assert_true(l.c[V8_JS_FUNCTION_TYPE] >= l.c[V8_FIRST_NONSTRING_TYPE]);
	/* a function's line: its script's source and line ends, a FixedArray's */
	assert_true(l.lines);
	assert_int_equal(l.c[V8_SCRIPT_SOURCE], 8);
	assert_int_equal(l.c[V8_SCRIPT_LINE_ENDS], 56);
	assert_int_equal(l.c[V8_FIXED_ARRAY_TYPE], 175);
	assert_int_equal(l.c[V8_FIXED_ARRAY_LENGTH], 8);
	assert_int_equal(l.c[V8_FIXED_ARRAY_DATA], 16);
	/* Debian's node keeps its .symtab: the embedded builtins (the interpreter's entry
	 * and handlers) are in its text, ~1.5 MB of it (20.20.2: v8_Default_embedded_blob_code_
	 * at 0x18c4000, file offset 0x14c4000) */
	assert_true(l.builtins_offset > 0);
	assert_true(l.builtins_size > 1000000 && l.builtins_size < 4000000);
}

/* ---- a real node: its functions named from its own stack ---- */

/* computeTotals blocks in a read of its stdin (a pipe this test never writes), called from
 * descendA, called from Ledger.settle (a function expression: named as V8 inferred it),
 * called from descendB: their JSFunctions are on the main thread's stack. */
static const char script[] =
	"const fs = require('fs');\n"
	"function computeTotals(n) { const b = Buffer.alloc(1); fs.readSync(0, b); return n; }\n"
	"function descendA(n) { return computeTotals(n) + 1; }\n"
	"const Ledger = {};\n"
	"Ledger.settle = function (n) { return descendA(n) + 3; };\n"
	"const descendB = (n) => {\n"
	"\treturn Ledger.settle(n) + 2;\n"
	"};\n"
	"for (let i = 0; i < 3; i++) descendB(i);\n";

/* A node's memory (fd) where a scavenge moved a JSFunction: its old place, at the
 * untagged address from, holds in its map word the forwarding address to (V8's: the new
 * copy's untagged address); the rest of the old place is not there. */
struct moved {
	int fd;
	uint64_t from, to;
};

static int moved_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct moved *m = ctx;

	if (addr == m->from && len == sizeof(m->to)) {
		memcpy(buf, &m->to, len);
		return 0;
	}
	if (addr >= m->from && addr < m->from + 4096)
		return -EFAULT;
	return procmem__read(&m->fd, addr, buf, len);
}

/* Describes the JSFunctions on the stack of node (run with LD_LIBRARY_PATH=lib when lib
 * is not NULL) blocked in script, with layout l. */
static void real_functions(const struct v8_layout *lp, const char *node, const char *lib)
{
	char dir[] = "/tmp/slideops-v8-XXXXXX", file[64], path[64];
	const struct v8_layout l = *lp;
	struct v8_function fn;
	int in[2], mem, named = 0, functions = 0, lines = 0;
	uint64_t sp = 0, hot = 0, a = 0, settle = 0, b = 0; /* where each is first seen */
	uint64_t hot_fn = 0; /* computeTotals's JSFunction */
	pid_t pid;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/w.js", dir);
	f = fopen(file, "we");
	assert_non_null(f);
	assert_int_equal(fputs(script, f) >= 0, 1);
	fclose(f);
	assert_int_equal(pipe(in), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		close(in[1]); /* this test gone, node reads EOF and ends */
		if (lib)
			setenv("LD_LIBRARY_PATH", lib, 1);
		execl(node, "node", file, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	for (int i = 0; i < 200 && !sp; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		sp = procmem__blocked_sp(pid);
	}
	assert_true(sp != 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(mem >= 0);
	/* every word of the stack that names a JSFunction: the three, and node's own */
	for (uint64_t at = sp; at < sp + 64 * 1024; at += 8) {
		uint64_t w;

		if (procmem__read(&mem, at, &w, sizeof(w)))
			break;
		if (v8_function__describe(&l, procmem__read, &mem, w, &fn) != 0)
			continue;
		const char *name = fn.name;

		functions++;
		named += name[0] != '\0';
		if (!hot && strcmp(name, "computeTotals") == 0) {
			hot = at;
			hot_fn = w;
			/* its script: the file node ran */
			assert_string_equal(fn.script, file);
		}
		if (!a && strcmp(name, "descendA") == 0)
			a = at;
		if (!b && strcmp(name, "descendB") == 0)
			b = at;
		/* a function expression: the name V8 inferred from where it was put */
		if (!settle && strcmp(name, "Ledger.settle") == 0)
			settle = at;
		/* each function's line: where it starts in its script, the line of its
		 * declaration (an arrow's too) */
		if (strcmp(name, "computeTotals") == 0 || strcmp(name, "descendA") == 0 ||
		    strcmp(name, "descendB") == 0 || strcmp(name, "Ledger.settle") == 0) {
			char decl[V8_MAX_NAME + 16];
			struct v8_line_ends ends;

			if (strcmp(name, "Ledger.settle") == 0)
				snprintf(decl, sizeof(decl), "%s = function", name);
			else
				snprintf(decl, sizeof(decl), "%s %s",
					 strcmp(name, "descendB") == 0 ? "const" : "function", name);
			assert_true(fn.start >= 0 && fn.script_at != 0);
			assert_int_equal(v8_script__line_ends(&l, procmem__read, &mem, fn.script_at, &ends), 0);
			assert_int_equal(v8_line_ends__line(&ends, fn.start),
					 fixture__line_of(script, decl));
			assert_true(fixture__line_of(script, decl) > 1);
			lines++;
			v8_line_ends__free(&ends);
		}
	}
	/* A JSFunction a scavenge moved after it was sampled: followed from its old place's
	 * forwarding address to its new one; a forwarding address to itself ends */
	if (hot_fn) {
		struct moved m = { mem, 0x7000, hot_fn - 1 };

		assert_int_equal(v8_function__describe(&l, moved_read, &m, m.from + 1, &fn), 0);
		assert_string_equal(fn.name, "computeTotals");
		assert_string_equal(fn.script, file);
		m.to = m.from;
		assert_int_equal(v8_function__describe(&l, moved_read, &m, m.from + 1, &fn), -EINVAL);
	}
	close(mem);
	close(in[1]); /* node reads EOF, returns and exits */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(file);
	rmdir(dir);
	/* node's own function expressions are named as V8 inferred them (Module._compile);
	 * the rest are its anonymous wrappers and arrows: "" */
	print_message("%s: %d JSFunctions on the stack, %d with a name\n", node, functions, named);
	/* callee below caller: the stack grows down */
	assert_true(hot && a && settle && b && hot_fn);
	assert_true(hot < a && a < settle && settle < b);
	assert_true(lines >= 4);
}

static void test_real_functions(void **state)
{
	struct v8_layout l;

	(void)state;
	node20_layout(&l, NULL);
	real_functions(&l, NODE, NULL);
}

/* The same of Debian's Node 18: its V8 10.2 heap read with its libnode's layout. */
static void test_real_functions_node18(void **state)
{
	char node[600], lib[600];
	struct v8_layout l;

	(void)state;
	node18_layout(&l, node, lib, sizeof(node));
	real_functions(&l, node, lib);
}

/* Memory that lies: a word that is not a JSFunction, a reader that fails. */
static int fail_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	(void)addr;
	(void)buf;
	(void)len;
	return -EFAULT;
}

static int zero_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	(void)addr;
	memset(buf, 0, len);
	return 0;
}

static void test_lies(void **state)
{
	struct v8_layout l;
	struct v8_function f;

	(void)state;
	node20_layout(&l, NULL);
	assert_int_equal(v8_function__describe(&l, fail_read, NULL, 0x1001, &f), -EFAULT);
	assert_string_equal(f.name, "");
	assert_string_equal(f.script, "");
	assert_int_equal(f.script_at, 0);
	assert_int_equal(f.start, -1);
	assert_int_equal(v8_function__describe(&l, zero_read, NULL, 0x1001, &f), -EINVAL);
	assert_string_equal(f.name, "");
	assert_string_equal(f.script, "");
	assert_int_equal(f.script_at, 0);
	assert_int_equal(f.start, -1);
	{
		struct v8_line_ends ends;

		assert_int_equal(v8_script__line_ends(&l, fail_read, NULL, 0x1001, &ends), -EFAULT);
		assert_int_equal(ends.n, 0);
		assert_int_equal(v8_script__line_ends(&l, zero_read, NULL, 0x1001, &ends), -ENOENT);
		assert_null(ends.ends);
	}
	assert_int_equal(v8_function__describe(&l, zero_read, NULL, 0x1000, &f), -EINVAL); /* a Smi */
	assert_int_equal(v8_function__describe(&l, zero_read, NULL, 0x1001, &f), -EINVAL); /* map 0 */
	l.c[V8_TAGGED_SIZE] = 4;
	assert_int_equal(v8_function__describe(&l, zero_read, NULL, 0x1001, &f), -EINVAL);
}

/* A position's line among line ends: the first end at or after it; none past known. */
static void test_line_ends(void **state)
{
	int32_t at[] = { 9, 20, 21 };
	struct v8_line_ends e = { at, 3, 30 };

	(void)state;
	assert_int_equal(v8_line_ends__line(&e, 0), 1);
	assert_int_equal(v8_line_ends__line(&e, 9), 1); /* the '\n' ends its line */
	assert_int_equal(v8_line_ends__line(&e, 10), 2);
	assert_int_equal(v8_line_ends__line(&e, 21), 3);
	assert_int_equal(v8_line_ends__line(&e, 22), 4); /* the last line, without its end */
	assert_int_equal(v8_line_ends__line(&e, 29), 4);
	assert_int_equal(v8_line_ends__line(&e, 30), 0);
	assert_int_equal(v8_line_ends__line(&e, -1), 0);
	e.n = 0;
	e.known = 0;
	assert_int_equal(v8_line_ends__line(&e, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_v8),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_real_node),
		cmocka_unit_test(test_real_functions),
		cmocka_unit_test(test_real_node18),
		cmocka_unit_test(test_real_functions_node18),
		cmocka_unit_test(test_lies),
		cmocka_unit_test(test_line_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
