// SPDX-License-Identifier: MIT
/*
 * The resident profiler's memory of what its captures read (src/capture/profiler.c),
 * and Remove the profiler: addresses whose lines were looked up are left out of the
 * next read, by build; a build whose .dynsym the workspace keeps is not read again;
 * Remove forgets all of it and deletes the profiler's directory and the capture files
 * beside it, saying what went, without following a link out. No BPF: nothing is loaded
 * until a capture.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/profiler.h"

static char *make_dir(void)
{
	char *dir = strdup("/tmp/slideops-profiler-test.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_lines_looked_up_are_left_out(void **state)
{
	char *data = make_dir(), dir[256];
	uint64_t first[] = { 0x1000, 0x1010, 0x1020 }, again[] = { 0x1000, 0x1018, 0x1020, 0x2000 };
	uint64_t other[] = { 0x1000 };
	size_t n = 4, n_other = 1;
	struct profiler *p;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/profiler", data);
	p = profiler__new(dir);
	assert_non_null(p);
	assert_string_equal(profiler__dir(p), dir);
	assert_false(profiler__installed(p));
	assert_true(profiler__will_install(p, QUESTION_CPU));

	profiler__note_lines_looked_up(p, "aaaa", first, 3);
	profiler__lines_known(p, "aaaa", again, &n);
	assert_int_equal(n, 2);
	assert_int_equal(again[0], 0x1018);
	assert_int_equal(again[1], 0x2000);
	/* Another build's addresses are its own. */
	profiler__lines_known(p, "bbbb", other, &n_other);
	assert_int_equal(n_other, 1);
	/* Noted twice: still once each. */
	profiler__note_lines_looked_up(p, "aaaa", first, 3);
	n = 3;
	memcpy(again, first, sizeof(first));
	profiler__lines_known(p, "aaaa", again, &n);
	assert_int_equal(n, 0);
	profiler__free(p);
	rmdir(data);
	free(data);
}

static void test_kept_symbols_are_not_read_again(void **state)
{
	char *data = make_dir(), dir[256];
	struct profiler *p;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/profiler", data);
	p = profiler__new(dir);
	assert_non_null(p);
	/* A build id no debug file is installed for. */
	assert_int_equal(profiler__symbols_kept(p, "0123456789abcdef0123"), 0);
	profiler__note_symbols_kept(p, "0123456789abcdef0123");
	assert_int_equal(profiler__symbols_kept(p, "0123456789abcdef0123"), 1);
	assert_int_equal(profiler__symbols_kept(p, "0123456789abcdef0124"), 0);
	/* Forgotten by an unload (and by Remove). */
	assert_int_equal(profiler__unload(p), 0);
	assert_int_equal(profiler__symbols_kept(p, "0123456789abcdef0123"), 0);
	profiler__free(p);
	rmdir(data);
	free(data);
}

static void test_remove_deletes_and_says_what(void **state)
{
	char *data = make_dir(), dir[256], path[512];
	struct remove_report rep = { 0 };
	struct profiler *p;
	uint64_t addr = 0x10;
	size_t n = 1;
	struct stat st;
	json_t *item;
	size_t i;
	bool saw_profiler = false, saw_captures = false;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/profiler", data);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/unwind", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/unwind/abcd", dir);
	write_file(path, "12345");
	snprintf(path, sizeof(path), "%s/captures", data);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/captures/1.pb.gz", data);
	write_file(path, "xy");
	/* A link out of the data directory: removed, never followed. */
	snprintf(path, sizeof(path), "%s/outside", data);
	write_file(path, "precious");
	snprintf(path, sizeof(path), "%s/captures/link", data);
	assert_int_equal(symlink("../outside", path), 0);

	p = profiler__new(dir);
	assert_non_null(p);
	profiler__note_lines_looked_up(p, "aaaa", &addr, 1);
	assert_int_equal(profiler__remove(p, &rep), 0);
	json_array_foreach(rep.removed, i, item) {
		const char *where = json_string_value(json_object_get(item, "path"));
		json_int_t files = json_integer_value(json_object_get(item, "files"));
		json_int_t bytes = json_integer_value(json_object_get(item, "bytes"));

		if (strcmp(where, dir) == 0) {
			saw_profiler = true;
			assert_int_equal(files, 1);
			assert_int_equal(bytes, 5);
		} else {
			snprintf(path, sizeof(path), "%s/captures", data);
			assert_string_equal(where, path);
			saw_captures = true;
			assert_int_equal(files, 2);
		}
	}
	assert_true(saw_profiler && saw_captures);
	assert_int_equal(json_array_size(rep.failed), 0);
	assert_int_not_equal(stat(dir, &st), 0);
	snprintf(path, sizeof(path), "%s/outside", data);
	assert_int_equal(stat(path, &st), 0);
	/* What was remembered is forgotten. */
	profiler__lines_known(p, "aaaa", &addr, &n);
	assert_int_equal(n, 1);
	remove_report__release(&rep);

	/* Nothing left: nothing said. */
	assert_int_equal(profiler__remove(p, &rep), 0);
	assert_int_equal(json_array_size(rep.removed), 0);
	remove_report__release(&rep);
	profiler__free(p);
	unlink(path);
	rmdir(data);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_looked_up_are_left_out),
		cmocka_unit_test(test_kept_symbols_are_not_read_again),
		cmocka_unit_test(test_remove_deletes_and_says_what),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
