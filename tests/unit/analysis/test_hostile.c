// SPDX-License-Identifier: MIT
/*
 * Hostile text and special files: names with escape sequences and invalid UTF-8 are
 * shown as the text \xNN on a terminal and in JSON; a view written to /dev/null, a FIFO
 * or standard output is written there in place; a regular file is replaced whole,
 * keeping its mode, and a link to one stays a link; folded stacks have one line per
 * distinct stack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "util/json_text.h"
#include "util/outfile.h"
#include "profile_builder.h"
#include "util/file.h"
#include "util/messages.h"
#include "util/text.h"

static void assert_escapes(const char *in, const char *want)
{
	char *got = text__escape(in);

	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("escape: want '%s', got '%s'", want, got);
	free(got);
}

static void test_escape_for_terminal(void **state)
{
	(void)state;
	assert_escapes("gunicorn", "gunicorn");
	assert_escapes("evil\x1b[2Jname", "evil\\x1b[2Jname");
	assert_escapes("two\nlines\r", "two\\x0alines\\x0d");
	assert_escapes("del\x7f", "del\\x7f");
	assert_escapes("bad\xff\xfe utf8", "bad\\xff\\xfe utf8");
	assert_escapes("csi\xc2\x9b" "31m", "csi\\xc2\\x9b31m"); /* C1: a CSI to some terminals */
	assert_escapes("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
	assert_escapes("cut\xe2\x82", "cut\\xe2\\x82");
	assert_true(text__is_clean("plain name"));
	assert_false(text__is_clean("a\tb"));
}

static void test_json_is_valid_utf8(void **state)
{
	json_t *j;
	char *dump;

	(void)state;
	j = json_text("app\x1b[31m\xff.debug");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "app\x1b[31m\\xff.debug");
	dump = json_dumps(j, JSON_ENCODE_ANY);
	assert_non_null(dump);
	/* The control character escaped by JSON, the bad byte as text. */
	assert_string_equal(dump, "\"app\\u001B[31m\\\\xff.debug\"");
	free(dump);
	json_decref(j);
}

