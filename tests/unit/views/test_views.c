// SPDX-License-Identifier: MIT
/*
 * The documents the CLI and the workspace server share (src/views): the spec's upload
 * refusals from a descriptor (what the server streams to disk), build ids as typed,
 * errors as {"error", "hint"}, and names that are not UTF-8 kept in a document.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "store/store.h"
#include "symbols/symtab.h"
#include "views/views.h"

/* A file without a name holding len bytes of data. */
static int memfile(const void *data, size_t len)
{
	int fd = memfd_create("upload", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void refused(int fd, int status, const char *text)
{
	struct elf_info info;
	struct symtab *tab = (struct symtab *)1;
	struct view_error e;

	assert_int_equal(views__read_upload(fd, "upload", &info, &tab, &e), -1);
	assert_null(tab);
	assert_int_equal(e.status, status);
	assert_string_equal(e.text, text);
	close(fd);
}

static void test_upload_refusals(void **state)
{
	static const char text[] = "#!/bin/sh\necho not a binary\n";
	char *copy;
	FILE *f;
	long n;

	(void)state;
	refused(memfile(text, sizeof(text)), 400, "this is not an ELF binary or debug file");
	refused(memfile("", 0), 400, "this is not an ELF binary or debug file");
	/* Debian's binaries are stripped and have build ids. */
	f = fopen("/bin/true", "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	copy = malloc((size_t)n);
	assert_int_equal(fread(copy, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	refused(memfile(copy, (size_t)n), 400, "the file is stripped too");
	free(copy);
}

static void test_upload_too_large_before_reading(void **state)
{
	int fd = memfd_create("upload", MFD_CLOEXEC);

	(void)state;
	/* Sparse: the size is what counts, and nothing is read. */
	assert_int_equal(ftruncate(fd, (off_t)VIEWS_UPLOAD_MAX_BYTES + 1), 0);
	refused(fd, 413, "the file is larger than 1 GB");
}

static void test_build_ids(void **state)
{
	char out[BUILD_ID_HEX_MAX + 1];

	(void)state;
	assert_true(views__parse_build_id("B65A313CBF47", out));
	assert_string_equal(out, "b65a313cbf47");
	assert_false(views__parse_build_id("b65a313cbf4", out));     /* 11 digits */
	assert_false(views__parse_build_id("b65a313cbf4g", out));
	assert_false(views__parse_build_id("../../etc/passwd", out));
}

static void test_error_document(void **state)
{
	struct view_error e;
	json_t *doc;

	(void)state;
	view_error__set(&e, 404, MSG_SHOW_NO_SUCH_PROFILE, "x\xff<script>");
	doc = view_error__json(&e);
	assert_non_null(doc);
	/* The name that is not UTF-8 is kept, its bad byte replaced, never dropping the error. */
	assert_non_null(strstr(json_string_value(json_object_get(doc, "error")), "<script>"));
	assert_non_null(json_object_get(doc, "hint"));
	json_decref(doc);
}

static void test_profiles_with_hostile_names(void **state)
{
	struct profile_entry e = { .id = "20261202-150405-cpu-1a2b", .question = QUESTION_CPU,
				   .server = "host\xfe", .started_at_ns = 1764687845000000000LL,
				   .duration_ns = 30000000000ULL, .answer = "in <script>x\xc3" };
	json_t *doc;
	const char *answer;

	(void)state;
	doc = views__profiles(&e, 1, NULL);
	assert_non_null(doc);
	answer = json_string_value(json_object_get(json_array_get(json_object_get(doc, "profiles"), 0),
						   "answer"));
	assert_non_null(answer);
	assert_non_null(strstr(answer, "<script>x"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(doc, "profiles"), 0), "started_at")),
			    "2025-12-02T15:04:05Z");
	json_decref(doc);
}

/* A page says where it sits: the total, its offset, and where the next page starts. */
static void test_profiles_page(void **state)
{
	struct profile_entry e[2] = {
		{ .id = "a", .question = QUESTION_CPU, .server = "h", .answer = "" },
		{ .id = "b", .question = QUESTION_LOCKS, .server = "h", .answer = "",
		  .started_at_ns = 1764687845000000000LL, .saved_at_ns = 1764687876000000000LL },
	};
	struct views_page page = { .total = 5, .offset = 2 };
	json_t *doc;

	(void)state;
	doc = views__profiles(e, 2, &page);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(doc, "total")), 5);
	assert_int_equal(json_integer_value(json_object_get(doc, "offset")), 2);
	assert_int_equal(json_integer_value(json_object_get(doc, "next_offset")), 4);
	/* The cursor of the page after: its last profile's place in the list's order. */
	assert_string_equal(json_string_value(json_object_get(doc, "next")),
			    "1764687845000000000.1764687876000000000.b");
	json_decref(doc);
	page.offset = 3;
	doc = views__profiles(e, 2, &page);
	assert_true(json_is_null(json_object_get(doc, "next_offset")));
	assert_true(json_is_null(json_object_get(doc, "next")));
	json_decref(doc);
	/* After a cursor: a full page has a next, a short one is the last; no offsets. */
	page = (struct views_page){ .total = 9, .limit = 2, .by_cursor = true };
	doc = views__profiles(e, 2, &page);
	assert_true(json_is_null(json_object_get(doc, "next_offset")));
	assert_true(json_is_string(json_object_get(doc, "next")));
	json_decref(doc);
	doc = views__profiles(e, 1, &page);
	assert_true(json_is_null(json_object_get(doc, "next")));
	json_decref(doc);
	/* The whole list (the command line): one page. */
	doc = views__profiles(e, 2, NULL);
	assert_int_equal(json_integer_value(json_object_get(doc, "total")), 2);
	assert_int_equal(json_integer_value(json_object_get(doc, "offset")), 0);
	assert_true(json_is_null(json_object_get(doc, "next_offset")));
	assert_true(json_is_null(json_object_get(doc, "next")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(doc, "profiles"), 1), "question")), "locks");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upload_refusals),
		cmocka_unit_test(test_upload_too_large_before_reading),
		cmocka_unit_test(test_build_ids),
		cmocka_unit_test(test_error_document),
		cmocka_unit_test(test_profiles_with_hostile_names),
		cmocka_unit_test(test_profiles_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
