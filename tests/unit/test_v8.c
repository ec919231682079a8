// SPDX-License-Identifier: MIT
/*
 * V8's postmortem constants (src/unwind/v8.h) read from a real node binary's .dynsym:
 * /usr/bin/node, Node 20 (Debian). Without it the real-binary test skips and says so.
 * A binary without v8dbg_ symbols is not V8; a file that is not ELF is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
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

static void test_real_node(void **state)
{
	struct v8_layout l;
	enum v8_const missing = V8_CONST_COUNT;
	int fd;

	(void)state;
	fd = open(NODE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		print_message("skipped: no " NODE "\n");
		skip();
	}
	assert_int_equal(v8_layout__read(fd, &l, &missing), 0);
	close(fd);
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_v8),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_real_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