/* Every %s of every message is escaped, widths and all; numbers untouched. */
static void test_messages_escape_arguments(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	msg_fprint(out, MSG_SHOW_PROCESS_ROW, "evil\x1b]0;pwned\x07", "54%", "1.2 s");
	msg_fprint(out, MSG_TOP_LINE, 42, "a\nb", "3%", "Other processes");
	fclose(out);
	assert_non_null(strstr(buf, "evil\\x1b]0;pwned\\x07"));
	assert_non_null(strstr(buf, "     42  a\\x0ab 3% CPU  Other processes"));
	assert_null(strchr(buf, '\x1b'));
	assert_null(strchr(buf, '\x07'));
	free(buf);
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/slideops-hostile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_special_files_written_in_place(void **state)
{
	char fifo[128], path[128], target[128], got[64] = "";
	struct stat st;
	pid_t child;
	int status, fd;

	(void)state;
	/* /dev/null stays the device. */
	assert_int_equal(file__write_output("/dev/null", "x", 1, 0644), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	/* A FIFO: the reader gets the bytes; the FIFO stays a FIFO. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(file__write_output(fifo, "through", 7, 0644) == 0 ? 0 : 1);
	fd = open(fifo, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, got, sizeof(got) - 1), 7);
	close(fd);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(got, "through");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	/* A regular file: replaced whole, its mode kept. */
	snprintf(path, sizeof(path), "%s/out.html", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0640);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old old old", 11), 11);
	close(fd);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(file__write_output(path, "new", 3, 0644), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 3);
	assert_int_equal(st.st_mode & 0777, 0640);

	/* A link to a regular file: the file gets it, the link stays a link. */
	snprintf(target, sizeof(target), "%s/link", dir);
	assert_int_equal(symlink(path, target), 0);
	assert_int_equal(file__write_output(target, "via link", 8, 0644), 0);
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 8);

	/* A link another user planted is not followed: it is replaced, its target kept. */
	if (geteuid() == 0) {
		char planted[128];

		snprintf(planted, sizeof(planted), "%s/planted", dir);
		assert_int_equal(symlink(path, planted), 0);
		assert_int_equal(lchown(planted, 65534, 65534), 0);
		assert_int_equal(file__write_output(planted, "attack", 6, 0644), 0);
		assert_int_equal(lstat(planted, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, 8); /* "via link", untouched */
	}

	/* What can be known before writing (a capture asks before it samples). */
	assert_int_equal(file__check_output(dir), -EISDIR);
	snprintf(path, sizeof(path), "%s/no/such/dir/x.html", dir);
	assert_int_equal(file__check_output(path), -ENOENT);
	assert_int_equal(file__check_output("/dev/null"), 0);
	assert_int_equal(file__check_output("-"), 0);
	snprintf(path, sizeof(path), "%s/new.html", dir);
	assert_int_equal(file__check_output(path), 0);
	assert_int_equal(access(path, F_OK), -1); /* nothing created */
	assert_int_equal(file__check_output("/dev/null/x.html"), -ENOTDIR);
}

static void test_stdout_paths(void **state)
{
	char path[128], buf[64] = "";
	int saved, fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/stdout", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	saved = dup(STDOUT_FILENO);
	fflush(stdout);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	assert_int_equal(file__write_output("-", "a", 1, 0644), 0);
	assert_int_equal(file__write_output("/proc/self/fd/1", "b", 1, 0644), 0);
	assert_int_equal(file__write_output("/dev/stdout", "c", 1, 0644), 0);
	assert_true(file__is_stdout("/dev/fd/1"));
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 3);
	close(fd);
	assert_string_equal(buf, "abc");
}

/* Samples that differ only in what folded has no room for (pid, address within one
 * function) are one line; a frame's ';' and newline cannot split it. */
static void test_folded_one_line_per_stack(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t m = pb_mapping(p, "/usr/bin/app", "ab12", MAPPING_EXE, true);
	uint32_t a1 = pb_frame(p, m, 0x1000, "work", true, LANGUAGE_C);
	uint32_t a2 = pb_frame(p, m, 0x1004, "work", true, LANGUAGE_C);
	uint32_t mainf = pb_frame(p, m, 0x2000, "main", true, LANGUAGE_C);
	uint32_t odd = pb_frame(p, m, 0x3000, "odd;name\nhere", true, LANGUAGE_C);
	struct pb_who w1 = { "Service billing", GROUP_SERVICE, 10, "app", NULL };
	struct pb_who w2 = { "Service billing", GROUP_SERVICE, 11, "app", NULL };
	char *buf = NULL, *line;
	size_t len = 0, lines = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	pb_sample(p, &w1, 30 * MS, 0, 2, a1, mainf);
	pb_sample(p, &w2, 20 * MS, 0, 2, a2, mainf);
	pb_sample(p, &w1, 10 * MS, 12, 2, a2, mainf);
	pb_sample(p, &w1, 10 * MS, 0, 2, odd, mainf);
	assert_int_equal(folded__write(p, out), 0);
	fclose(out);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		lines++;
	assert_int_equal(lines, 2);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	assert_int_equal(folded__write(p, out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "Service billing;app;main;work 6\n"));
	assert_non_null(strstr(buf, "Service billing;app;main;odd:name here 1\n"));
	free(buf);
	profile__free(p);
}

/* The flame graph page's data: a name with invalid UTF-8 and a script end tag stays
 * valid UTF-8 and inert. */
static void test_flamegraph_names_are_valid_utf8(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t m = pb_mapping(p, "/usr/bin/app", "ab12", MAPPING_EXE, true);
	uint32_t f = pb_frame(p, m, 0x1000, "bad\xff</script>", true, LANGUAGE_C);
	struct pb_who w = { "Service billing", GROUP_SERVICE, 10, "app\xfe", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	pb_sample(p, &w, 30 * MS, 0, 1, f);
	assert_int_equal(flamegraph__write(p, out, FLAMEGRAPH_COLOUR_LANGUAGE), 0);
	fclose(out);
	assert_non_null(strstr(buf, "bad\\\\xff\\u003c/script\\u003e"));
	assert_non_null(strstr(buf, "app\\\\xfe"));
	for (size_t i = 0; i < len;) {
		size_t n = text__utf8_sequence(buf + i);

		if (!n)
			fail_msg("invalid UTF-8 at byte %zu of the page", i);
		i += n;
	}
	free(buf);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_for_terminal),
		cmocka_unit_test(test_json_is_valid_utf8),
		cmocka_unit_test(test_messages_escape_arguments),
		cmocka_unit_test_setup_teardown(test_special_files_written_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout_paths, setup, teardown),
		cmocka_unit_test(test_folded_one_line_per_stack),
		cmocka_unit_test(test_flamegraph_names_are_valid_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
