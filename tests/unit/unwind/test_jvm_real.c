// SPDX-License-Identifier: MIT
/*
 * HotSpot's own tables (src/unwind/jvm.h) read from a real JVM: libjvm.so's exported
 * symbols, then the layout from a running JVM's memory, and its code cache walked and
 * named by that layout alone.
 *
 * The real JVM is Debian's OpenJDK 17 (/usr/lib/jvm/java-17-openjdk-amd64) running
 * tests/workloads/com/acme/Invoices.java (launched from its source: no javac needed);
 * its memory is read through /proc/PID/mem of this test's own child, the stand-in here
 * for the capture's reader. The hot loop and the recursion are among the compiled
 * methods named, the method kept interpreted is not. Without that JDK the test skips and
 * says so. The made-up memory that lies is test_jvm.c's.
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
	unsigned nmethods, named, with_file, with_line;
	bool hot, recursion, interpreted;
	char hot_file[JVM_MAX_SOURCE_FILE]; /* computeTotals' file and first line */
	int32_t hot_line;
	bool inlined; /* a PC of computeTotals' code in applyRate inlined into it */
	int32_t inlined_line, caller_line; /* their lines there */
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
	__u32 want = strcmp(kind, "nmethod") == 0 || strcmp(kind, "native nmethod") == 0
			     ? JVM_KIND_NMETHOD
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
 * computeTotals' nmethod at blob: every PC of its code read as a sample's would be
 * (jvm_nmethod__scopes), until one is in applyRate inlined into it, each at its line:
 * applyRate at its call of roundCents, computeTotals at its call of applyRate.
 */
static void scan_inlined(const struct jvm_layout *l, struct proc_mem *m, uint64_t blob,
			 struct scan *out)
{
	uint64_t code, end;

	if (out->inlined || read_u64p(m, blob + l->blob_code_begin, &code) ||
	    read_u64p(m, blob + l->blob_code_end, &end) || end <= code || end - code > (1u << 20))
		return;
	for (uint64_t pc = code; pc < end && !out->inlined; pc++) {
		struct jvm_scope scopes[JVM_MAX_SCOPES];
		char inner[JVM_MAX_METHOD_NAME], outer[JVM_MAX_METHOD_NAME], file[JVM_MAX_SOURCE_FILE];
		unsigned n;

		if (jvm_nmethod__scopes(l, proc_mem_read, m, blob, pc - blob, scopes, JVM_MAX_SCOPES,
					&n) ||
		    n != 2 || jvm_method__name(l, proc_mem_read, m, scopes[0].method, inner) ||
		    jvm_method__name(l, proc_mem_read, m, scopes[1].method, outer) ||
		    strcmp(inner, "com.acme.Invoices.applyRate") != 0 ||
		    strcmp(outer, "com.acme.Invoices.computeTotals") != 0 ||
		    jvm_method__source(l, proc_mem_read, m, scopes[0].method, scopes[0].bci, file,
				       &out->inlined_line, NULL) ||
		    jvm_method__source(l, proc_mem_read, m, scopes[1].method, scopes[1].bci, file,
				       &out->caller_line, NULL))
			continue;
		out->inlined = true;
	}
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
			{
				char file[JVM_MAX_SOURCE_FILE];
				int32_t line;

				if (jvm_method__source(l, proc_mem_read, m, method, -1, file, &line,
						       NULL))
					continue;
				out->with_file += file[0] != '\0';
				out->with_line += line > 0;
				if (strcmp(name, "com.acme.Invoices.computeTotals") == 0) {
					snprintf(out->hot_file, sizeof(out->hot_file), "%s", file);
					out->hot_line = line;
				}
			}
			if (strcmp(name, "com.acme.Invoices.computeTotals") == 0)
				scan_inlined(l, m, blob, out);
			out->hot |= strcmp(name, "com.acme.Invoices.computeTotals") == 0;
			out->recursion |= strcmp(name, "com.acme.Invoices.descend") == 0;
			out->interpreted |= strcmp(name, "com.acme.Invoices.auditOnce") == 0;
		}
	}
}

#define INVOICES "tests/workloads/com/acme/Invoices.java"

/* The line of the first statement of the method declared on the line holding decl in
 * the file at path (javac's first line of a method's line number table), or 0. */
static int first_statement(const char *path, const char *decl)
{
	char text[512];
	int n = 0, declared = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(text, sizeof(text), f)) {
		const char *p = text + strspn(text, " \t");

		n++;
		if (!declared) {
			declared = strstr(text, decl) != NULL;
			continue;
		}
		if (*p && *p != '{' && *p != '\n')
			break;
	}
	fclose(f);
	return declared ? n : 0;
}

/* The line of the file at path holding text first, or 0. */
static int line_holding(const char *path, const char *text)
{
	char buf[512];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
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
		      "-XX:CompileCommand=dontinline,com.acme.Invoices::roundCents", INVOICES,
		      (char *)NULL);
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
	for (int i = 0; i < 600 && why == JVM_OK && !(scan.hot && scan.recursion && scan.inlined);
	     i++) {
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
	/* where computeTotals comes from: its class's source file under its package, from
	 * its first statement's line (measured: every named method has its file, all but
	 * the few without a line table, the JVM's own generated ones) */
	print_message("%u of %u named methods with their file, %u with a line; computeTotals "
		      "%s:%d\n", scan.with_file, scan.named, scan.with_line, scan.hot_file,
		      scan.hot_line);
	assert_string_equal(scan.hot_file, "com/acme/Invoices.java");
	assert_int_equal(scan.hot_line, first_statement(INVOICES, "static long computeTotals("));
	assert_true(scan.hot_line > 0);
	assert_true(scan.with_line * 10 >= scan.named * 9);
	/* applyRate inlined into computeTotals: a PC of its code is in both, each at its
	 * line (applyRate's call of roundCents, computeTotals' call of applyRate) */
	print_message("inlined: applyRate at line %d in computeTotals at line %d\n",
		      scan.inlined_line, scan.caller_line);
	assert_true(scan.inlined);
	assert_int_equal(scan.inlined_line, line_holding(INVOICES, "return roundCents("));
	assert_int_equal(scan.caller_line, line_holding(INVOICES, "s = applyRate(s, i);"));
	assert_true(scan.caller_line > 0);
	/* statics lie in libjvm.so's own data */
	assert_true(l.code_cache_heaps > bias && l.code_cache_low > bias && l.code_cache_high > bias);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_symbols),
		cmocka_unit_test(test_real_jvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
